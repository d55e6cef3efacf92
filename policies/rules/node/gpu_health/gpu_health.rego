# METADATA
# title: A node health agent reports a GPU fault on the job's node
# description: |
#   A GPU node of the job is marked faulty by a health agent or the device
#   plugin: a node condition set by NVIDIA NVSentinel, the AKS or a custom
#   node-problem-detector, GKE's device plugin or the EKS node monitoring
#   agent reports an Xid, ECC, NVLink, fabric or lost-GPU fault (or a
#   thermal or power violation, graded as a warning); the node carries a
#   GPU fault taint; a health event names such a fault; or the device
#   plugin advertises fewer allocatable GPUs than the node has, because it
#   found some unhealthy. Problem conditions named like positive ones
#   ("GpuUnhealthy") are faults when True. Conditions and events that name
#   only application Xids (13, 31, 43, 45, 68), an agent that lost its
#   connection to DCGM, or a missing IMEX daemon on an idle node, are not
#   GPU faults.
# custom:
#   category: node.gpu-hardware
#   severity: critical
#   owner: hardware
#   message:
#     en: "GPU fault reported on node(s) {{.nodes}}: {{.detail}}"
#     zh: "节点 {{.nodes}} 报告了 GPU 故障：{{.detail}}"
#   remediation:
#     en: |
#       - Confirm on the node: `kubectl describe node <node>` (Conditions, Taints, Capacity vs Allocatable) and `nvidia-smi -q` / `dmesg | grep -i xid` there.
#       - Cordon the node and hand it to the platform team for a GPU reset, reboot or RMA (`kubectl cordon <node>`); do not resubmit onto it.
#       - Resubmit the job (or let it restart) so it lands on healthy nodes, resuming from its last checkpoint.
#     zh: |
#       - 在节点上确认：`kubectl describe node <node>`（Conditions、Taints、Capacity 与 Allocatable 对比），并在节点上执行 `nvidia-smi -q` / `dmesg | grep -i xid`。
#       - 封锁该节点并交给平台团队重置 GPU、重启或返修（`kubectl cordon <node>`）；不要再把作业提交到该节点。
#       - 重新提交作业（或让其自动重启），使其调度到健康节点并从最近的检查点恢复。
#   zh:
#     title: 节点健康代理报告作业所在节点的 GPU 故障
#     description: |
#       作业所用的 GPU 节点被健康代理或设备插件标记为故障：NVIDIA NVSentinel、AKS 或自定义的 Node Problem Detector、GKE 设备插件或 EKS 节点监控代理设置的节点状况报告了 Xid、ECC、NVLink、Fabric 或 GPU 丢失故障（过热或功率违规按警告处理）；节点带有 GPU 故障污点；健康事件指出了此类故障；或者设备插件发现部分 GPU 不健康，上报的可分配 GPU 少于节点实际拥有的数量。名称类似正面状况的问题状况（如 "GpuUnhealthy"）在取值为 True 时属于故障。只涉及应用 Xid（13、31、43、45、68）的状况和事件、代理与 DCGM 断开连接，以及空闲节点上缺少 IMEX 守护进程，都不算 GPU 故障。
package traindoc.rules.node.gpu_health

import data.traindoc.lib.gpu
import data.traindoc.lib.k8s

_relevant if object.get(input, "phase", "") != "Succeeded"

_node_ref(n) := {"kind": "Node", "name": n.name}

_standard := {"Ready", "MemoryPressure", "DiskPressure", "PIDPressure", "NetworkUnavailable"}

# Condition types of GPU health agents:
# - NVIDIA NVSentinel: SysLogsXIDError, SysLogsSXIDError,
#   SysLogsGPUFallenOff, GpuXidError, GpuMemWatch, GpuNvlinkWatch,
#   GpuPcieWatch, GpuInforomWatch, GpuDriverWatch, GpuThermalWatch,
#   GpuPowerWatch (True when unhealthy).
# - AKS node-problem-detector: GPUMissing, NVLinkStatusInactive, XIDErrors
#   (True when the problem is present).
# - GKE's GPU device plugin: XidCriticalError (reason {"79":true}).
# - EKS node monitoring agent: AcceleratedHardwareReady (False when
#   unhealthy: NvidiaXID<N>Error, NvidiaDoubleBitError, NvidiaNVLinkError,
#   NvidiaDeviceCountMismatch, NvidiaFabricError, DCGMHealthCode<N>...).
# - Custom NPD plugins and DCGM-based checks: GpuEcc*, NVLinkError,
#   DcgmHealth..., and the like.
_gpu_type := `(?i)gpu|xid|nvlink|nvswitch|ecc|dcgm|sxid|rowremap|row-remap|nvidia|accelerat`

_fault_text := `(?i)\bxid\b|fallen off the bus|uncorrectable ECC|double[- ]bit|row remap|NVLink|GPU (is )?lost|Unable to determine the device handle|GPU requires reset|retired pages|GSP|GPU.*(unhealthy|fault|error|failed|missing)`

# Positive conditions (GpuHealthy, NvidiaGPUReady, AcceleratedHardwareReady)
# are faults when False; problem conditions (GpuXidError, GPUProblem,
# GpuNvlinkWatch) when True.
# "GpuUnhealthy", "GPUNotReady" end like positive names but are problem
# conditions: True when the GPU is unhealthy.
_positive(t) if {
	regex.match(`(?i)(healthy|health|ok|ready|available|present)$`, t)
	not regex.match(`(?i)(un|not_?|non-?)(healthy|ready|available|present)$`, t)
}

_faulty_condition(c) if {
	not c.type in _standard
	regex.match(_gpu_type, c.type)
	not _positive(c.type)
	c.status == "True"
	not _not_a_gpu_fault(c)
}

_faulty_condition(c) if {
	not c.type in _standard
	regex.match(_gpu_type, c.type)
	_positive(c.type)
	c.status == "False"
	not _not_a_gpu_fault(c)
}

# A condition of another type whose message names a GPU fault.
_faulty_condition(c) if {
	not c.type in _standard
	not regex.match(_gpu_type, c.type)
	c.status == "True"
	regex.match(_fault_text, object.get(c, "message", ""))
	not _not_a_gpu_fault(c)
}

_text(c) := sprintf("%s %s %s", [c.type, object.get(c, "reason", ""), object.get(c, "message", "")])

# Conditions that are set by a GPU agent but say nothing against the GPU:
# application Xids only (13, 31, 43, 45, 68: the program's error, not the
# GPU's), or an agent that lost its own connection to DCGM.
_not_a_gpu_fault(c) if gpu.only_app_xids(_text(c))

_not_a_gpu_fault(c) if object.get(c, "reason", "") in {"DCGMError", "DCGMConnectionError"}

# NVSentinel conditions whose every entry is about the agent or a daemon,
# not the GPU: DCGM unreachable (DCGM_CONNECTIVITY_ERROR, while the GPU
# operator reinstalls after a reboot: NVIDIA/NVSentinel#1034, #1423), or
# no IMEX daemon on an idle GB200/GB300 node (DCGM_FR_IMEX_UNHEALTHY
# "IMEX daemon status is -3", NVIDIA/aicr#2641). Entries are separated by
# ";"; any other entry keeps the condition a fault.
_agent_codes := `(?i)DCGM_CONNECTIVITY_ERROR|DCGM_FR_IMEX_UNHEALTHY|IMEX daemon status is`

_not_a_gpu_fault(c) if {
	entries := [e | some e in split(object.get(c, "message", ""), ";"); regex.match(`\w`, e); not regex.match(`^\s*Recommended Action=\w*\s*$`, e)]
	count(entries) > 0
	every e in entries {
		regex.match(_agent_codes, e)
	}
}

# Thermal, power and PCIe replay watches report a degraded GPU, not a
# failed one.
_severity(c) := "warning" if regex.match(`(?i)thermal|power|pcie|NvidiaPCIeError|NvidiaPageRetirement|RowRemap\b`, sprintf("%s %s", [c.type, object.get(c, "reason", "")]))

else := "critical"

# Taints of GPU health agents; "nvidia.com/gpu=present:NoSchedule" and
# similar markers of GPU nodes are not faults.
_faulty_taint(t) if regex.match(`(?i)(gpu|xid|nvlink|ecc|nvsentinel|dcgm).*(error|unhealthy|fault|fail|bad|xid|quarantine)|nvsentinel`, t.key)

_faulty_taint(t) if {
	regex.match(`(?i)gpu|nvidia|xid`, t.key)
	regex.match(`(?i)unhealthy|error|fault|fail|bad|xid|broken`, object.get(t, "value", ""))
}

_hits contains [n, ev, detail, _severity(c)] if {
	some n in k8s.list(input.nodes)
	some c in k8s.list(n.conditions)
	_faulty_condition(c)
	ev := k8s.condition_evidence(_node_ref(n), sprintf("status.conditions[%s]", [c.type]), c)
	detail := trim_space(sprintf("%s=%s %s", [c.type, c.status, object.get(c, "reason", "")]))
}

_hits contains [n, ev, detail, "critical"] if {
	some n in k8s.list(input.nodes)
	some t in k8s.list(n.taints)
	_faulty_taint(t)
	text := sprintf("%s=%s:%s", [t.key, object.get(t, "value", ""), t.effect])
	ev := object.union(k8s.field_evidence(_node_ref(n), "spec.taints", text), {"time": object.get(t, "timeAdded", "")})
	detail := sprintf("taint %s", [text])
}

# Allocatable GPUs below capacity: the device plugin marked some unhealthy.
_hits contains [n, ev, detail, "critical"] if {
	some n in k8s.list(input.nodes)
	some res in {"nvidia.com/gpu", "amd.com/gpu"}
	cap := to_number(n.capacity[res])
	alloc := to_number(object.get(object.get(n, "allocatable", {}), res, "0"))
	alloc < cap
	detail := sprintf("allocatable %s %d of %d", [res, alloc, cap])
	ev := k8s.field_evidence(_node_ref(n), "status.allocatable", detail)
}

# Health monitor events that name a GPU fault on the job's objects or
# nodes: NPD "XIDError", EKS "NvidiaXID79Error", NVSentinel messages.
# Events about application Xids only ("NvidiaXID13Warning") and the
# kubelet's own probe and back-off events are not GPU faults.
_event_hits contains e if {
	some e in k8s.list(input.events)
	e.type == "Warning"
	regex.match(`(?i)\bxid\b|NvidiaXID\d+Error|fallen off the bus|uncorrectable ECC|double[- ]bit|GPU (is )?lost|NVLink (?:error|down|inactive)`, sprintf("%s %s", [e.reason, e.message]))
	not regex.match(`^(BackOff|Failed|Unhealthy|FailedScheduling|Killing|Evicted)$`, e.reason)
	not gpu.only_app_xids(sprintf("%s %s", [e.reason, e.message]))
}

_nodes := {x[0].name | some x in _hits}

_node_list := x if {
	count(_nodes) > 0
	x := concat(", ", sort(_nodes))
} else := x if {
	x := concat(", ", sort({e.object.name | some e in _event_hits}))
}

# The first fault names the finding; others are evidence.
_detail := d if {
	count(_hits) > 0
	d := sort([x[2] | some x in _hits])[0]
} else := trim_space(e.message) if {
	es := sort([[k8s.event_time(e), e] | some e in _event_hits])
	e := es[0][1]
}

findings contains f if {
	_relevant
	some n in {x[0] | some x in _hits}
	xs := [x | some x in _hits; x[0].name == n.name]
	evs := [x[1] | some x in xs]
	f := {
		"subject": {"kind": "Node", "name": n.name},
		"params": {"nodes": _node_list, "detail": _detail},
		"evidence": evs,
		"time": _first([e.time | some e in evs; object.get(e, "time", "") != ""]),
		"severity": _worst([x[3] | some x in xs]),
	}
}

findings contains f if {
	_relevant
	some e in _event_hits
	f := {
		"subject": {"kind": e.object.kind, "name": e.object.name},
		"params": {"nodes": _node_list, "detail": _detail},
		"evidence": [k8s.event_evidence(e)],
		"time": k8s.event_time(e),
	}
}

_worst(ss) := "critical" if "critical" in ss

else := "warning"

_first(ts) := t if {
	count(ts) > 0
	t := sort(ts)[0]
} else := ""
