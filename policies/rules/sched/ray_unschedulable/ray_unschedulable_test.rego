package traindoc.rules.sched.ray_unschedulable_test

import data.traindoc.rules.sched.ray_unschedulable

# Not lib/testing's pod: a Ray head pod with its log and the `ray status`
# output collected from it.
_pod(matches, progress, status) := {
	"name": "grpo-head-x", "namespace": "rl", "phase": "Running", "nodeName": "cpu-1", "conditions": [], "replicaType": "head",
	"containers": [{
		"name": "ray-head", "restartCount": 0, "state": {"state": "running"}, "lastState": {},
		"logs": [{"file": "logs/grpo-head-x/ray-head.log", "previous": false, "lines": 900, "matches": matches, "tail": [], "progress": progress}],
	}],
	"exec": status,
}

_m(text, n) := {"count": n, "firstLine": 400, "lastLine": 400 + n, "samples": [{"line": 400, "text": text}]}

_infeasible := "(autoscaler +32s) Error: No available node types can fulfill resource request defaultdict(<class 'float'>, {'CPU': 8.0, 'GPU': 8.0}). Add suitable node types to this cluster to resolve this issue."

test_fires_on_an_infeasible_gpu_request if {
	fs := ray_unschedulable.findings with input as {"kind": "RayJob", "phase": "Running", "pods": [_pod({"ctx.ray-sched.infeasible": _m(_infeasible, 4)}, {}, {})]}
	some f in fs
	f.category == "sched.insufficient-gpu"
	f.params.request == "{'CPU': 8.0, 'GPU': 8.0}"
}

test_fires_cpu_only_request_is_insufficient_resources if {
	t := "(scheduler +59s) Warning: The following resource request cannot be scheduled right now: {'CPU': 1.0}. This is likely due to all cluster resources being claimed by actors. Consider creating fewer actors or adding more nodes to this Ray cluster."
	fs := ray_unschedulable.findings with input as {"kind": "RayJob", "phase": "Running", "pods": [_pod({"ctx.ray-sched.pending": _m(t, 12)}, {}, {})]}
	some f in fs
	f.category == "sched.insufficient-resources"
}

test_fires_tune_trial_asking_more_gpus_than_the_cluster_has if {
	t := "2023-07-01 07:33:03,712\tWARNING insufficient_resources_manager.py:128 -- Ignore this message if the cluster is autoscaling. You asked for 29.0 cpu and 4.0 gpu per trial, but the cluster only has 20.0 cpu and 1.0 gpu. Stop the tuning job and adjust the resources requested per trial."
	fs := ray_unschedulable.findings with input as {"kind": "RayCluster", "phase": "Running", "pods": [_pod({"ctx.ray-sched.tune": _m(t, 1)}, {}, {})]}
	some f in fs
	f.category == "sched.insufficient-gpu"
	f.params.why == "the cluster has only 1 GPU(s)"
}

# One warning, after which the actors were scheduled and training ran.
test_quiet_on_a_pending_request_that_got_scheduled if {
	t := "(autoscaler +2m17s) Warning: The following resource request cannot be scheduled right now: {'CPU': 1.0, 'GPU': 1.0}. This is likely due to all cluster resources being claimed by actors."
	count(ray_unschedulable.findings) == 0 with input as {"kind": "RayJob", "phase": "Running", "pods": [_pod({"ctx.ray-sched.pending": _m(t, 1)}, {"lastStepLine": 880}, {})]}
}

test_fires_on_ray_status_demands_the_cluster_cannot_fit if {
	rs := {"rayStatus": {"file": "exec/grpo-head-x/ray-status.txt", "gpusUsed": 0, "gpusTotal": 8, "cpusUsed": 2, "cpusTotal": 106, "activeNodes": 2, "pendingNodes": 0, "demands": ["{'GPU': 1.0, 'CPU': 1.0} * 16 (STRICT_PACK): 1+ pending placement groups"]}}
	fs := ray_unschedulable.findings with input as {"kind": "RayJob", "phase": "Running", "pods": [_pod({}, {}, rs)]}
	some f in fs
	f.params.why == "the cluster has 8 GPU(s), 0 in use"
}

test_quiet_while_nodes_are_being_launched if {
	rs := {"rayStatus": {"gpusUsed": 0, "gpusTotal": 0, "pendingNodes": 2, "demands": ["{'GPU': 8.0}: 1+ pending tasks/actors"]}}
	count(ray_unschedulable.findings) == 0 with input as {"kind": "RayJob", "phase": "Running", "pods": [_pod({}, {}, rs)]}
}

# Ray 1.x-2.0 also said it for a placement group's bundle resources, which
# need no node type of their own.
test_quiet_on_a_bundle_resource_without_a_node_type if {
	p := [s.pattern | some s in ray_unschedulable.signatures; s.id == "ctx.ray-sched.pending"][0]
	regex.match(p, "WARNING resource_demand_scheduler.py:838 -- The autoscaler could not find a node type to satisfy the request: [{'GPU': 8.0}]. Please specify a node type with the necessary resources.")
	not regex.match(p, "WARNING resource_demand_scheduler.py:731 -- The autoscaler could not find a node type to satisfy the request: [{'bundle_group_f603e2de7cd8965a3e9e30f6357dbb7b': 0.001}].")
}

test_fires_on_vllm_waiting_for_its_placement_group if {
	t := "Waiting for creating a placement group of specs for 150 seconds. specs=[{'GPU': 1.0, 'node:10.244.2.17': 0.001}, {'GPU': 1.0}]. Check `ray status` to see if you have enough resources."
	fs := ray_unschedulable.findings with input as {"kind": "RayCluster", "phase": "Running", "pods": [_pod({"ctx.ray-sched.pending": _m(t, 5)}, {}, {})]}
	some f in fs
	f.category == "sched.insufficient-gpu"
	f.params.request == "{'GPU': 1.0, 'node:10.244.2.17': 0.001}"
}

# The autoscaler sidecar repeats what the driver is told: one finding.
test_quiet_on_the_autoscaler_echo_of_the_drivers_request if {
	w := "WARNING resource_demand_scheduler.py:782 -- The autoscaler could not find a node type to satisfy the request: [{'CPU': 8.0, 'GPU': 8.0}]. Please specify a node type with the necessary resources."
	head := {
		"name": "rc-head", "namespace": "rl", "phase": "Running", "nodeName": "cpu-1", "conditions": [], "replicaType": "head",
		"containers": [{
			"name": "autoscaler", "restartCount": 0, "state": {"state": "running"}, "lastState": {},
			"logs": [{"file": "logs/rc-head/autoscaler.log", "previous": false, "lines": 200, "matches": {"ctx.ray-sched.pending": _m(w, 9)}, "tail": []}],
		}],
	}
	fs := ray_unschedulable.findings with input as {"kind": "RayJob", "phase": "Running", "pods": [head, _pod({"ctx.ray-sched.infeasible": _m(_infeasible, 4)}, {}, {})]}
	count(fs) == 1
	some f in fs
	f.subject.name == "grpo-head-x"
}
