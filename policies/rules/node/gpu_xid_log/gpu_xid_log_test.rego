package traindoc.rules.node.gpu_xid_log_test

import data.traindoc.rules.node.gpu_xid_log

_pod(matches) := {
	"name": "w-5", "namespace": "ml", "phase": "Failed", "nodeName": "gpu-node-17", "conditions": [],
	"containers": [{
		"name": "pytorch", "restartCount": 0,
		"state": {"state": "terminated", "exitCode": 1, "finishedAt": "2026-03-01T10:00:00Z"}, "lastState": {},
		"logs": [{"file": "logs/w-5/pytorch.log", "previous": false, "lines": 10, "matches": matches, "tail": []}],
	}],
}

_m(text) := {"count": 1, "firstLine": 4, "lastLine": 4, "samples": [{"line": 4, "time": "2026-03-01T09:58:00Z", "text": text}]}

test_fires_on_xid_79 if {
	pod := _pod({"node.xid": _m("[Sat Mar  1 09:58:00 2026] NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, name=python, GPU has fallen off the bus.")})
	fs := gpu_xid_log.findings with input as {"phase": "Failed", "pods": [pod]}
	count(fs) == 1
	some f in fs
	f.params.xid == "79"
	f.params.node == "gpu-node-17"
	f.params.action == "drain and reboot the node; service it if it recurs"
	f.severity == "critical"
	f.time == "2026-03-01T09:58:00Z"
}

# Xid 13 and 31 are usually raised by the application itself.
test_not_on_app_xid if {
	pod := _pod({"node.xid": _m("NVRM: Xid (PCI:0000:3b:00): 31, pid=1234, name=python, Ch 00000010, intr 00000000. MMU Fault: ENGINE GRAPHICS GPCCLIENT_T1_0 faulted @ 0x7f_00000000")})
	count(gpu_xid_log.findings) == 0 with input as {"phase": "Failed", "pods": [pod]}
}

test_unknown_error_from_nccl if {
	pod := _pod({"node.gpu-unknown": _m("  what():  CUDA error: unknown error")})
	fs := gpu_xid_log.findings with input as {"phase": "Failed", "pods": [pod]}
	some f in fs
	f.severity == "error"
}

_re(id) := s.pattern if {
	some s in gpu_xid_log.signatures
	s.id == id
}

test_signatures if {
	regex.match(_re("node.xid"), "NVRM: Xid (PCI:0000:b7:00): 48, pid='<unknown>', name=<unknown>, An uncorrectable double bit error (DBE) has been detected on GPU in the framebuffer at partition 6, subpartition 0.")
	regex.match(_re("node.gpu-ecc"), "RuntimeError: CUDA error: uncorrectable ECC error encountered")
	regex.match(_re("node.gpu-lost"), "Unable to determine the device handle for GPU0000:3B:00.0: Unknown Error")
	regex.match(_re("node.gpu-unknown"), "terminate called after throwing an instance of 'c10::CUDAError'  what():  CUDA error: unknown error")
	not regex.match(_re("node.gpu-unknown"), "RuntimeError: CUDA error: an illegal memory access was encountered")
}

test_xid_line_is_not_reported_twice if {
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
