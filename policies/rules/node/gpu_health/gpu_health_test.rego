package traindoc.rules.node.gpu_health_test

import data.traindoc.rules.node.gpu_health

_node(name, conds, taints, cap, alloc) := {
	"name": name, "ready": "True", "conditions": conds, "taints": taints,
	"capacity": {"nvidia.com/gpu": cap}, "allocatable": {"nvidia.com/gpu": alloc},
}

_ready := {"type": "Ready", "status": "True", "reason": "KubeletReady"}

test_nvsentinel_condition_and_taint if {
	c := {
		"type": "GpuXidError", "status": "True", "reason": "GpuXidErrorIsNotHealthy",
		"message": "ErrorCode:79 GPU:3 PCI:0000:9b:00 GPU has fallen off the bus Recommended Action=RESTART_BM;",
		"lastTransitionTime": "2026-03-01T11:02:00Z",
	}
	t := {"key": "nvidia.com/gpu-xid-error", "value": "true", "effect": "NoSchedule", "timeAdded": "2026-03-01T11:02:30Z"}
	n := _node("gpu-node-7", [_ready, c], [t], "8", "8")
	fs := gpu_health.findings with input as {"phase": "Failed", "nodes": [n], "events": []}
	count(fs) == 1
	some f in fs
	f.subject == {"kind": "Node", "name": "gpu-node-7"}
	f.params == {"nodes": "gpu-node-7", "detail": "GpuXidError=True GpuXidErrorIsNotHealthy"}
	count(f.evidence) == 2
	f.time == "2026-03-01T11:02:00Z"
}

test_allocatable_below_capacity if {
	n := _node("gpu-node-2", [_ready], [], "8", "7")
	fs := gpu_health.findings with input as {"phase": "Running", "nodes": [n], "events": []}
	some f in fs
	f.params.detail == "allocatable nvidia.com/gpu 7 of 8"
}

test_npd_positive_condition_false if {
	c := {"type": "NvidiaGPUHealthy", "status": "False", "reason": "GPUMissing", "message": "expected 8 GPUs, found 7"}
	fs := gpu_health.findings with input as {"phase": "Failed", "nodes": [_node("n1", [c], [], "8", "8")], "events": []}
	count(fs) == 1
}

test_healthy_gpu_node_silent if {
	ok := {"type": "GpuHealthy", "status": "True", "reason": "AllGPUsHealthy"}
	present := {"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}
	n := _node("gpu-node-1", [_ready, ok, {"type": "MemoryPressure", "status": "False"}], [present], "8", "8")
	fs := gpu_health.findings with input as {"phase": "Failed", "nodes": [n], "events": []}
	count(fs) == 0
}
