package traindoc.rules.node.gpu_xid_log_test

import data.traindoc.lib.gpu
import data.traindoc.lib.testing
import data.traindoc.rules.node.gpu_xid_log

# Not lib/testing's pod: pod w-5 on gpu-node-17 with a start time: the
# assertions check the node, and kernel lines older than the pod are
# history.
_pod(matches) := {
	"name": "w-5", "namespace": "ml", "phase": "Failed", "nodeName": "gpu-node-17", "conditions": [],
	"startTime": "2026-03-01T08:00:00Z",
	"containers": [{
		"name": "pytorch", "restartCount": 0,
		"state": {"state": "terminated", "exitCode": 1, "finishedAt": "2026-03-01T10:00:00Z"}, "lastState": {},
		"logs": [{"file": "logs/w-5/pytorch.log", "previous": false, "lines": 10, "matches": matches, "tail": []}],
	}],
}

_m(text) := {"count": 1, "firstLine": 4, "lastLine": 4, "samples": [{"line": 4, "time": "2026-03-01T09:58:00Z", "text": text}]}

_ms(texts) := {"count": count(texts), "firstLine": 4, "lastLine": 4 + count(texts), "samples": [{"line": 4 + i, "text": t} | some i, t in texts]}

test_fires_on_xid_79 if {
	pod := _pod({"node.xid": _m("[Sat Mar  1 09:58:00 2026] NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, name=python, GPU has fallen off the bus.")})
	fs := gpu_xid_log.findings with input as {"phase": "Failed", "pods": [pod]}
	count(fs) == 1
	some f in fs
	f.params.xid == "79"
	f.params.gpu == "0000:3b:00"
	f.params.node == "gpu-node-17"
	f.params.action == gpu.xid_catalog["79"].action
	f.params.fault == {"en": "Xid 79 GPU has fallen off the bus", "zh": "Xid 79，GPU 已从总线上掉线"}
	f.severity == "critical"
	f.time == "2026-03-01T09:58:00Z"
}

# The worst Xid of a GPU names the finding; the others are evidence.
test_fires_worst_xid_first if {
	lines := [
		"NVRM: Xid (PCI:0000:ca:00): 63, pid='<unknown>', name=<unknown>, Row Remapper: New row (0x00000000000f1a20) marked for remapping, reset gpu to activate.",
		"NVRM: Xid (PCI:0000:ca:00): 48, pid='<unknown>', name=<unknown>, An uncorrectable double bit error (DBE) has been detected on GPU in the framebuffer at partition 6, subpartition 0.",
	]
	pod := _pod({"node.xid": _ms(lines)})
	fs := gpu_xid_log.findings with input as {"phase": "Failed", "pods": [pod]}
	count(fs) == 1
	some f in fs
	f.params.xid == "48"
	f.evidence[0].text == lines[1]
	count(f.evidence) == 2
}

# Xid 13 and 31 are raised by the application itself.
test_quiet_on_app_xid if {
	line := "NVRM: Xid (PCI:0000:3b:00): 31, pid=1234, name=python, Ch 00000010, intr 00000000. MMU Fault: ENGINE GRAPHICS GPCCLIENT_T1_0 faulted @ 0x7f_00000000"
	not regex.match(gpu.hardware_xid_pattern, line)
	count(gpu.xid_faults(line)) == 0
}

test_fires_on_unknown_error_from_nccl if {
	pod := _pod({"node.gpu-unknown": _m("  what():  CUDA error: unknown error")})
	fs := gpu_xid_log.findings with input as {"phase": "Failed", "pods": [pod]}
	some f in fs
	f.severity == "error"
}

test_fires_signatures if {
	regex.match(testing.pattern(gpu_xid_log.signatures, "node.xid"), "NVRM: Xid (PCI:0000:b7:00): 48, pid='<unknown>', name=<unknown>, An uncorrectable double bit error (DBE) has been detected on GPU in the framebuffer at partition 6, subpartition 0.")
	regex.match(testing.pattern(gpu_xid_log.signatures, "node.xid"), "NVRM: Xid (PCI:0000:1b:00): 119, pid=2291, name=python3, Timeout after 6s of waiting for RPC response from GPU0 GSP! Expected function 76 (GSP_RM_CONTROL) (0x20802a02 0x8).")
	regex.match(testing.pattern(gpu_xid_log.signatures, "node.xid"), "NVRM: Xid (0000:03:00): 79, GPU has fallen off the bus.")
	not regex.match(testing.pattern(gpu_xid_log.signatures, "node.xid"), "NVRM: Xid (PCI:0000:43:00): 13, pid='<unknown>', name=<unknown>, Graphics Exception: ESR 0x52e7b0=0x101000e")
	not regex.match(testing.pattern(gpu_xid_log.signatures, "node.xid"), "NVRM: Xid (PCI:0000:dc:00): 45, pid=1818990, name=python3, Ch 00000001 caused by previous Xid 149")
	regex.match(testing.pattern(gpu_xid_log.signatures, "node.gpu-ecc"), "RuntimeError: CUDA error: uncorrectable ECC error encountered")
	regex.match(testing.pattern(gpu_xid_log.signatures, "node.gpu-ecc"), "RuntimeError: CUDA error: uncorrectable NVLink error detected during the execution")
	regex.match(testing.pattern(gpu_xid_log.signatures, "node.gpu-lost"), "Unable to determine the device handle for GPU0000:3B:00.0: Unknown Error")
	regex.match(testing.pattern(gpu_xid_log.signatures, "node.gpu-lost"), "NVRM: fallen off the bus and is not responding to commands.")
	regex.match(testing.pattern(gpu_xid_log.signatures, "node.gpu-unknown"), "terminate called after throwing an instance of 'c10::CUDAError'  what():  CUDA error: unknown error")
	not regex.match(testing.pattern(gpu_xid_log.signatures, "node.gpu-unknown"), "RuntimeError: CUDA error: an illegal memory access was encountered")
	not regex.match(testing.pattern(gpu_xid_log.signatures, "node.gpu-unknown"), "UserWarning: CUDA initialization: CUDA unknown error - this may be due to an incorrectly set up environment")
}

test_fires_xid_line_is_not_reported_twice if {
	line := "NVRM: Xid (PCI:0000:07:00): 79, pid=0, GPU has fallen off the bus."
	m := {"count": 1, "firstLine": 3, "lastLine": 3, "samples": [{"line": 3, "text": line}]}
	pod := {
		"name": "w-0", "namespace": "ml", "phase": "Failed", "nodeName": "gpu-7", "conditions": [],
		"containers": [{
			"name": "pytorch", "restartCount": 0, "state": {}, "lastState": {},
			"logs": [{"file": "logs/w-0/pytorch.log", "matches": {"node.xid": m, "node.gpu-lost": m}, "tail": []}],
		}],
	}
	fs := gpu_xid_log.findings with input as {"phase": "Failed", "pods": [pod]}
	count(fs) == 1
	some f in fs
	f.params.xid == "79"
}

_dmesg_pod(text) := {
	"name": "w-1", "namespace": "ml", "phase": "Failed", "nodeName": "gpu-node-3", "conditions": [],
	"startTime": "2026-03-01T08:00:00Z", "containers": [],
	"exec": {"other": [{"name": "dmesg", "file": "exec/w-1/dmesg.txt", "text": text}]},
}

test_fires_on_dmesg_xid_48 if {
	text := concat("\n", [
		"[Sun Mar  1 07:12:09 2026] NVRM: loading NVIDIA UNIX x86_64 Kernel Module  550.54.15  Tue Mar  5 22:23:56 UTC 2024",
		"[Sun Mar  1 09:40:02 2026] NVRM: Xid (PCI:0000:ca:00): 48, pid='<unknown>', name=<unknown>, An uncorrectable double bit error (DBE) has been detected on GPU in the framebuffer at partition 6, subpartition 0.",
		"[Sun Mar  1 09:40:02 2026] NVRM: Xid (PCI:0000:ca:00): 63, pid='<unknown>', name=<unknown>, Row Remapper: New row (0x00000000000f1a20) marked for remapping, reset gpu to activate.",
	])
	fs := gpu_xid_log.findings with input as {"phase": "Failed", "pods": [_dmesg_pod(text)]}
	count(fs) == 1
	some f in fs
	f.params.xid == "48"
	f.params.node == "gpu-node-3"
	f.time == "2026-03-01T09:40:02Z"
	count(f.evidence) == 2
}

# An Xid logged before the pod started belongs to an earlier workload.
test_quiet_on_dmesg_xid_before_pod if {
	text := "[Sat Feb 28 22:01:13 2026] NVRM: Xid (PCI:0000:ca:00): 79, pid=771, name=python, GPU has fallen off the bus."
	count(gpu_xid_log.findings) == 0 with input as {"phase": "Failed", "pods": [_dmesg_pod(text)]}
}

# The job kept training long after the line: the fault did not hit it.
test_quiet_on_dmesg_xid_survived if {
	text := "2026-03-01T09:10:00,123456+00:00 NVRM: Xid (PCI:0000:ca:00): 94, pid=771, name=python, Contained: SM (0x1). RST: No, D-RST: No"
	inp := {"phase": "Running", "pods": [_dmesg_pod(text)], "progress": {"lastStepTime": "2026-03-01T09:58:00Z"}}
	count(gpu_xid_log.findings) == 0 with input as inp
}

test_quiet_on_app_xids_in_dmesg if {
	text := concat("\n", [
		"[Sun Mar  1 09:40:02 2026] NVRM: Xid (PCI:0000:ca:00): 13, pid=5512, name=python, Graphics SM Warp Exception on (GPC 1, TPC 0, SM 0): Out Of Range Address",
		"[Sun Mar  1 09:40:02 2026] NVRM: Xid (PCI:0000:ca:00): 43, pid=5512, name=python, Ch 00000008",
		"[Sun Mar  1 09:40:02 2026] NVRM: Xid (PCI:0000:ca:00): 45, pid=5512, name=python, Ch 00000008",
	])
	count(gpu_xid_log.findings) == 0 with input as {"phase": "Failed", "pods": [_dmesg_pod(text)]}
}

test_fires_nvlink5_nonfatal_is_warning if {
	fs := gpu.xid_faults("NVRM: Xid (PCI:0018:01:00): 145, RLW_RXPIPE Nonfatal XC0 i0 Link 13 (0x0409a0c2 0x00000008 0x00000001 0x00000000 0x00100000 0x00000004)")
	some f in fs
	f.severity == "warning"
}

test_fires_kernel_times if {
	gpu.kernel_time("[Sat Mar  1 09:58:00 2026] NVRM: Xid") == "2026-03-01T09:58:00Z"
	gpu.kernel_time("2026-03-01T09:58:00,123456+01:00 gpu-7 kernel: NVRM: Xid") == "2026-03-01T08:58:00Z"
	gpu.kernel_time("[ 1843.308145] NVRM: Xid") == ""
}

# CUDA's "unknown error" about a pod whose kernel log shows Xid 79 is an
# echo: one finding, from the kernel log.
test_fires_log_echo_defers_to_kernel_log if {
	kernel := "[Sun Mar  1 09:58:00 2026] NVRM: Xid (PCI:0000:3b:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus."
	pod := object.union(_pod({"node.gpu-unknown": _m("w-5:212:290 [3] NCCL WARN Cuda failure 'unknown error'")}), {
		"exec": {"other": [{"name": "dmesg", "file": "exec/w-5/dmesg.txt", "text": kernel}]},
		"nvidiaSmi": {},
	})
	fs := gpu_xid_log.findings with input as {"phase": "Failed", "pods": [pod]}
	count(fs) == 1
	some f in fs
	f.params.xid == "79"
}

# nvidia-smi inside the pod: "Failed to initialize NVML: Unknown Error"
# with no Xid is the container losing its device nodes, a platform
# problem (exec.cuda-env), not a GPU to drain the node for.
_nvml_pod(extra) := object.union(_pod({}), {"exec": object.union(
	{"nvidiaSmi": {"file": "exec/ml/w-5/nvidia-smi.txt", "gpus": [], "error": "Failed to initialize NVML: Unknown Error"}},
	extra,
)})

test_fires_nvml_unknown_error_is_lost_device_access if {
	fs := gpu_xid_log.findings with input as {"phase": "Failed", "pods": [_nvml_pod({})]}
	count(fs) == 1
	some f in fs
	f.category == "exec.cuda-env"
	f.owner == "platform"
	f.params.access
	f.subject.name == "w-5"
	f.evidence[0].file == "exec/ml/w-5/nvidia-smi.txt"
}

test_quiet_nvml_unknown_error_is_no_hardware_fault if {
	fs := gpu_xid_log.findings with input as {"phase": "Failed", "pods": [_nvml_pod({})]}
	every f in fs {
		object.get(f, "category", "node.gpu-hardware") != "node.gpu-hardware"
	}
}

# With Xid 79 in the pod's kernel log the GPU is lost: the NVML error is
# its echo, and the node is at fault.
test_fires_nvml_unknown_error_with_xid_79_is_hardware if {
	kernel := "[Sun Mar  1 09:58:00 2026] NVRM: Xid (PCI:0000:3b:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus."
	pod := _nvml_pod({"other": [{"name": "dmesg", "file": "exec/ml/w-5/dmesg.txt", "text": kernel}]})
	fs := gpu_xid_log.findings with input as {"phase": "Failed", "pods": [pod]}
	count(fs) == 1
	some f in fs
	not f.category
	f.params.xid == "79"
}

# The container's own log names a specific cause: it keeps it.
test_quiet_nvml_unknown_error_beside_specific_cause if {
	pod := object.union(_nvml_pod({}), {"containers": [object.union(_pod({}).containers[0], {"logs": [{
		"file": "logs/w-5/pytorch.log", "previous": false, "lines": 10, "tail": [],
		"matches": {"exec.cuda-oom": _m("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB")},
	}]})]})
	count(gpu_xid_log.findings) == 0 with input as {"phase": "Failed", "pods": [pod]}
}

# "Unable to determine the device handle ...: Unknown Error" is still a
# lost GPU.
test_fires_device_handle_unknown_error_is_lost_gpu if {
	pod := object.union(_pod({}), {"exec": {"nvidiaSmi": {"file": "exec/ml/w-5/nvidia-smi.txt", "gpus": [], "error": "Unable to determine the device handle for GPU0000:3B:00.0: Unknown Error"}}})
	fs := gpu_xid_log.findings with input as {"phase": "Failed", "pods": [pod]}
	count(fs) == 1
	some f in fs
	not f.category
}
