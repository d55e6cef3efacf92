# METADATA
# title: Not enough GPUs to schedule the job
# description: |
#   The scheduler found no node with enough free GPUs for the job's pods, so
#   they stay Pending. Either the cluster is full, or the pod asks for more
#   GPUs than any single node has.
# custom:
#   severity: error
#   owner: platform
#   message:
#     en: "{{.pods}} pod(s) cannot be scheduled: no node has {{.resource}} free. Scheduler: {{.detail}}"
#     zh: "{{.pods}} 个 Pod 无法调度：没有节点有空闲的 {{.resource}}。调度器：{{.detail}}"
#   remediation:
#     en: |
#       - Compare the per-pod GPU request with what one node has: `kubectl describe nodes | grep -A5 Allocatable`.
#       - If no node is big enough, lower GPUs per pod (and nprocPerNode) or use a larger node type.
#       - If the cluster is simply full, wait, free GPUs, or use a queue (Kueue, Volcano) so the job waits in line instead of half-starting.
#       - Check the GPU device plugin is running on the GPU nodes (allocatable nvidia.com/gpu > 0).
#     zh: |
#       - 对比每个 Pod 申请的 GPU 数与单个节点的 GPU 数：`kubectl describe nodes | grep -A5 Allocatable`。
#       - 如果没有足够大的节点，请减少每个 Pod 的 GPU 数（以及 nprocPerNode），或改用更大的机型。
#       - 如果只是集群已满，请等待、释放 GPU，或使用队列（Kueue、Volcano）让作业排队，而不是部分启动。
#       - 确认 GPU 节点上的设备插件正常运行（allocatable 中 nvidia.com/gpu 大于 0）。
#   zh:
#     title: GPU 不足，作业无法调度
#     description: |
#       调度器找不到有足够空闲 GPU 的节点，作业的 Pod 一直处于 Pending。可能是集群已满，或者单个 Pod 申请的 GPU 多于任何一个节点拥有的数量。
package traindoc.rules.sched.insufficient_gpu

import data.traindoc.lib.k8s

# The scheduler names the resource it lacks: "Insufficient nvidia.com/gpu",
# "Insufficient amd.com/gpu", and gang schedulers echo the same words.
_gpu_pattern := `Insufficient (nvidia\.com/gpu|amd\.com/gpu|nvidia\.com/mig-[^\s,.]+|habana\.ai/gaudi|aws\.amazon\.com/neuron\w*)`

_pending_pods contains pod if {
	some pod in input.pods
	pod.phase == "Pending"
}

# Evidence from the pod's own PodScheduled condition.
findings contains f if {
	some pod in _pending_pods
	some c in pod.conditions
	c.type == "PodScheduled"
	c.status == "False"
	m := regex.find_all_string_submatch_n(_gpu_pattern, c.message, 1)
	count(m) > 0
	f := {
		"subject": {"kind": "Pod", "name": pod.name},
		"params": {"pods": count(_pending_pods), "resource": m[0][1], "detail": _short(c.message)},
		"evidence": [k8s.condition_evidence(k8s.pod_ref(pod), "status.conditions[PodScheduled]", c)],
		"time": object.get(c, "lastTransitionTime", ""),
	}
}

# Evidence from FailedScheduling events, for snapshots without pod status.
findings contains f if {
	some e in input.events
	e.reason in {"FailedScheduling", "Unschedulable", "PodGroupPending"}
	m := regex.find_all_string_submatch_n(_gpu_pattern, e.message, 1)
	count(m) > 0
	not _has_condition_evidence
	f := {
		"subject": {"kind": e.object.kind, "name": e.object.name},
		"params": {"pods": count(_pending_pods), "resource": m[0][1], "detail": _short(e.message)},
		"evidence": [k8s.event_evidence(e)],
		"time": k8s.event_time(e),
	}
}

_has_condition_evidence if {
	some pod in _pending_pods
	some c in pod.conditions
	c.type == "PodScheduled"
	c.status == "False"
	regex.match(_gpu_pattern, c.message)
}

# The scheduler message up to its preemption note, which adds nothing.
_short(msg) := trim_space(split(msg, " preemption:")[0])
