package traindoc.rules.job.backoff_exceeded_test

import data.traindoc.rules.job.backoff_exceeded

_failed(reason, msg) := {"type": "Failed", "status": "True", "reason": reason, "message": msg, "lastTransitionTime": "2026-02-19T15:03:17Z"}

test_fires_child_job_backoff if {
	job := {
		"kind": "Job", "name": "det-node-0",
		"conditions": [
			{"type": "FailureTarget", "status": "True", "reason": "BackoffLimitExceeded", "message": "Job has reached the specified backoff limit", "lastTransitionTime": "2026-02-19T15:03:16Z"},
			_failed("BackoffLimitExceeded", "Job has reached the specified backoff limit"),
		],
	}
	js := {"kind": "JobSet", "name": "det", "conditions": [_failed("FailedJobs", "jobset failed due to one or more job failures")]}
	j := {"kind": "TrainJob", "name": "det", "phase": "Failed", "spec": {"runPolicy": {}}, "status": {"conditions": [_failed("FailedJobs", "jobset failed due to one or more job failures")]}, "children": [js, job]}
	fs := backoff_exceeded.findings with input as j
	count(fs) == 1
	some f in fs
	f.subject == {"kind": "Job", "name": "det-node-0"}
	f.params.object == "Job det-node-0"
	f.time == "2026-02-19T15:03:17Z"
}

test_fires_pytorchjob_condition if {
	c := _failed("BackoffLimitExceeded", "PyTorchJob bert is failed because it has reached the specified backoff limit")
	j := {"kind": "PyTorchJob", "name": "bert", "phase": "Failed", "spec": {"runPolicy": {"backoffLimit": 3}}, "status": {"conditions": [c]}}
	fs := backoff_exceeded.findings with input as j
	some f in fs
	f.params.limit == "3"
}

test_fires_t9k_backoff_count if {
	j := {"kind": "PyTorchTrainingJob", "name": "yolo", "phase": "Failed", "spec": {"runPolicy": {"backoffLimit": 2}}, "status": {"conditions": [], "backoffCount": 2}}
	fs := backoff_exceeded.findings with input as j
	some f in fs
	f.params.restarts == 2
	f.severity == "error"
}

test_fires_consequence_of_visible_failure_is_info if {
	c := _failed("BackoffLimitExceeded", "Job has reached the specified backoff limit")
	pod := {"name": "p", "containers": [{"name": "c", "state": {"state": "terminated", "exitCode": 1, "reason": "Error"}, "lastState": {}}]}
	j := {"kind": "PyTorchJob", "name": "bert", "phase": "Failed", "spec": {"runPolicy": {"backoffLimit": 3}}, "status": {"conditions": [c]}, "pods": [pod]}
	fs := backoff_exceeded.findings with input as j
	some f in fs
	f.severity == "info"
}

test_quiet_plain_failure_silent if {
	c := _failed("PyTorchJobFailed", "PyTorchJob ml/bert is failed because 1 Master replica(s) failed.")
	j := {"kind": "PyTorchJob", "name": "bert", "phase": "Failed", "spec": {"runPolicy": {"backoffLimit": 0}}, "status": {"conditions": [c]}}
	count(backoff_exceeded.findings) == 0 with input as j
	r := {"kind": "RayJob", "name": "r", "phase": "Failed", "spec": {"runPolicy": {"backoffLimit": 1}}, "status": {"conditions": [], "backoffCount": 1}}
	count(backoff_exceeded.findings) == 0 with input as r
}

_job_event(reason, msg) := {
	"type": "Normal", "reason": reason, "count": 1, "message": msg,
	"object": {"kind": "PyTorchJob", "name": "bert"}, "firstTime": "2026-02-19T15:03:20Z",
}

# The operator's event when the status was not captured.
test_fires_operator_event_without_status if {
	e := _job_event("PyTorchJobFailed", "PyTorchJob bert has failed because it has reached the specified backoff limit")
	j := {"kind": "PyTorchJob", "name": "bert", "phase": "Failed", "spec": {"runPolicy": {"backoffLimit": 3}}, "status": {}, "events": [e]}
	fs := backoff_exceeded.findings with input as j
	count(fs) == 1
	some f in fs
	f.subject == {"kind": "PyTorchJob", "name": "bert"}
	f.time == "2026-02-19T15:03:20Z"
}

# With the condition present, the event adds nothing.
test_quiet_event_beside_condition if {
	c := _failed("PyTorchJobFailed", "PyTorchJob bert has failed because it has reached the specified backoff limit")
	e := _job_event("PyTorchJobFailed", c.message)
	j := {"kind": "PyTorchJob", "name": "bert", "phase": "Failed", "spec": {"runPolicy": {}}, "status": {"conditions": [c]}, "events": [e]}
	count(backoff_exceeded.findings) == 1 with input as j
}

# JobSet's restart budget and Job's per-index budget.
test_fires_jobset_max_restarts_and_failed_indexes if {
	js := {"kind": "TrainJob", "name": "t", "phase": "Failed", "spec": {}, "status": {"conditions": [_failed("ReachedMaxRestarts", "jobset failed due to reaching max number of restarts")]}}
	count(backoff_exceeded.findings) == 1 with input as js
	idx := {"kind": "Job", "name": "j", "phase": "Failed", "spec": {}, "status": {"conditions": [_failed("FailedIndexes", "Job has failed indexes")]}}
	count(backoff_exceeded.findings) == 1 with input as idx
}

# A JobSet failed because one child failed is not the retry budget: the
# child's own condition says whether it was.
test_quiet_jobset_failed_jobs if {
	j := {"kind": "TrainJob", "name": "t", "phase": "Failed", "spec": {}, "status": {"conditions": [_failed("FailedJobs", "jobset failed due to one or more job failures (first failed job: t-node-0-0)")]}}
	count(backoff_exceeded.findings) == 0 with input as j
}
