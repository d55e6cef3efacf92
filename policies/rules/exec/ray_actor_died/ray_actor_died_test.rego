package traindoc.rules.exec.ray_actor_died_test

import data.traindoc.rules.exec.ray_actor_died

_pod(state, matches, progress) := {
	"name": "w-2", "namespace": "ml", "phase": "Running", "nodeName": "node-a", "conditions": [],
	"containers": [{
		"name": "main", "restartCount": 0, "state": state, "lastState": {},
		"logs": [{
			"file": "logs/w-2/main.log", "previous": false, "lines": 500, "matches": matches,
			"tail": ["x"], "progress": progress, "exception": "",
		}],
	}],
}

_failed := {"state": "terminated", "reason": "Error", "exitCode": 1, "finishedAt": "2026-03-01T10:00:00Z"}

_running := {"state": "running"}

_m(text) := {"count": 1, "firstLine": 100, "lastLine": 100, "firstTime": "2026-03-01T09:59:00Z", "samples": [{"line": 100, "time": "2026-03-01T09:59:00Z", "text": text}]}

_re(id) := s.pattern if {
	some s in ray_actor_died.signatures
	s.id == id
}

test_fires_on_actor_died if {
	pod := _pod(_failed, {"exec.ray-actor-died": _m("ray.exceptions.ActorDiedError: The actor died unexpectedly before finishing this task.")}, {})
	fs := ray_actor_died.findings with input as {"phase": "Failed", "pods": [pod]}
	some f in fs
	f.params.what == "actor"
}

test_fires_on_node_died if {
	pod := _pod(_failed, {"exec.ray-actor-died": _m("ray.exceptions.NodeDiedError: Task failed due to the node (node_id: 1a2b) dying.")}, {})
	fs := ray_actor_died.findings with input as {"phase": "Failed", "pods": [pod]}
	some f in fs
	f.params.what == "node"
}

# A Tune trial that Ray retried and that then trained on.
test_not_when_retried_and_training_continued if {
	pod := _pod(_running, {"exec.ray-actor-died": _m("ray.exceptions.RayActorError: The actor died unexpectedly before finishing this task.")}, {"lastStepLine": 480})
	count(ray_actor_died.findings) == 0 with input as {"phase": "Running", "pods": [pod]}
}

test_signatures if {
	regex.match(_re("exec.ray-actor-died"), "Worker exit type: UNEXPECTED_SYSTEM_EXIT Worker exit detail: Worker unexpectedly exits with a connection error code 2. End of file.")
	not regex.match(_re("exec.ray-actor-died"), "(raylet) [2024-01-01 10:00:00] Started a local Ray instance.")
}
