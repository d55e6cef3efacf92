# METADATA
# title: Not enough CPU, memory or other resources to schedule the job
# description: |
#   The scheduler found no node with enough free CPU, memory, ephemeral
#   storage, hugepages, network devices (EFA, RDMA), host ports or pod slots
#   for the job's pods, so they stay Pending. GPUs are reported by their own
#   rule.
# custom:
#   severity: error
#   owner: platform
#   message:
#     en: "{{.pods}} pod(s) cannot be scheduled: no node has enough {{.resources}}. Scheduler: {{.detail}}"
#     zh: "{{.pods}} 个 Pod 无法调度：没有节点有足够的 {{.resources}}。调度器：{{.detail}}"
#   remediation:
#     en: |
#       - Compare the pod's requests with what one node can still offer: `kubectl describe node <node>` (Allocatable and Allocated resources).
#       - If a single node can never fit the pod, lower the requests (CPU, memory, hugepages) or move to a larger node type.
#       - For `vpc.amazonaws.com/efa` or `rdma/*`, check the device plugin runs on the GPU nodes and advertises the devices, and that the pod does not ask for more than a node has.
#       - "didn't have free ports": drop `hostPort` or `hostNetwork` ports that collide with other pods. "Too many pods": the node reached its pod limit.
#       - If the cluster is just full, wait, free capacity, or let the cluster autoscaler add nodes.
#     zh: |
#       - 对比 Pod 的资源请求与单个节点还能提供的资源：`kubectl describe node <node>`（查看 Allocatable 和 Allocated resources）。
#       - 如果单个节点永远放不下该 Pod，请降低请求量（CPU、内存、hugepages），或改用更大的机型。
#       - 对于 `vpc.amazonaws.com/efa` 或 `rdma/*`，确认 GPU 节点上的设备插件正常运行并上报了设备，且 Pod 申请的数量不超过单节点拥有的数量。
#       - "didn't have free ports"：去掉与其他 Pod 冲突的 `hostPort` 或 `hostNetwork` 端口。"Too many pods"：节点已达到 Pod 数量上限。
#       - 如果只是集群已满，请等待、释放资源，或由集群自动扩缩容增加节点。
#   zh:
#     title: CPU、内存或其他资源不足，作业无法调度
#     description: |
#       调度器找不到有足够空闲 CPU、内存、临时存储、hugepages、网络设备（EFA、RDMA）、主机端口或 Pod 名额的节点，作业的 Pod 一直处于 Pending。GPU 不足由单独的规则报告。
package traindoc.rules.sched.insufficient_resources

import data.traindoc.lib.k8s

# "2 Insufficient cpu", "Insufficient vpc.amazonaws.com/efa.", "Insufficient
# hugepages-1Gi": the resource name ends before the punctuation.
_insufficient := `Insufficient ([A-Za-z0-9][A-Za-z0-9._/-]*[A-Za-z0-9])`

# Accelerators are the insufficient-gpu rule's.
_gpu := `^(nvidia\.com/gpu|amd\.com/gpu|nvidia\.com/mig-|habana\.ai/gaudi|aws\.amazon\.com/neuron|intel\.com/gpu|gpu\.intel\.com/)`

_events_reasons := {"FailedScheduling", "Unschedulable", "PodGroupPending", "NotEnoughResources"}

_pods := p if {
	is_array(input.pods)
	p := input.pods
} else := []

_events := e if {
	is_array(input.events)
	e := input.events
} else := []

_pending contains pod if {
	some pod in _pods
	pod.phase == "Pending"
}

# _resources(msg) are the non-GPU resources a scheduler message says are short.
_resources(msg) := ({r |
	some m in regex.find_all_string_submatch_n(_insufficient, msg, -1)
	r := m[1]
	not regex.match(_gpu, r)
} | {"host ports" | regex.match(`(?i)didn't have free ports`, msg)}) | {"pods" | regex.match(`Too many pods`, msg)}

_cond_hits contains [pod, c] if {
	some pod in _pending
	some c in pod.conditions
	c.type == "PodScheduled"
	c.status == "False"
	count(_resources(object.get(c, "message", ""))) > 0
}

_event_hits contains e if {
	count(_cond_hits) == 0
	some e in _events
	e.reason in _events_reasons
	count(_resources(e.message)) > 0
}

_all_resources := {r |
	some h in _cond_hits
	some r in _resources(h[1].message)
} | {r |
	some e in _event_hits
	some r in _resources(e.message)
}

# The earliest message stands for all: pods of one job usually share it.
_detail := _short(x[1]) if {
	msgs := sort([[object.get(h[1], "lastTransitionTime", ""), h[1].message] | some h in _cond_hits])
	x := msgs[0]
} else := _short(x[1]) if {
	msgs := sort([[k8s.event_time(e), e.message] | some e in _event_hits])
	x := msgs[0]
}

_affected := count(_cond_hits) if count(_cond_hits) > 0

else := count({[e.object.kind, e.object.name] | some e in _event_hits})

_params := {"pods": _affected, "resources": concat(", ", sort(_all_resources)), "detail": _detail}

findings contains f if {
	some h in _cond_hits
	[pod, c] := h
	f := {
		"subject": {"kind": "Pod", "name": pod.name},
		"params": _params,
		"evidence": [k8s.condition_evidence(k8s.pod_ref(pod), "status.conditions[PodScheduled]", c)],
		"time": object.get(c, "lastTransitionTime", ""),
	}
}

findings contains f if {
	some e in _event_hits
	f := {
		"subject": {"kind": e.object.kind, "name": e.object.name},
		"params": _params,
		"evidence": [k8s.event_evidence(e)],
		"time": k8s.event_time(e),
	}
}

_short(msg) := trim_space(split(msg, " preemption:")[0])
