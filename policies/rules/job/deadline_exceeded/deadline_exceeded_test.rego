package traindoc.rules.job.deadline_exceeded_test

import data.traindoc.rules.job.deadline_exceeded

test_fires_rayjob_status_reason if {
	j := {
		"kind": "RayJob", "name": "gemma", "namespace": "ray-train", "phase": "Failed", "spec": {"runPolicy": {}},
		"status": {
			"phase": "RUNNING", "deploymentStatus": "Failed", "reason": "DeadlineExceeded",
			"message": "The RayJob has passed the activeDeadlineSeconds. StartTime: 2026-03-10 08:00:03 +0000 UTC. ActiveDeadlineSeconds: 14400",
			"conditions": [], "completionTime": "2026-03-10T12:00:04Z",
		},
	}
	fs := deadline_exceeded.findings with input as j
	count(fs) == 1
	some f in fs
	f.params.deadline == "14400"
	f.params.object == "RayJob gemma"
	f.time == "2026-03-10T12:00:04Z"
}

test_fires_batch_job_child if {
	c := {"type": "Failed", "status": "True", "reason": "DeadlineExceeded", "message": "Job was active longer than specified deadline", "lastTransitionTime": "2026-03-10T12:00:00Z"}
	j := {"kind": "TrainJob", "name": "t", "phase": "Failed", "spec": {"runPolicy": {"activeDeadlineSeconds": 3600}}, "status": {"conditions": []}, "children": [{"kind": "Job", "name": "t-node-0", "conditions": [c]}]}
	fs := deadline_exceeded.findings with input as j
	some f in fs
	f.subject == {"kind": "Job", "name": "t-node-0"}
	f.params.deadline == "3600"
}

test_quiet_other_failure_silent if {
	c := {"type": "Failed", "status": "True", "reason": "BackoffLimitExceeded", "message": "Job has reached the specified backoff limit"}
	j := {"kind": "TrainJob", "name": "t", "phase": "Failed", "spec": {"runPolicy": {}}, "status": {"conditions": []}, "children": [{"kind": "Job", "name": "t-node-0", "conditions": [c]}], "events": []}
	count(deadline_exceeded.findings) == 0 with input as j
}

# A Failed condition that quotes a gRPC timeout is not the job's deadline.
test_quiet_grpc_deadline_exceeded_in_message if {
	c := {"type": "Failed", "status": "True", "reason": "PyTorchJobFailed", "message": `PyTorchJob ml/bert is failed because 1 Master replica(s) failed: rpc error: code = DeadlineExceeded desc = context deadline exceeded`}
	j := {"kind": "PyTorchJob", "name": "bert", "phase": "Failed", "spec": {"runPolicy": {}}, "status": {"conditions": [c]}, "events": []}
	count(deadline_exceeded.findings) == 0 with input as j
}

_op_msg := "PyTorchJob bert has failed because it was active longer than specified deadline"

# The training-operator's wording in the condition.
test_fires_operator_condition if {
	c := {"type": "Failed", "status": "True", "reason": "PyTorchJobFailed", "message": _op_msg, "lastTransitionTime": "2026-03-10T12:00:00Z"}
	j := {"kind": "PyTorchJob", "name": "bert", "phase": "Failed", "spec": {"runPolicy": {"activeDeadlineSeconds": 7200}}, "status": {"conditions": [c]}, "events": []}
	fs := deadline_exceeded.findings with input as j
	some f in fs
	f.params.deadline == "7200"
}

# And in its event, when the status was not captured.
test_fires_operator_event if {
	e := {"type": "Normal", "reason": "PyTorchJobFailed", "count": 1, "message": _op_msg, "object": {"kind": "PyTorchJob", "name": "bert"}, "firstTime": "2026-03-10T12:00:01Z"}
	j := {"kind": "PyTorchJob", "name": "bert", "phase": "Failed", "spec": {"runPolicy": {}}, "status": {"conditions": []}, "events": [e]}
	fs := deadline_exceeded.findings with input as j
	some f in fs
	f.time == "2026-03-10T12:00:01Z"
}
