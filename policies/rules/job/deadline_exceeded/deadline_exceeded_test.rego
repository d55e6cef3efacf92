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
