package traindoc.rules.exec.ray_actor_died_test

import data.traindoc.lib.testing
import data.traindoc.rules.exec.ray_actor_died

# Not lib/testing's pod: Ray pods by name with a replica type: the rule
# tells the submitter from the cluster's pods.
_pod(name, state, matches, progress) := {
	"name": name, "namespace": "ml", "phase": "Running", "nodeName": "node-a", "conditions": [],
	"replicaType": "submitter",
	"containers": [{
		"name": "main", "restartCount": 0, "state": state, "lastState": {},
		"logs": [{
			"file": sprintf("logs/%s/main.log", [name]), "previous": false, "lines": 500, "matches": matches,
			"tail": ["x"], "progress": progress, "exception": "",
		}],
	}],
}

_worker(name, ip) := {
	"name": name, "namespace": "ml", "phase": "Running", "nodeName": "gpu-7", "conditions": [], "replicaType": "gpu-group",
	"containers": [{
		"name": "ray-worker", "restartCount": 0, "state": {"state": "running"}, "lastState": {},
		"logs": [{"file": "x", "previous": false, "lines": 10, "tail": [], "matches": {"ctx.ray-node-ip": {"count": 1, "firstLine": 3, "lastLine": 3, "samples": [], "groups": {"ip": ip}}}}],
	}],
}

_m(text, after) := {"count": 1, "firstLine": 100, "lastLine": 100, "firstTime": "2026-03-01T09:59:00Z", "samples": [{"line": 100, "time": "2026-03-01T09:59:00Z", "text": text, "after": after}]}

_actor_block := [
	"        class_name: TaskRunner",
	"        actor_id: 8d1498767d305748d59d87da01000000",
	"        pid: 319017",
	"        namespace: 1109301e-e25e-4e12-9ae4-1dd5fc7468e4",
	"        ip: 10.244.5.31",
	"The actor is dead because its worker process has died. Worker exit type: SYSTEM_ERROR Worker exit detail: Worker exits unexpectedly. Worker exits with an exit code None. The worker may have exceeded K8s pod memory limits.",
]

test_fires_on_actor_died_and_names_the_worker_pod if {
	driver := _pod("job-submitter", testing.failed, {"exec.ray-actor-died.actor": _m("ray.exceptions.ActorDiedError: The actor died unexpectedly before finishing this task.", _actor_block)}, {})
	fs := ray_actor_died.findings with input as {"kind": "RayJob", "phase": "Failed", "pods": [driver, _worker("rc-gpu-worker-x", "10.244.5.31")]}
	some f in fs
	f.params.what == "worker process"
	f.params.detail == "Ray names memory as a possible cause, but no OOM kill is recorded"
	f.subject.name == "rc-gpu-worker-x"
}

test_fires_stays_on_the_driver_when_no_pod_has_the_ip if {
	driver := _pod("job-submitter", testing.failed, {"exec.ray-actor-died.actor": _m("ray.exceptions.ActorDiedError: The actor died unexpectedly before finishing this task.", _actor_block)}, {})
	fs := ray_actor_died.findings with input as {"kind": "RayJob", "phase": "Failed", "pods": [driver, _worker("rc-gpu-worker-x", "10.244.9.9")]}
	some f in fs
	f.subject.name == "job-submitter"
}

test_fires_on_node_died if {
	pod := _pod("w-2", testing.failed, {"exec.ray-actor-died.node": _m("ray.exceptions.NodeDiedError: Task failed due to the node (node_id: 1a2b) dying.", [])}, {})
	fs := ray_actor_died.findings with input as {"phase": "Failed", "pods": [pod]}
	some f in fs
	f.params.what == "node"
}

test_fires_preempted_node_is_said if {
	pod := _pod("w-2", testing.failed, {"exec.ray-actor-died.node": _m("The actor died because its node has died. Node Id: 5ba2c1f0", ["\tthe actor's node was preempted: spot instance reclaimed"])}, {})
	fs := ray_actor_died.findings with input as {"phase": "Failed", "pods": [pod]}
	some f in fs
	f.params.detail == "its node was preempted"
}

# A Tune trial that Ray retried and that then trained on.
test_quiet_when_retried_and_training_continued if {
	pod := _pod("w-2", testing.running, {"exec.ray-actor-died.actor": _m("ray.exceptions.RayActorError: The actor died unexpectedly before finishing this task.", [])}, {"lastStepLine": 480})
	count(ray_actor_died.findings) == 0 with input as {"phase": "Running", "pods": [pod]}
}

test_quiet_in_a_succeeded_job if {
	pod := _pod("w-2", {"state": "terminated", "exitCode": 0}, {"exec.ray-actor-died.worker": _m("A worker died or was killed while executing a task by an unexpected system error.", [])}, {})
	count(ray_actor_died.findings) == 0 with input as {"phase": "Succeeded", "pods": [pod]}
}

# The driver log tail KubeRay copies into a RayJob's status.
test_fires_on_the_rayjob_status_message if {
	msg := concat("\n", [
		"Job entrypoint command failed with exit code 1, last available logs (truncated to 20,000 chars):",
		"    raise value",
		"ray.exceptions.RayActorError: The actor died unexpectedly before finishing this task.",
		"\tclass_name: WorkerDict",
	])
	fs := ray_actor_died.findings with input as {"kind": "RayJob", "name": "grpo", "namespace": "rl", "phase": "Failed", "pods": [], "status": {"message": msg}}
	some f in fs
	f.subject == {"kind": "RayJob", "name": "grpo"}
	f.evidence[0].line == 3
}

test_fires_signatures if {
	regex.match(testing.pattern(ray_actor_died.signatures, "exec.ray-actor-died.worker"), "Worker exit type: UNEXPECTED_SYSTEM_EXIT Worker exit detail: Worker unexpectedly exits with a connection error code 2. End of file.")
	regex.match(testing.pattern(ray_actor_died.signatures, "exec.ray-actor-died.node"), "The node with node id: 2f3e and address: 10.244.3.9 and node name: 10.244.3.9 has been marked dead because the detector has missed too many heartbeats from it.")
	not regex.match(testing.pattern(ray_actor_died.signatures, "exec.ray-actor-died.worker"), "Worker exit type: INTENDED_USER_EXIT Worker exit detail: Worker exits by an user request. exit_actor() is called.")
	not regex.match(testing.pattern(ray_actor_died.signatures, "exec.ray-actor-died.actor"), "(raylet) [2024-01-01 10:00:00] Started a local Ray instance.")
}

# Ray ≥ 2.4x words its guess "the process was killed by the OOM killer":
# still a guess, not a recorded kill.
test_fires_newer_oom_guess_is_named_a_guess if {
	block := [
		"        ip: 10.244.5.31",
		"The actor is dead because its worker process has died. Worker exit type: SYSTEM_ERROR Worker exit detail: Worker unexpectedly exits with a connection error code 2. End of file. Some common causes include: (1) the process was killed by the OOM killer due to high memory usage, (2) ray stop --force was called.",
	]
	driver := _pod("job-submitter", testing.failed, {"exec.ray-actor-died.actor": _m("ray.exceptions.ActorDiedError: The actor died unexpectedly before finishing this task.", block)}, {})
	fs := ray_actor_died.findings with input as {"kind": "RayJob", "phase": "Failed", "pods": [driver]}
	some f in fs
	f.params.detail == "Ray names memory as a possible cause, but no OOM kill is recorded"
}

# Ray 0.7 named the task in its warning; a line merely about executing a
# task is not a death.
test_quiet_on_task_words_without_a_death if {
	p := testing.pattern(ray_actor_died.signatures, "exec.ray-actor-died.worker")
	regex.match(p, "2019-11-06 22:29:13,529 WARNING worker.py:1619 -- A worker died or was killed while executing task 5d1777e4ba9affffffff04000000.")
	not regex.match(p, "INFO -- A worker was started while executing task setup.")
}

test_fires_on_an_object_whose_owner_exited if {
	pod := _pod("w-2", testing.failed, {"exec.ray-actor-died.worker": _m("ray.exceptions.OwnerDiedError: Failed to retrieve object 00ffffffffffffffffffffffffffffffffffffff1300000001e1f505.", ["", "The object's owner has exited. This is the Python worker that first created the ObjectRef via `.remote()` or `ray.put()`."])}, {})
	fs := ray_actor_died.findings with input as {"phase": "Failed", "pods": [pod]}
	some f in fs
	f.params.what == "object's owner (the worker that created it)"
}
