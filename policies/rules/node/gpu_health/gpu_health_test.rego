package traindoc.rules.node.gpu_health_test

import data.traindoc.rules.node.gpu_health

_node(name, conds, taints, cap, alloc) := {
	"name": name, "ready": "True", "conditions": conds, "taints": taints,
	"capacity": {"nvidia.com/gpu": cap}, "allocatable": {"nvidia.com/gpu": alloc},
}

_ready := {"type": "Ready", "status": "True", "reason": "KubeletReady"}

test_fires_nvsentinel_condition_and_taint if {
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

test_fires_allocatable_below_capacity if {
	n := _node("gpu-node-2", [_ready], [], "8", "7")
	fs := gpu_health.findings with input as {"phase": "Running", "nodes": [n], "events": []}
	some f in fs
	f.params.detail == "allocatable nvidia.com/gpu 7 of 8"
}

test_fires_npd_positive_condition_false if {
	c := {"type": "NvidiaGPUHealthy", "status": "False", "reason": "GPUMissing", "message": "expected 8 GPUs, found 7"}
	fs := gpu_health.findings with input as {"phase": "Failed", "nodes": [_node("n1", [c], [], "8", "8")], "events": []}
	count(fs) == 1
}

test_quiet_healthy_gpu_node_silent if {
	ok := {"type": "GpuHealthy", "status": "True", "reason": "AllGPUsHealthy"}
	present := {"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}
	n := _node("gpu-node-1", [_ready, ok, {"type": "MemoryPressure", "status": "False"}], [present], "8", "8")
	fs := gpu_health.findings with input as {"phase": "Failed", "nodes": [n], "events": []}
	count(fs) == 0
}

test_fires_on_eks_accelerated_hardware_not_ready if {
	c := {
		"type": "AcceleratedHardwareReady", "status": "False", "reason": "NvidiaXID79Error",
		"message": "A critical GPU error occurred: XID 79 on GPU 3", "lastTransitionTime": "2026-03-01T11:04:00Z",
	}
	fs := gpu_health.findings with input as {"phase": "Failed", "nodes": [_node("ip-10-0-3-17", [_ready, c], [], "8", "8")], "events": []}
	some f in fs
	f.severity == "critical"
	f.params.detail == "AcceleratedHardwareReady=False NvidiaXID79Error"
}

# The agent lost its own connection to DCGM: the GPU is not known to be bad.
test_quiet_on_eks_dcgm_connection_error if {
	c := {"type": "AcceleratedHardwareReady", "status": "False", "reason": "DCGMError", "message": "failed to initialize DCGM: Error connecting to nv-hostengine: Host engine connection invalid/disconnected"}
	count(gpu_health.findings) == 0 with input as {"phase": "Failed", "nodes": [_node("ip-10-0-3-17", [_ready, c], [], "8", "8")], "events": []}
}

test_quiet_on_app_xid_condition if {
	c := {"type": "XidCriticalError", "status": "True", "reason": `{"31":true}`, "message": "6e43a052-e544-467b-a972-63d7cd2ce80a"}
	count(gpu_health.findings) == 0 with input as {"phase": "Failed", "nodes": [_node("gke-p100-kd6j", [_ready, c], [], "1", "1")], "events": []}
}

test_fires_on_gke_hardware_xid_condition if {
	c := {"type": "XidCriticalError", "status": "True", "reason": `{"79":true}`, "message": "6e43a052-e544-467b-a972-63d7cd2ce80a"}
	count(gpu_health.findings) == 1 with input as {"phase": "Failed", "nodes": [_node("gke-a100-x2", [_ready, c], [], "8", "8")], "events": []}
}

test_fires_thermal_watch_is_a_warning if {
	c := {"type": "GpuThermalWatch", "status": "True", "reason": "GpuThermalWatchIsNotHealthy", "message": "DCGM_FR_CLOCKS_EVENT_THERMAL"}
	fs := gpu_health.findings with input as {"phase": "Running", "nodes": [_node("n1", [_ready, c], [], "8", "8")], "events": []}
	some f in fs
	f.severity == "warning"
}

test_quiet_on_npd_conditions_false if {
	cs := [
		_ready,
		{"type": "GPUMissing", "status": "False", "reason": "NoGPUMissing"},
		{"type": "XIDErrors", "status": "False", "reason": "NoXIDErrors"},
		{"type": "NVLinkStatusInactive", "status": "False", "reason": "NVLinkStatusActive"},
		{"type": "GpuNvlinkWatch", "status": "False", "reason": "GpuNvlinkWatchIsHealthy", "message": "No Health Failures"},
		{"type": "AcceleratedHardwareReady", "status": "True", "reason": "NvidiaAcceleratedHardwareIsReady"},
	]
	count(gpu_health.findings) == 0 with input as {"phase": "Failed", "nodes": [_node("n1", cs, [], "8", "8")], "events": []}
}

test_quiet_on_app_xid_event if {
	e := {
		"type": "Warning", "reason": "NvidiaXID13Warning", "message": "A non-critical GPU error occurred: XID 13",
		"object": {"kind": "Node", "name": "n1"}, "firstTime": "2026-03-01T10:00:00Z", "count": 3,
	}
	count(gpu_health.findings) == 0 with input as {"phase": "Failed", "nodes": [], "events": [e]}
}

# A problem condition named like a positive one: True is the fault.
test_fires_on_gpu_unhealthy_true if {
	c := {"type": "GpuUnhealthy", "status": "True", "reason": "XidCriticalError", "message": "GPU-3b6ec030 Xid 94 contained ECC error"}
	n := _node("gpu-node-4", [_ready, c], [], "8", "8")
	count(gpu_health.findings) == 1 with input as {"phase": "Failed", "nodes": [n], "events": []}
}

test_quiet_on_gpu_unhealthy_false if {
	c := {"type": "GpuUnhealthy", "status": "False", "reason": "GpuHealthy", "message": ""}
	n := _node("gpu-node-4", [_ready, c], [], "8", "8")
	count(gpu_health.findings) == 0 with input as {"phase": "Failed", "nodes": [n], "events": []}
}

# NVIDIA/aicr#2641: no IMEX daemon on an idle GB300 node, the links fine.
test_quiet_on_imex_daemon_not_ready if {
	c := {
		"type": "GpuNvlinkWatch", "status": "True", "reason": "GpuNvlinkWatchIsNotHealthy",
		"message": "ErrorCode:DCGM_FR_IMEX_UNHEALTHY GPU:0 PCI:0000:9d:00.0 GPU_UUID:GPU-bb3e1419-2c44-11f0-9a1b-0242ac120002 IMEX daemon status is -3 (not READY) Recommended Action=NONE;",
	}
	n := _node("gb300-node-1", [_ready, c], [], "4", "4")
	count(gpu_health.findings) == 0 with input as {"phase": "Failed", "nodes": [n], "events": []}
}

# The same condition holding a real fault beside it stays a fault.
test_fires_on_nvlink_watch_with_imex_and_link_fault if {
	c := {
		"type": "GpuNvlinkWatch", "status": "True", "reason": "GpuNvlinkWatchIsNotHealthy",
		"message": "ErrorCode:DCGM_FR_IMEX_UNHEALTHY GPU:0 PCI:0000:9d:00.0 IMEX daemon status is -3 (not READY) Recommended Action=NONE;ErrorCode:DCGM_FR_NVLINK_DOWN GPU:1 PCI:0000:9e:00.0 GPU 1's NvLink link 3 is currently down Recommended Action=RESTART_BM;",
	}
	n := _node("gb300-node-1", [_ready, c], [], "4", "4")
	count(gpu_health.findings) == 1 with input as {"phase": "Failed", "nodes": [n], "events": []}
}

test_quiet_on_dcgm_connectivity_error if {
	c := {
		"type": "GpuDcgmConnectivityFailure", "status": "True", "reason": "GpuDcgmConnectivityFailureIsNotHealthy",
		"message": "ErrorCode:DCGM_CONNECTIVITY_ERROR Failed to connect to DCGM hostengine Recommended Action=CONTACT_SUPPORT;",
	}
	n := _node("gpu-node-6", [_ready, c], [], "8", "8")
	count(gpu_health.findings) == 0 with input as {"phase": "Failed", "nodes": [n], "events": []}
}

# NVIDIA/NVSentinel#911: a fatal DCGM memory watch tripped by Xid 31, an
# application's page fault.
test_quiet_on_mem_watch_app_xid_31 if {
	c := {
		"type": "GpuMemWatch", "status": "True", "reason": "GpuMemWatchIsNotHealthy",
		"message": "ErrorCode:DCGM_FR_XID_ERROR GPU:4 PCI:0000:c4:00.0 GPU_UUID:GPU-d1816eb1-2926-4fbc-13f6-1cf1ba1b921b Detected XID 31 for GPU 4 Please consult the documentation for details of this XID. Recommended Action=NONE;",
	}
	n := _node("gpu-node-8", [_ready, c], [], "8", "8")
	count(gpu_health.findings) == 0 with input as {"phase": "Failed", "nodes": [n], "events": []}
}

# NVIDIA/NVSentinel#973: an uncontained ECC error (Xid 95) in GpuAllWatch.
test_fires_on_all_watch_xid_95 if {
	c := {
		"type": "GpuAllWatch", "status": "True", "reason": "GpuAllWatchIsNotHealthy",
		"message": "ErrorCode:DCGM_FR_UNCONTAINED_ERROR GPU:0 PCI:0000:16:00.0 GPU_UUID:GPU-65e4956a-8db1-af7f-47f8-b355e3b7bf07 GPU had an uncontained error (XID 95) Drain the GPU and reset it or reboot the node. Recommended Action=RESTART_VM;",
	}
	n := _node("gpu-node-9", [_ready, c], [], "8", "8")
	fs := gpu_health.findings with input as {"phase": "Failed", "nodes": [n], "events": []}
	count(fs) == 1
	some f in fs
	f.severity == "critical"
}

# NVIDIA/NVSentinel#768: a non-fatal power watch is an event the GPU keeps
# working through.
test_quiet_on_power_watch_event if {
	e := {
		"type": "Warning", "reason": "GpuPowerWatchIsNotHealthy",
		"message": "ErrorCode:DCGM_FR_CLOCK_THROTTLE_POWER GPU:0 PCI:0000:0f:00.0 GPU_UUID:GPU-8598879c-4839-1709-231e-36a2b2844bca Detected clocks event due to power violation in GPU 0. Monitor the power conditions. This GPU can still perform workload. Recommended Action=NONE;",
		"object": {"kind": "Node", "name": "gpu-node-2"}, "count": 1, "lastTimestamp": "2026-03-01T10:00:00Z",
	}
	count(gpu_health.findings) == 0 with input as {"phase": "Failed", "nodes": [_node("gpu-node-2", [_ready], [], "8", "8")], "events": [e]}
}

# The device plugin took every GPU of the node out after a fault
# ("nvidia.com/gpu: 0" allocatable).
test_fires_on_zero_allocatable if {
	fs := gpu_health.findings with input as {"phase": "Failed", "nodes": [_node("gpu-node-5", [_ready], [], "8", "0")], "events": []}
	some f in fs
	f.params.detail == "allocatable nvidia.com/gpu 0 of 8"
}
