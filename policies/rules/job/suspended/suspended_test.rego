package traindoc.rules.job.suspended_test

import data.traindoc.rules.job.suspended

test_fires_trainjob_suspended if {
	c := {"type": "Suspended", "status": "True", "reason": "Suspended", "message": "TrainJob is suspended", "lastTransitionTime": "2026-03-21T10:00:01Z"}
	j := {"kind": "TrainJob", "name": "llama", "namespace": "llm-ft", "phase": "Suspended", "createdAt": "2026-03-21T10:00:00Z", "spec": {"suspend": true}, "status": {"conditions": [c]}}
	fs := suspended.findings with input as j
	count(fs) == 1
	some f in fs
	f.params.via == "condition Suspended, spec.suspend"
	f.subject == {"kind": "TrainJob", "name": "llama"}
	count(f.evidence) == 2
}

test_fires_t9k_pause if {
	c := {"type": "Paused", "status": "True", "reason": "PauseModeEnabled", "message": "the job is paused by the user", "lastTransitionTime": "2026-03-21T11:00:05Z"}
	j := {"kind": "PyTorchTrainingJob", "name": "bert", "phase": "Suspended", "spec": {"runMode": {"pause": true, "debug": false}}, "status": {"phase": "Paused", "conditions": [c]}}
	fs := suspended.findings with input as j
	some f in fs
	f.params.via == "condition Paused, runMode.pause, status Paused"
}

test_quiet_kueue_queued_silent if {
	a := {"kind": "Workload", "name": "w", "conditions": [{"type": "QuotaReserved", "status": "False", "reason": "Pending", "message": "couldn't assign flavors to pod set main: insufficient unused quota for nvidia.com/gpu in flavor h100, 8 more needed"}]}
	j := {"kind": "PyTorchJob", "name": "x", "phase": "Suspended", "spec": {"suspend": true}, "status": {"conditions": []}, "admission": [a]}
	count(suspended.findings) == 0 with input as j
}

test_quiet_resumed_silent if {
	c := {"type": "Suspended", "status": "False", "reason": "Resumed", "message": "TrainJob is resumed"}
	j := {"kind": "TrainJob", "name": "llama", "phase": "Running", "spec": {"suspend": false}, "status": {"conditions": [c]}}
	count(suspended.findings) == 0 with input as j
}

test_fires_kueue_workload_deactivated if {
	a := {"kind": "Workload", "name": "w", "active": false, "conditions": []}
	fs := suspended.findings with input as {"kind": "PyTorchJob", "name": "j", "phase": "Suspended", "spec": {"suspend": true}, "labels": {"kueue.x-k8s.io/queue-name": "team-a"}, "admission": [a]}
	some f in fs
	contains(f.params.via, "Kueue workload deactivated")
}

test_quiet_kueue_waiting if {
	a := {"kind": "Workload", "name": "w", "conditions": [{"type": "QuotaReserved", "status": "False", "reason": "Pending", "message": "waiting"}]}
	fs := suspended.findings with input as {"kind": "PyTorchJob", "name": "j", "phase": "Suspended", "spec": {"suspend": true}, "labels": {"kueue.x-k8s.io/queue-name": "team-a"}, "admission": [a]}
	count(fs) == 0
}
