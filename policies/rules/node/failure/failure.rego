# METADATA
# title: A node of the job failed or became unreachable
# description: |
#   A node that runs (or ran) the job's pods went NotReady or stopped
#   reporting: the kubelet stopped posting status, the node controller
#   marked the pods not ready and tainted the node unreachable, pods went to
#   phase Unknown, or they were deleted by the taint manager or by pod
#   garbage collection because their node was gone. Also a node that
#   rebooted under a running pod, and, when the job failed on it, a node
#   that node-problem-detector or the EKS node monitoring agent reports
#   broken (KernelDeadlock, ReadonlyFilesystem, FilesystemCorruptionProblem,
#   KubeletProblem, ContainerRuntimeProblem; KernelReady,
#   ContainerRuntimeReady or StorageReady False).
# custom:
#   severity: critical
#   owner: hardware
#   message:
#     en: "Node(s) {{.nodes}} failed or became unreachable while running the job{{if .detail}} ({{.detail}}){{end}}."
#     zh: "节点 {{.nodes}} 在运行作业期间发生故障或失联{{if .detail}}（{{.detail}}）{{end}}。"
#   remediation:
#     en: |
#       - Check the node: `kubectl describe node <node>` (Ready condition, taints, events) and whether it still exists (`kubectl get node <node>`).
#       - Ask the platform team for the node's kernel log and hardware health (kernel panic, PSU, NIC, GPU); cordon it until it is repaired (`kubectl cordon <node>`).
#       - Resubmit or let the job restart from its last checkpoint; pods stuck Terminating on a lost node may need `kubectl delete pod <pod> --force --grace-period=0` once the node is confirmed dead.
#     zh: |
#       - 检查节点：`kubectl describe node <node>`（Ready 状况、污点、事件），以及节点是否仍然存在（`kubectl get node <node>`）。
#       - 请平台团队查看该节点的内核日志和硬件健康状况（内核崩溃、电源、网卡、GPU）；修复之前先封锁该节点（`kubectl cordon <node>`）。
#       - 重新提交作业或让其从最近的检查点重启；确认节点已失效后，卡在 Terminating 的 Pod 可能需要 `kubectl delete pod <pod> --force --grace-period=0`。
#   zh:
#     title: 作业所在节点故障或失联
#     description: |
#       运行（或曾运行）作业 Pod 的节点变为 NotReady 或停止上报：kubelet 不再上报状态、节点控制器把 Pod 标记为未就绪并给节点打上 unreachable 污点、Pod 进入 Unknown 阶段，或者由于节点消失，Pod 被污点管理器或 Pod 垃圾回收删除。Pod 运行期间节点重启也属于此类；作业在某节点上失败时，node-problem-detector 或 EKS 节点监控代理报告该节点损坏（KernelDeadlock、ReadonlyFilesystem、FilesystemCorruptionProblem、KubeletProblem、ContainerRuntimeProblem，或 KernelReady、ContainerRuntimeReady、StorageReady 为 False）同样归入此类。
package traindoc.rules.node.failure

import data.traindoc.lib.k8s

_relevant if object.get(input, "phase", "") != "Succeeded"

_node_ref(n) := {"kind": "Node", "name": n.name}

_pod_node(pod) := n if {
	n := object.get(pod, "nodeName", "")
	n != ""
} else := "?"

# Nodes Ready=False/Unknown.
_bad_nodes contains n if {
	some n in k8s.list(input.nodes)
	_not_ready(n)
}

_not_ready(n) if object.get(n, "ready", "") in {"False", "Unknown"}

_not_ready(n) if {
	some c in k8s.list(n.conditions)
	c.type == "Ready"
	c.status in {"False", "Unknown"}
}

_not_ready(n) if {
	some t in k8s.list(n.taints)
	t.key in {"node.kubernetes.io/unreachable", "node.kubernetes.io/not-ready"}
	t.effect == "NoExecute"
}

_node_evidence(n) := e if {
	some c in k8s.list(n.conditions)
	c.type == "Ready"
	c.status in {"False", "Unknown"}
	e := k8s.condition_evidence(_node_ref(n), "status.conditions[Ready]", c)
} else := e if {
	some t in k8s.list(n.taints)
	t.key in {"node.kubernetes.io/unreachable", "node.kubernetes.io/not-ready"}
	e := object.union(k8s.field_evidence(_node_ref(n), "spec.taints", sprintf("%s:%s", [t.key, t.effect])), {"time": object.get(t, "timeAdded", "")})
} else := k8s.field_evidence(_node_ref(n), "status.conditions[Ready]", sprintf("Ready=%s", [n.ready]))

# Pod-side signals: phase Unknown, reason NodeLost, DisruptionTarget set
# by the taint manager or pod GC, NodeNotReady events.
_pod_signals contains [pod, ev, _pod_node(pod)] if {
	some pod in k8s.list(input.pods)
	pod.phase == "Unknown"
	object.get(pod, "nodeName", "") != ""
	ev := k8s.field_evidence(k8s.pod_ref(pod), "status.phase", trim_space(sprintf("Unknown %s %s", [object.get(pod, "reason", ""), object.get(pod, "message", "")])))
}

_pod_signals contains [pod, ev, _pod_node(pod)] if {
	some pod in k8s.list(input.pods)
	object.get(pod, "reason", "") == "NodeLost"
	ev := k8s.field_evidence(k8s.pod_ref(pod), "status.reason", sprintf("NodeLost: %s", [object.get(pod, "message", "")]))
}

_pod_signals contains [pod, ev, _pod_node(pod)] if {
	some pod in k8s.list(input.pods)
	some c in pod.conditions
	c.type == "DisruptionTarget"
	c.status == "True"
	c.reason in {"DeletionByTaintManager", "DeletionByPodGC"}
	_node_gone_reason(c)
	ev := k8s.condition_evidence(k8s.pod_ref(pod), "status.conditions[DisruptionTarget]", c)
}

# The taint manager also evicts for custom NoExecute taints; those are node
# failures only when the node is not ready or unreachable.
_node_gone_reason(c) if c.reason == "DeletionByPodGC"

_node_gone_reason(c) if {
	c.reason == "DeletionByTaintManager"
	count(_bad_nodes) > 0
}

_node_gone_reason(c) if {
	c.reason == "DeletionByTaintManager"
	regex.match(`unreachable|not-ready`, object.get(c, "message", ""))
}

_pod_signals contains [pod, ev, _pod_node(pod)] if {
	some pod in k8s.list(input.pods)
	some e in k8s.pod_events(pod.name)
	e.reason in {"NodeNotReady", "NodeLost"}
	_still_hurting(pod)
	ev := k8s.event_evidence(e)
}

# The taint manager's "Marking for deletion Pod ns/name" (reason
# TaintManagerEviction) before Kubernetes 1.26 set DisruptionTarget: a node
# failure only while the pod's node is not ready or unreachable (any
# NoExecute taint produces it).
_pod_signals contains [pod, ev, _pod_node(pod)] if {
	some pod in k8s.list(input.pods)
	some e in k8s.pod_events(pod.name)
	e.reason == "TaintManagerEviction"
	startswith(e.message, "Marking for deletion")
	some n in _bad_nodes
	n.name == object.get(pod, "nodeName", "")
	ev := k8s.event_evidence(e)
}

# A NodeNotReady blip the pod survived is history, not a cause.
_still_hurting(pod) if object.get(input, "phase", "") in {"Failed", "Unknown"}

_still_hurting(pod) if pod.phase in {"Unknown", "Failed", "Pending"}

_still_hurting(pod) if {
	some n in _bad_nodes
	n.name == object.get(pod, "nodeName", "")
}

# Node problems reported by node-problem-detector (True when present) and
# by the EKS node monitoring agent (its *Ready conditions False). A broken
# kernel, file system or runtime explains the job's failure only where a
# pod of the job failed.
_npd_problems := {"KernelDeadlock", "ReadonlyFilesystem", "FilesystemCorruptionProblem", "KubeletProblem", "ContainerRuntimeProblem", "CorruptDockerOverlay2"}

_eks_ready := {"KernelReady", "ContainerRuntimeReady", "StorageReady"}

_problem(c) if {
	c.type in _npd_problems
	c.status == "True"
}

_problem(c) if {
	c.type in _eks_ready
	c.status == "False"
}

_node_problems contains [n, c] if {
	some n in k8s.list(input.nodes)
	not n in _bad_nodes
	_job_failed_on(n.name)
	some c in k8s.list(n.conditions)
	_problem(c)
}

_job_failed_on(node) if node in _failed_on

# _failed_on are the nodes where the job failed, found once rather than
# once per node: a job can have thousands of both.
_failed_on contains object.get(pod, "nodeName", "") if {
	object.get(input, "phase", "") in {"Failed", "Unknown"}
	some pod in k8s.list(input.pods)
}

_failed_on contains object.get(pod, "nodeName", "") if {
	some pod in k8s.list(input.pods)
	_pod_hurt(pod)
}

_pod_hurt(pod) if pod.phase in {"Failed", "Unknown"}

_pod_hurt(pod) if {
	some c in k8s.containers(pod)
	object.get(c, "restartCount", 0) > 0
}

# The kubelet's "Rebooted" and the node controller's NodeNotReady events
# on a node while a pod of the job ran there.
_node_events contains [e, name] if {
	some e in k8s.list(input.events)
	e.object.kind == "Node"
	e.reason in {"Rebooted", "NodeNotReady"}
	name := e.object.name
	some pod in k8s.list(input.pods)
	object.get(pod, "nodeName", "") == name
	_during(pod, e)
	_event_hurts(e, name)
}

_during(pod, e) if {
	start := object.get(pod, "startTime", "")
	start != ""
	t := k8s.event_time(e)
	t != ""
	time.parse_rfc3339_ns(t) >= time.parse_rfc3339_ns(start)
}

# A reboot always kills the pods on the node; a NotReady blip counts when
# the job failed there or the node is still not ready.
_event_hurts(e, _) if e.reason == "Rebooted"

_event_hurts(e, name) if {
	e.reason == "NodeNotReady"
	_job_failed_on(name)
}

_event_hurts(e, name) if {
	e.reason == "NodeNotReady"
	some n in _bad_nodes
	n.name == name
}

_failed_nodes := (({n.name | some n in _bad_nodes} | {x[2] | some x in _pod_signals; x[2] != "?"}) | {x[0].name | some x in _node_problems}) | {x[1] | some x in _node_events}

_details contains sprintf("%s=%s %s", [c.type, c.status, object.get(c, "reason", "")]) if some [_, c] in _node_problems

_details contains sprintf("%s: %s", [e.reason, e.message]) if {
	some [e, _] in _node_events
	e.reason == "Rebooted"
}

_detail := trim_space(sort(_details)[0]) if count(_details) > 0

else := ""

_node_list := concat(", ", sort(_failed_nodes)) if count(_failed_nodes) > 0

else := "(unknown)"

findings contains f if {
	_relevant
	some n in _bad_nodes
	ev := _node_evidence(n)
	f := {
		"subject": {"kind": "Node", "name": n.name},
		"params": {"nodes": _node_list, "detail": _detail},
		"evidence": [ev],
		"time": object.get(ev, "time", ""),
	}
}

findings contains f if {
	_relevant
	some x in _pod_signals
	[pod, ev, _] := x
	f := {
		"subject": {"kind": "Pod", "name": pod.name},
		"params": {"nodes": _node_list, "detail": _detail},
		"evidence": [ev],
		"time": object.get(ev, "time", ""),
	}
}

findings contains f if {
	_relevant
	some [n, c] in _node_problems
	ev := k8s.condition_evidence(_node_ref(n), sprintf("status.conditions[%s]", [c.type]), c)
	f := {
		"subject": {"kind": "Node", "name": n.name},
		"params": {"nodes": _node_list, "detail": _detail},
		"evidence": [ev],
		"time": object.get(ev, "time", ""),
		"severity": "error",
	}
}

findings contains f if {
	_relevant
	some [e, name] in _node_events
	f := {
		"subject": {"kind": "Node", "name": name},
		"params": {"nodes": _node_list, "detail": _detail},
		"evidence": [k8s.event_evidence(e)],
		"time": k8s.event_time(e),
	}
}
