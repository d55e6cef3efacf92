package traindoc.rules.sched.insufficient_gpu_test

import data.traindoc.rules.sched.insufficient_gpu

_pending_pod(msg) := {
	"name": "train-worker-0",
	"namespace": "ml",
	"phase": "Pending",
	"containers": [],
	"conditions": [{
		"type": "PodScheduled",
		"status": "False",
		"reason": "Unschedulable",
		"message": msg,
		"lastTransitionTime": "2026-03-01T10:00:00Z",
	}],
}

test_fires_on_pod_condition if {
	msg := "0/8 nodes are available: 8 Insufficient nvidia.com/gpu. preemption: 0/8 nodes are available: 8 No preemption victims found for incoming pod."
	fs := insufficient_gpu.findings with input as {"pods": [_pending_pod(msg)], "events": []}
	some f in fs
	f.params.resource == "nvidia.com/gpu"
	f.params.detail == "0/8 nodes are available: 8 Insufficient nvidia.com/gpu."
	f.subject.name == "train-worker-0"
}

test_fires_on_event_only if {
	e := {
		"type": "Warning", "reason": "FailedScheduling", "count": 12,
		"message": "0/3 nodes are available: 1 node(s) had taint {node-role.kubernetes.io/master: }, that the pod didn't tolerate, 2 Insufficient nvidia.com/gpu.",
		"object": {"kind": "Pod", "name": "train-master-0", "namespace": "ml"},
		"firstTime": "2026-03-01T10:00:00Z", "lastTime": "2026-03-01T11:00:00Z",
	}
	fs := insufficient_gpu.findings with input as {"pods": [], "events": [e]}
	count(fs) == 1
}

test_quiet_on_cpu_shortage if {
	msg := "0/4 nodes are available: 4 Insufficient cpu."
	fs := insufficient_gpu.findings with input as {"pods": [_pending_pod(msg)], "events": []}
	count(fs) == 0
}

test_quiet_when_running if {
	pod := object.union(_pending_pod("0/8 nodes are available: 8 Insufficient nvidia.com/gpu."), {"phase": "Running"})
	fs := insufficient_gpu.findings with input as {"pods": [pod], "events": []}
	count(fs) == 0
}

test_quiet_answered_by_scheduled_event if {
	failed := {
		"type": "Warning", "reason": "FailedScheduling", "count": 2,
		"message": "0/3 nodes are available: 3 Insufficient nvidia.com/gpu.",
		"object": {"kind": "Pod", "name": "train-master-0"},
		"firstTime": "2026-03-01T10:00:00Z", "lastTime": "2026-03-01T10:00:30Z",
	}
	scheduled := {"type": "Normal", "reason": "Scheduled", "count": 1, "message": "Successfully assigned ml/train-master-0 to gpu-2", "object": {"kind": "Pod", "name": "train-master-0"}, "firstTime": "2026-03-01T10:01:00Z"}
	fs := insufficient_gpu.findings with input as {"phase": "Pending", "pods": [], "events": [failed, scheduled]}
	count(fs) == 0
}

# A gang scheduler that holds the whole job quotes the capacity words
# itself: they are not a separate finding.
test_quiet_gang_hold if {
	pg := {"kind": "PodGroup", "apiVersion": "scheduling.volcano.sh/v1beta1", "name": "train", "phase": "Inqueue", "conditions": [{
		"type": "Unschedulable", "status": "True", "reason": "NotEnoughResources",
		"message": "2/2 tasks in gang unschedulable: pod group is not ready, 2 Pending, 2 minAvailable; Pending: 2 Unschedulable",
	}]}
	msg := "0/8 nodes are unavailable: 8 Insufficient nvidia.com/gpu."
	fs := insufficient_gpu.findings with input as {"phase": "Pending", "pods": [_pending_pod(msg)], "events": [], "admission": [pg]}
	count(fs) == 0
}

# HAMi splits a GPU into cores and memory: both are accelerator resources.
test_fires_hami_cores_and_memory if {
	msg := "0/2 nodes are available: 1 Insufficient nvidia.com/gpucores, 1 Insufficient nvidia.com/gpumem, 1 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }."
	fs := insufficient_gpu.findings with input as {"pods": [_pending_pod(msg)], "events": []}
	some f in fs
	f.params.resource == "nvidia.com/gpucores, nvidia.com/gpumem"
}

# Volcano's vGPU predicate counts cards instead of naming a resource.
test_fires_volcano_vgpu_cards if {
	fs := insufficient_gpu.findings with input as {"pods": [_pending_pod("0/1 nodes are unavailable: 1 no enough gpu cards on node .")], "events": []}
	some f in fs
	f.params.resource == "GPU cards"
}

# Kueue's lower-case quota words are not the scheduler's capacity words.
test_quiet_quota_words if {
	msg := "couldn't assign flavors to pod set main: insufficient unused quota for nvidia.com/gpu in flavor default-flavor, 4 more needed"
	fs := insufficient_gpu.findings with input as {"pods": [_pending_pod(msg)], "events": []}
	count(fs) == 0
}

# A scheduler that names no device plugin: a bare GPU is still a GPU.
test_fires_bare_gpu_word if {
	fs := insufficient_gpu.findings with input as {"pods": [_pending_pod("0/4 nodes are available: 4 Insufficient GPU.")], "events": []}
	some f in fs
	f.params.resource == "GPU"
}
