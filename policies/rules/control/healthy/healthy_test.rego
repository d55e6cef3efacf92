package traindoc.rules.control.healthy_test

import data.traindoc.rules.control.healthy

_group(t, expected, running, succeeded) := {"type": t, "expected": expected, "created": expected, "running": running, "succeeded": succeeded}

# Not lib/testing's pod: pods by name, phase and container state, without
# logs: the rule reads phases and states only.
_pod(name, phase, state) := {"name": name, "namespace": "ml", "phase": phase, "conditions": [], "containers": [{"name": "pytorch", "state": state, "lastState": {}}]}

test_fires_succeeded if {
	c := {"type": "Succeeded", "status": "True", "reason": "PyTorchJobSucceeded", "message": "PyTorchJob ml/bert is successfully completed.", "lastTransitionTime": "2026-03-01T12:00:00Z"}
	j := {"kind": "PyTorchJob", "name": "bert", "namespace": "ml", "phase": "Succeeded", "status": {"conditions": [c]}, "replicas": [_group("Master", 1, 0, 1)], "pods": []}
	fs := healthy.findings with input as j
	count(fs) == 1
	some f in fs
	f.params == {"state": "succeeded", "replicas": 1}
	f.time == "2026-03-01T12:00:00Z"
}

test_fires_running_all_up if {
	pods := [_pod("bert-master-0", "Running", {"state": "running"}), _pod("bert-worker-0", "Running", {"state": "running"})]
	j := {"kind": "PyTorchJob", "name": "bert", "phase": "Running", "status": {"conditions": []}, "replicas": [_group("Master", 1, 1, 0), _group("Worker", 1, 1, 0)], "pods": pods}
	fs := healthy.findings with input as j
	some f in fs
	f.params == {"state": "running", "replicas": 2}
}

test_quiet_crashloop_or_missing_silent if {
	crash := [_pod("bert-master-0", "Running", {"state": "waiting", "reason": "CrashLoopBackOff"})]
	j := {"kind": "PyTorchJob", "name": "bert", "phase": "Running", "status": {"conditions": []}, "replicas": [_group("Master", 1, 1, 0)], "pods": crash}
	count(healthy.findings) == 0 with input as j
	short := object.union(j, {"replicas": [_group("Master", 1, 1, 0), _group("Worker", 2, 1, 0)], "pods": []})
	count(healthy.findings) == 0 with input as short
}

test_quiet_failed_job_silent if {
	c := {"type": "Failed", "status": "True", "reason": "PyTorchJobFailed"}
	j := {"kind": "PyTorchJob", "name": "bert", "phase": "Failed", "status": {"conditions": [c]}, "replicas": [_group("Master", 1, 0, 0)], "pods": []}
	count(healthy.findings) == 0 with input as j
}
