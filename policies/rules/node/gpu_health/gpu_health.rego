# METADATA
# title: A node health agent reports a GPU fault on the job's node
# description: |
#   A GPU node of the job is marked faulty by a health agent or the device
#   plugin: a node condition set by NVSentinel, Node Problem Detector or a
#   similar monitor reports an Xid, ECC, NVLink or lost-GPU fault; the node
#   carries a GPU fault taint; or the device plugin advertises fewer
#   allocatable GPUs than the node has, because it found some unhealthy.
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
#       作业所用的 GPU 节点被健康代理或设备插件标记为故障：NVSentinel、Node Problem Detector 等监控设置的节点状况报告了 Xid、ECC、NVLink 或 GPU 丢失故障；节点带有 GPU 故障污点；或者设备插件发现部分 GPU 不健康，上报的可分配 GPU 少于节点实际拥有的数量。
package traindoc.rules.node.gpu_health

import data.traindoc.lib.k8s

_list(x) := x if is_array(x)

else := []

_relevant if object.get(input, "phase", "") != "Succeeded"

_node_ref(n) := {"kind": "Node", "name": n.name}

_standard := {"Ready", "MemoryPressure", "DiskPressure", "PIDPressure", "NetworkUnavailable"}

# Condition types of GPU health agents: NVSentinel checks (GpuXidError,
# GpuNvlinkWatch, GpuMemWatch...), AKS/GKE NPD (GPUMissing, GPUXIDErrors,
# GPUProblem), and the like.
_gpu_type := `(?i)gpu|xid|nvlink|nvswitch|ecc|dcgm|sxid|rowremap|row-remap|nvidia`

_fault_text := `(?i)\bxid\b|fallen off the bus|uncorrectable ECC|double[- ]bit|row remap|NVLink|GPU (is )?lost|Unable to determine the device handle|GPU requires reset|retired pages|GSP|GPU.*(unhealthy|fault|error|failed|missing)`

# Positive conditions (GpuHealthy, NvidiaGPUReady) are faults when False;
# problem conditions (GpuXidError, GPUProblem) when True.
_positive(t) if regex.match(`(?i)(healthy|health|ok|ready|available|present)$`, t)

_faulty_condition(c) if {
	not c.type in _standard
	regex.match(_gpu_type, c.type)
	not _positive(c.type)
	c.status == "True"
}

_faulty_condition(c) if {
	not c.type in _standard
	regex.match(_gpu_type, c.type)
	_positive(c.type)
	c.status == "False"
}

# A condition of another type whose message names a GPU fault.
_faulty_condition(c) if {
	not c.type in _standard
	not regex.match(_gpu_type, c.type)
	c.status == "True"
	regex.match(_fault_text, object.get(c, "message", ""))
}

# Taints of GPU health agents; "nvidia.com/gpu=present:NoSchedule" and
# similar markers of GPU nodes are not faults.
_faulty_taint(t) if regex.match(`(?i)(gpu|xid|nvlink|ecc|nvsentinel|dcgm).*(error|unhealthy|fault|fail|bad|xid|quarantine)|nvsentinel`, t.key)

_faulty_taint(t) if {
	regex.match(`(?i)gpu|nvidia|xid`, t.key)
	regex.match(`(?i)unhealthy|error|fault|fail|bad|xid|broken`, object.get(t, "value", ""))
}

_hits contains [n, ev, detail] if {
	some n in _list(input.nodes)
	some c in _list(n.conditions)
	_faulty_condition(c)
	ev := k8s.condition_evidence(_node_ref(n), sprintf("status.conditions[%s]", [c.type]), c)
	detail := trim_space(sprintf("%s=%s %s", [c.type, c.status, object.get(c, "reason", "")]))
}

_hits contains [n, ev, detail] if {
	some n in _list(input.nodes)
	some t in _list(n.taints)
	_faulty_taint(t)
	text := sprintf("%s=%s:%s", [t.key, object.get(t, "value", ""), t.effect])
	ev := object.union(k8s.field_evidence(_node_ref(n), "spec.taints", text), {"time": object.get(t, "timeAdded", "")})
	detail := sprintf("taint %s", [text])
}

# Allocatable GPUs below capacity: the device plugin marked some unhealthy.
_hits contains [n, ev, detail] if {
	some n in _list(input.nodes)
	some res in {"nvidia.com/gpu", "amd.com/gpu"}
	cap := to_number(n.capacity[res])
	alloc := to_number(object.get(object.get(n, "allocatable", {}), res, "0"))
	alloc < cap
	detail := sprintf("allocatable %s %d of %d", [res, alloc, cap])
	ev := k8s.field_evidence(_node_ref(n), "status.allocatable", detail)
}

# Health monitor events that name an Xid on the job's objects or nodes.
_event_hits contains e if {
	some e in _list(input.events)
	e.type == "Warning"
	regex.match(`(?i)\bxid\b|fallen off the bus|uncorrectable ECC|GPU (is )?lost`, e.message)
	not regex.match(`(?i)^(BackOff|Failed|Unhealthy)$`, e.reason)
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
	evs := [x[1] | some x in _hits; x[0].name == n.name]
	f := {
		"subject": {"kind": "Node", "name": n.name},
		"params": {"nodes": _node_list, "detail": _detail},
		"evidence": evs,
		"time": _first([e.time | some e in evs; object.get(e, "time", "") != ""]),
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

_first(ts) := t if {
	count(ts) > 0
	t := sort(ts)[0]
} else := ""
