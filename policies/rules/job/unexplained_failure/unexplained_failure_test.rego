package traindoc.rules.job.unexplained_failure_test

import data.traindoc.rules.job.unexplained_failure

_failed_condition := {"type": "Failed", "status": "True", "reason": "PyTorchJobFailed", "message": "PyTorchJob train is failed because 1 Worker replica(s) failed.", "lastTransitionTime": "2026-03-01T10:05:00Z"}

_container(name, state, last, logs) := {"name": name, "restartCount": 0, "state": state, "lastState": last, "logs": logs}

_exit(code, at) := {"state": "terminated", "reason": "Error", "exitCode": code, "finishedAt": at}

_log := {
	"file": "logs/ml/train-worker-1/pytorch.log", "previous": false, "lines": 900, "matches": {},
	"tail": [sprintf("line %d", [i]) | some i in numbers.range(1, 30)],
	"traceback": ["Traceback (most recent call last):", "  File \"train.py\", line 3, in <module>", "SomeLibraryError: bad state"],
}

# Not lib/testing's pod: pods by name with the containers each case builds.
_pod(name, containers) := {"name": name, "namespace": "ml", "phase": "Failed", "nodeName": "gpu-1", "conditions": [], "containers": containers}

_job(phase, pods) := {"kind": "PyTorchJob", "name": "train", "namespace": "ml", "phase": phase, "status": {"conditions": [_failed_condition]}, "pods": pods}

test_fires_on_the_first_failed_container_with_its_last_lines_and_traceback if {
	pods := [
		_pod("train-master-0", [_container("pytorch", _exit(1, "2026-03-01T10:04:00Z"), {}, [])]),
		_pod("train-worker-1", [_container("pytorch", _exit(1, "2026-03-01T10:01:00Z"), {}, [_log])]),
	]
	fs := unexplained_failure.findings with input as _job("Failed", pods)
	count(fs) == 1
	some f in fs
	f.subject.name == "train-worker-1"
	f.params.container == "train-worker-1/pytorch"
	f.time == "2026-03-01T10:01:00Z"
	tails := [e | some e in f.evidence; e.kind == "log"; contains(e.source, "last lines")]
	count(split(tails[0].text, "\n")) == 20
	startswith(tails[0].text, "line 11\n")
	tbs := [e | some e in f.evidence; contains(e.source, "last traceback")]
	endswith(tbs[0].text, "SomeLibraryError: bad state")
}

test_fires_when_only_the_condition_remains if {
	fs := unexplained_failure.findings with input as _job("Failed", [])
	count(fs) == 1
	some f in fs
	f.subject.kind == "PyTorchJob"
	f.time == "2026-03-01T10:05:00Z"
	f.evidence[0].kind == "condition"
}

test_fires_on_a_failed_replica_of_a_running_job if {
	pods := [_pod("train-worker-1", [_container("pytorch", {"state": "running"}, _exit(137, "2026-03-01T10:01:00Z"), [])])]
	count(unexplained_failure.findings) == 1 with input as _job("Running", pods)
}

test_quiet_on_a_succeeded_job if {
	pods := [_pod("train-master-0", [_container("pytorch", _exit(0, "2026-03-01T10:04:00Z"), {}, [])])]
	count(unexplained_failure.findings) == 0 with input as _job("Succeeded", pods)
}

test_quiet_on_a_running_job_without_failures if {
	pods := [object.union(_pod("train-master-0", [_container("pytorch", {"state": "running"}, {}, [])]), {"phase": "Running"})]
	count(unexplained_failure.findings) == 0 with input as object.union(_job("Running", pods), {"status": {"conditions": []}})
}

# Pods deleted by the clean-up policy: the finding says what is missing and
# shows what remains (replica counts, the operator's exit-code events).
test_fires_cleaned_up_pods_name_missing_evidence if {
	job := {
		"kind": "PyTorchJob", "name": "ner", "namespace": "nlp", "phase": "Failed", "pods": [],
		"spec": {"runPolicy": {"cleanPodPolicy": "All"}},
		"replicas": [{"type": "Worker", "expected": 2, "reported": {"failed": 1}}],
		"status": {"conditions": [{"type": "Failed", "status": "True", "reason": "PyTorchJobFailed", "message": "PyTorchJob ner is failed because 1 Worker replica(s) failed.", "lastTransitionTime": "2026-03-01T10:00:00Z"}]},
		"events": [{"type": "Normal", "reason": "ExitedWithCode", "message": "Pod: nlp.ner-worker-1 exited with code 137", "count": 1, "object": {"kind": "PyTorchJob", "name": "ner"}, "firstTime": "2026-03-01T09:59:50Z"}],
	}
	fs := unexplained_failure.findings with input as job
	count(fs) == 1
	some f in fs
	fields := {e.field | some e in f.evidence; e.kind == "field"}
	fields == {"spec.runPolicy.cleanPodPolicy", "status.replicaStatuses[Worker]"}
	some e in f.evidence
	e.kind == "event"
}
