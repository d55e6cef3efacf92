# METADATA
# title: GPU hardware fault reported in the logs
# description: |
#   The NVIDIA driver reported a hardware Xid (ECC double-bit or uncontained
#   errors, row-remap failures, NVLink errors, GSP timeouts, a GPU fallen off
#   the bus), or CUDA and nvidia-smi reported a lost GPU, an uncorrectable
#   ECC error or an "unknown error" from the driver. Application-triggered
#   Xids (13, 31, 43, 45) are not counted here. The action per Xid follows
#   NVIDIA's Xid catalog.
# custom:
#   category: node.gpu-hardware
#   severity: critical
#   owner: hardware
#   message:
#     en: "GPU fault on node {{.node}}: {{.fault}}. Action: {{.action}}."
#     zh: "节点 {{.node}} 上的 GPU 故障：{{.fault}}。处理：{{.action}}。"
#   remediation:
#     en: |
#       - Cordon the node (`kubectl cordon <node>`) so the job is not rescheduled onto the same GPU, then restart the job from its last checkpoint.
#       - Follow the action for the Xid: restart the application (Xid 94), reset the GPU (`nvidia-smi -r`, Xid 48/64/95/109/119/120/140/143), reboot the node (Xid 79), check NVLink (`nvidia-smi nvlink -s`, Xid 74/144-150), check power and cooling (Xid 54).
#       - Run a health check before returning the node: `dcgmi diag -r 3`, and `nvidia-smi -q -d ECC,ROW_REMAPPER` for memory errors; replace the GPU if errors repeat.
#       - Other ranks' NCCL timeouts and crashes in the same job are consequences of this fault.
#     zh: |
#       - 先封锁节点（`kubectl cordon <node>`），避免作业被重新调度到同一块 GPU 上，然后从最近的检查点重启作业。
#       - 按 Xid 对应的处理方式操作：重启应用（Xid 94）、重置 GPU（`nvidia-smi -r`，Xid 48/64/95/109/119/120/140/143）、重启节点（Xid 79）、检查 NVLink（`nvidia-smi nvlink -s`，Xid 74/144-150）、检查供电和散热（Xid 54）。
#       - 在节点恢复使用前做健康检查：`dcgmi diag -r 3`，内存错误用 `nvidia-smi -q -d ECC,ROW_REMAPPER` 查看；错误反复出现时更换 GPU。
#       - 同一作业中其他 rank 的 NCCL 超时和崩溃都是该故障的后果。
#   zh:
#     title: 日志中报告了 GPU 硬件故障
#     description: |
#       NVIDIA 驱动报告了硬件 Xid（ECC 双比特或不可控错误、行重映射失败、NVLink 错误、GSP 超时、GPU 从总线上掉线），或 CUDA 与 nvidia-smi 报告 GPU 丢失、不可纠正的 ECC 错误或驱动的 "unknown error"。应用触发的 Xid（13、31、43、45）不计入。每个 Xid 的处理方式依据 NVIDIA 的 Xid 目录。
package traindoc.rules.node.gpu_xid_log

import data.traindoc.lib.exec
import data.traindoc.lib.k8s

# Kernel log lines: "NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, name=python,
# GPU has fallen off the bus." (dmesg, or a health sidecar's log).
signatures contains {
	"id": "node.xid",
	"pattern": `NVRM: Xid \(PCI:[0-9a-fA-F:.]+\): (?P<xid>\d+)`,
	"hint": "Xid",
}

signatures contains {
	"id": "node.gpu-lost",
	"pattern": `GPU has fallen off the bus|GPU is lost|Unable to determine the device handle for GPU|NVML_ERROR_GPU_IS_LOST|GPU requires reset`,
}

signatures contains {
	"id": "node.gpu-ecc",
	"pattern": `uncorrectable ECC error encountered|cudaErrorECCUncorrectable|CUDA_ERROR_ECC_UNCORRECTABLE|uncorrectable NVLink error|cudaErrorNvlinkUncorrectable`,
}

# A CUDA "unknown error" from the driver, typically from ProcessGroupNCCL
# or the CUDA caching allocator, is how a dying GPU usually surfaces.
signatures contains {
	"id": "node.gpu-unknown",
	"pattern": `CUDA error: unknown error|Cuda failure (?:\d+ )?'unknown error'|cudaErrorUnknown\b`,
}

# NVIDIA Xid catalog (resolution buckets as NVSentinel maps them).
xid_table := {
	"46": {"fault": "Xid 46 GPU stopped processing (timeout)", "action": "reset the GPU or reboot the node", "fatal": true},
	"48": {"fault": "Xid 48 uncorrectable double-bit ECC error", "action": "drain the node, reset the GPU; replace it if errors repeat", "fatal": true},
	"54": {"fault": "Xid 54 power-reduced clocking (auxiliary power)", "action": "check power cabling and cooling of the node", "fatal": true},
	"62": {"fault": "Xid 62 internal micro-controller (PMU) halt", "action": "reset the GPU or reboot the node", "fatal": true},
	"63": {"fault": "Xid 63 ECC page retirement or row remapping pending", "action": "no immediate action; reset the GPU at the next maintenance to apply the remap", "fatal": false},
	"64": {"fault": "Xid 64 ECC page retirement or row remapping failed", "action": "drain the node and reset the GPU; replace it if it recurs", "fatal": true},
	"74": {"fault": "Xid 74 NVLink error", "action": "drain the node, check NVLink (nvidia-smi nvlink -s) and reset the GPUs", "fatal": true},
	"79": {"fault": "Xid 79 GPU has fallen off the bus", "action": "drain and reboot the node; service it if it recurs", "fatal": true},
	"92": {"fault": "Xid 92 high single-bit ECC error rate", "action": "no immediate action; watch the node and replace the GPU if it continues", "fatal": false},
	"94": {"fault": "Xid 94 contained ECC error", "action": "restart the job; the GPU recovers", "fatal": false},
	"95": {"fault": "Xid 95 uncontained ECC error", "action": "drain the node and reset the GPU", "fatal": true},
	"109": {"fault": "Xid 109 context switch timeout", "action": "reset the GPU or reboot the node", "fatal": true},
	"119": {"fault": "Xid 119 GSP RPC timeout", "action": "reset the GPU or reboot the node", "fatal": true},
	"120": {"fault": "Xid 120 GSP error", "action": "reset the GPU or reboot the node", "fatal": true},
	"140": {"fault": "Xid 140 unrecovered ECC error", "action": "drain the node and reset the GPU", "fatal": true},
	"143": {"fault": "Xid 143 GPU initialization failure", "action": "reset the GPU or reboot the node", "fatal": true},
	"144": {"fault": "Xid 144 NVLink error", "action": "drain the node and run the NVLink recovery workflow", "fatal": true},
	"145": {"fault": "Xid 145 NVLink error", "action": "drain the node and run the NVLink recovery workflow", "fatal": true},
	"146": {"fault": "Xid 146 NVLink error", "action": "drain the node and run the NVLink recovery workflow", "fatal": true},
	"147": {"fault": "Xid 147 NVLink error", "action": "drain the node and run the NVLink recovery workflow", "fatal": true},
	"148": {"fault": "Xid 148 NVLink error", "action": "drain the node and run the NVLink recovery workflow", "fatal": true},
	"149": {"fault": "Xid 149 NVLink error", "action": "drain the node and run the NVLink recovery workflow", "fatal": true},
	"150": {"fault": "Xid 150 NVLink error", "action": "drain the node and run the NVLink recovery workflow", "fatal": true},
}

_other := {
	"node.gpu-lost": {"fault": "the GPU is lost (fallen off the bus or unreachable)", "action": "drain and reboot the node", "fatal": true},
	"node.gpu-ecc": {"fault": "an uncorrectable ECC or NVLink error", "action": "drain the node and reset the GPU", "fatal": true},
	"node.gpu-unknown": {"fault": "the CUDA driver returned \"unknown error\" (a failing GPU)", "action": "drain the node, check its kernel log for Xid errors and run dcgmi diag", "fatal": true},
}

_xid_re := `NVRM: Xid \(PCI:[0-9a-fA-F:.]+\): (\d+)`

_node(pod) := object.get(pod, "nodeName", "?")

_severity(entry) := "critical" if entry.fatal

else := "warning"

# Xid lines in container logs.
findings contains f if {
	input.phase != "Succeeded"
	some pod in input.pods
	some c in k8s.containers(pod)
	some lf in exec.logs(c)
	m := lf.matches["node.xid"]
	some s in m.samples
	some g in regex.find_all_string_submatch_n(_xid_re, s.text, -1)
	entry := xid_table[g[1]]
	f := {
		"subject": exec.line_subject(pod, c, s.text),
		"params": {"node": exec.node_of(pod, s.text), "xid": g[1], "fault": entry.fault, "action": entry.action},
		"evidence": [exec.sample_evidence(pod, c, lf, m, s)],
		"time": _time(c, lf, m, s),
		"severity": _severity(entry),
	}
}

_time(c, lf, m, s) := s.time if {
	object.get(s, "time", "") != ""
} else := exec.hit_time(c, {"log": lf, "m": m})

# Lost GPU, ECC and unknown errors reported by CUDA in the logs, when no
# Xid line in the same container already names the fault more precisely.
findings contains f if {
	input.phase != "Succeeded"
	some pod in input.pods
	some c in k8s.containers(pod)
	not _has_known_xid(c)
	some id, entry in _other
	some lf in exec.logs(c)
	m := lf.matches[id]
	count(m.samples) > 0
	text := m.samples[0].text
	f := {
		"subject": exec.line_subject(pod, c, text),
		"params": {"node": exec.node_of(pod, text), "xid": "", "fault": entry.fault, "action": entry.action},
		"evidence": [exec.sample_evidence(pod, c, lf, m, m.samples[0])],
		"time": exec.hit_time(c, {"log": lf, "m": m}),
		"severity": _unknown_severity(id),
	}
}

_has_known_xid(c) if {
	some lf in exec.logs(c)
	some s in lf.matches["node.xid"].samples
	some g in regex.find_all_string_submatch_n(_xid_re, s.text, -1)
	xid_table[g[1]]
}

# "unknown error" alone is strong but not certain.
_unknown_severity("node.gpu-unknown") := "error"

_unknown_severity(id) := "critical" if id != "node.gpu-unknown"

# Xids in command outputs collected from the pod (a dmesg dump).
findings contains f if {
	input.phase != "Succeeded"
	some pod in input.pods
	some o in object.get(pod, ["exec", "other"], [])
	some line in split(o.text, "\n")
	some g in regex.find_all_string_submatch_n(_xid_re, line, -1)
	entry := xid_table[g[1]]
	f := {
		"subject": {"kind": "Pod", "name": pod.name},
		"params": {"node": _node(pod), "xid": g[1], "fault": entry.fault, "action": entry.action},
		"evidence": [{
			"kind": "exec",
			"source": sprintf("pod %s %s", [pod.name, o.name]),
			"object": k8s.pod_ref(pod),
			"file": o.file,
			"text": line,
		}],
		"time": "",
		"severity": _severity(entry),
	}
}

# nvidia-smi itself failing on a lost GPU.
findings contains f if {
	input.phase != "Succeeded"
	some pod in input.pods
	smi := pod.exec.nvidiaSmi
	err := object.get(smi, "error", "")
	regex.match(`(?i)Unable to determine the device handle|GPU is lost|fallen off the bus|Unknown Error|GPU requires reset`, err)
	f := {
		"subject": {"kind": "Pod", "name": pod.name},
		"params": {"node": _node(pod), "xid": "", "fault": _other["node.gpu-lost"].fault, "action": _other["node.gpu-lost"].action},
		"evidence": [{
			"kind": "exec",
			"source": sprintf("pod %s nvidia-smi", [pod.name]),
			"object": k8s.pod_ref(pod),
			"file": object.get(smi, "file", ""),
			"text": err,
		}],
		"time": "",
	}
}
