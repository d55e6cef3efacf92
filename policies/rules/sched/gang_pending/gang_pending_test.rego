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

test_fires_volcano_podgroup_inqueue if {
	fs := gang_pending.findings with input as {"kind": "PyTorchJob", "name": "llm", "phase": "Pending", "spec": {}, "events": [], "admission": [_podgroup("Inqueue", 0)]}
	count(fs) == 1
	some f in fs
	f.params.scheduler == "Volcano"
	f.params.queue == "research"
	startswith(f.params.detail, "16/16 tasks in gang unschedulable")
	f.subject == {"kind": "PodGroup", "name": "llm-pretrain"}
}

test_fires_kueue_unused_quota if {
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

test_fires_volcano_pod_event_only if {
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

test_quiet_running_job_stale_condition_silent if {
	fs := gang_pending.findings with input as {"kind": "PyTorchJob", "name": "llm", "phase": "Running", "spec": {}, "events": [], "admission": [_podgroup("Running", 16)]}
	count(fs) == 0
}

test_quiet_kueue_max_capacity_silent if {
	a := {"kind": "Workload", "name": "w", "queue": "team-a", "conditions": [{
		"type": "QuotaReserved", "status": "False", "reason": "Pending",
		"message": "couldn't assign flavors to pod set main: insufficient quota for cpu in flavor default, request > maximum capacity (10 > 8)",
	}]}
	fs := gang_pending.findings with input as {"kind": "PyTorchJob", "name": "llm", "phase": "Suspended", "spec": {}, "events": [], "admission": [a]}
	count(fs) == 0
}

_waiting_pod(name, msg) := {
	"name": name, "namespace": "ml", "phase": "Pending", "containers": [],
	"conditions": [{"type": "PodScheduled", "status": "False", "reason": "Unschedulable", "message": msg, "lastTransitionTime": "2026-03-01T10:00:05Z"}],
}

test_fires_coscheduling_sibling_pods if {
	msg := "0/10 nodes are available: 10 pre-filter pod llm-worker-1 cannot find enough sibling pods, current pods number: 2, minMember of group: 4."
	fs := gang_pending.findings with input as {"kind": "JAXJob", "name": "llm", "phase": "Pending", "spec": {}, "events": [], "pods": [_waiting_pod("llm-worker-1", msg)]}
	count(fs) == 1
	some f in fs
	f.params.scheduler == "Coscheduling"
	f.params.queue == ""
	f.subject == {"kind": "Pod", "name": "llm-worker-1"}
}

test_fires_t9k_group_not_scheduled if {
	pg := {
		"kind": "PodGroup", "apiVersion": "scheduler.tensorstack.dev/v1beta1", "name": "sft", "queue": "a100",
		"conditions": [{"type": "GroupScheduled", "status": "False", "reason": "Unschedulable", "lastTransitionTime": "2026-03-01T10:00:05Z"}],
	}
	fs := gang_pending.findings with input as {"kind": "PyTorchTrainingJob", "name": "sft", "phase": "Pending", "spec": {}, "events": [], "admission": [pg], "pods": [_waiting_pod("sft-worker-0", "")]}
	some f in fs
	f.params == {"scheduler": "TensorStack scheduler", "queue": "a100", "detail": "GroupScheduled=False Unschedulable", "shares": []}
}

# The queue's share used by others is named as evidence of the hold.
test_fires_queue_share_used if {
	g := {"type": "Worker", "expected": 4, "template": {"containers": [{"name": "pytorch", "limits": {"nvidia.com/gpu": "8"}}]}}
	q := {"kind": "Queue", "apiVersion": "scheduling.volcano.sh/v1beta1", "name": "research", "quota": {"nvidia.com/gpu": "64"}, "allocated": {"nvidia.com/gpu": "48"}}
	fs := gang_pending.findings with input as {"kind": "PyTorchJob", "name": "llm", "phase": "Pending", "spec": {}, "events": [], "admission": [_podgroup("Inqueue", 0)], "queues": [q], "replicas": [g], "pods": [_waiting_pod("llm-worker-0", "")]}
	{f.subject.kind | some f in fs} == {"PodGroup"}
	some f in fs
	some e in f.evidence
	e.object.kind == "Queue"
	f.params.shares == [{"kind": "Queue", "name": "research", "used": "48", "quota": "64", "resource": "nvidia.com/gpu", "need": "32"}]
}

test_quiet_kueue_admitted_after_old_quota_condition if {
	a := {"kind": "Workload", "name": "w", "queue": "team-a", "conditions": [
		{"type": "QuotaReserved", "status": "False", "reason": "Pending", "message": "couldn't assign flavors to pod set main: insufficient unused quota for nvidia.com/gpu in flavor h100, 8 more needed", "lastTransitionTime": "2026-03-01T10:00:05Z"},
		{"type": "Admitted", "status": "True", "reason": "Admitted", "message": "The workload is admitted", "lastTransitionTime": "2026-03-01T10:20:00Z"},
	]}
	fs := gang_pending.findings with input as {"kind": "PyTorchJob", "name": "llm", "phase": "Running", "spec": {}, "events": [], "admission": [a]}
	count(fs) == 0
}

# A Volcano group that went from Inqueue to Running keeps its old
# Unschedulable condition; nothing waits any more.
test_quiet_podgroup_moved_to_running if {
	running := {"name": "llm-worker-0", "phase": "Running", "nodeName": "gpu-1", "conditions": [], "containers": []}
	fs := gang_pending.findings with input as {"kind": "PyTorchJob", "name": "llm", "phase": "Pending", "spec": {}, "events": [], "admission": [_podgroup("Running", 16)], "pods": [running]}
	count(fs) == 0
}

test_quiet_answered_pod_event if {
	e := {
		"type": "Warning", "reason": "FailedScheduling", "count": 3,
		"message": "pod group is not ready, 1 Pending, 4 minAvailable; Pending: 1 Unschedulable",
		"object": {"kind": "Pod", "name": "llm-worker-3"},
		"firstTime": "2026-03-01T10:00:00Z", "lastTime": "2026-03-01T10:01:00Z",
	}
	running := {"name": "llm-worker-3", "phase": "Running", "nodeName": "gpu-3", "conditions": [], "containers": []}
	fs := gang_pending.findings with input as {"kind": "PyTorchJob", "name": "llm", "phase": "Running", "spec": {}, "events": [e], "pods": [running]}
	count(fs) == 0
}

test_fires_kueue_early_wording if {
	a := {"kind": "Workload", "name": "w", "queue": "q", "conditions": [{
		"type": "QuotaReserved", "status": "False", "reason": "Pending",
		"message": "couldn't assign flavors to pod set main: insufficient quota for cpu flavor default, 1 more needed",
	}]}
	fs := gang_pending.findings with input as {"kind": "PyTorchJob", "name": "x", "phase": "Suspended", "spec": {}, "events": [], "admission": [a]}
	count(fs) == 1
}

test_quiet_kueue_in_clusterqueue_wording if {
	a := {"kind": "Workload", "name": "w", "queue": "q", "conditions": [{
		"type": "QuotaReserved", "status": "False", "reason": "Pending",
		"message": "couldn't assign flavors to pod set main: insufficient quota for cpu in flavor default in ClusterQueue",
	}]}
	fs := gang_pending.findings with input as {"kind": "PyTorchJob", "name": "x", "phase": "Suspended", "spec": {}, "events": [], "admission": [a]}
	count(fs) == 0
}

# A queue that leaves the job's namespace out, or does not exist, never
# admits it: not a wait in the queue, though Kueue writes reason Pending.
test_quiet_kueue_never_admits_namespace if {
	every msg in ["Workload namespace doesn't match ClusterQueue selector", "ClusterQueue platform-cq not found"] {
		a := {"kind": "Workload", "name": "w", "queue": "q", "conditions": [{
			"type": "QuotaReserved", "status": "False", "reason": "Pending",
			"message": msg,
		}]}
		fs := gang_pending.findings with input as {"kind": "PyTorchJob", "name": "x", "phase": "Suspended", "spec": {}, "events": [], "admission": [a]}
		count(fs) == 0
	}
}
