package traindoc.rules.sched.gang_pending_test

import data.traindoc.rules.sched.gang_pending

_podgroup(phase, running) := {
	"kind": "PodGroup", "apiVersion": "scheduling.volcano.sh/v1beta1",
	"name": "llm-pretrain", "namespace": "ml", "phase": phase, "queue": "research", "minMember": 16,
	"conditions": [{
		"type": "Unschedulable", "status": "True", "reason": "NotEnoughResources",
		"message": "16/16 tasks in gang unschedulable: pod group is not ready, 16 Pending, 16 minAvailable; Pending: 12 Schedulable, 4 Unschedulable",
		"lastTransitionTime": "2026-03-01T10:00:10Z",
	}],
}

test_volcano_podgroup_inqueue if {
	fs := gang_pending.findings with input as {"kind": "PyTorchJob", "name": "llm", "phase": "Pending", "spec": {}, "events": [], "admission": [_podgroup("Inqueue", 0)]}
	count(fs) == 1
	some f in fs
	f.params.scheduler == "Volcano"
	f.params.queue == "research"
	startswith(f.params.detail, "16/16 tasks in gang unschedulable")
	f.subject == {"kind": "PodGroup", "name": "llm-pretrain"}
}

test_kueue_unused_quota if {
	a := {"kind": "Workload", "name": "pytorchjob-llm-7c1e2", "queue": "team-a", "conditions": [{
		"type": "QuotaReserved", "status": "False", "reason": "Pending",
		"message": "couldn't assign flavors to pod set main: insufficient unused quota for nvidia.com/gpu in flavor h100, 8 more needed",
		"lastTransitionTime": "2026-03-01T10:00:10Z",
	}]}
	fs := gang_pending.findings with input as {"kind": "PyTorchJob", "name": "llm", "phase": "Suspended", "spec": {}, "events": [], "admission": [a]}
	some f in fs
	f.params.scheduler == "Kueue"
	f.params.queue == "team-a"
}

test_volcano_pod_event_only if {
	e := {
		"type": "Warning", "reason": "FailedScheduling", "count": 30,
		"message": "3/4 tasks in gang unschedulable: pod group is not ready, 1 Pending, 4 minAvailable; Pending: 1 Unschedulable",
		"object": {"kind": "Pod", "name": "llm-worker-3"},
		"firstTime": "2026-03-01T10:00:00Z",
	}
	fs := gang_pending.findings with input as {"kind": "PyTorchJob", "name": "llm", "phase": "Pending", "spec": {"scheduler": {"queue": "q1"}}, "events": [e]}
	some f in fs
	f.params.queue == "q1"
}

test_running_job_stale_condition_silent if {
	fs := gang_pending.findings with input as {"kind": "PyTorchJob", "name": "llm", "phase": "Running", "spec": {}, "events": [], "admission": [_podgroup("Running", 16)]}
	count(fs) == 0
}

test_kueue_max_capacity_silent if {
	a := {"kind": "Workload", "name": "w", "queue": "team-a", "conditions": [{
		"type": "QuotaReserved", "status": "False", "reason": "Pending",
		"message": "couldn't assign flavors to pod set main: insufficient quota for cpu in flavor default, request > maximum capacity (10 > 8)",
	}]}
	fs := gang_pending.findings with input as {"kind": "PyTorchJob", "name": "llm", "phase": "Suspended", "spec": {}, "events": [], "admission": [a]}
	count(fs) == 0
}
