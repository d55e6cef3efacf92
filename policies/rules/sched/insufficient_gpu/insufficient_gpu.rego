# METADATA
# title: Not enough GPUs to schedule the job
# description: |
#   The scheduler found no node with enough free GPUs (or other
#   accelerators) for the job's pods, so they stay Pending. Either the
#   cluster is full, or the pod asks for more GPUs than any single node has.
#   A pod that was scheduled since is not counted, and a gang or queue that
#   holds the whole job is reported as such.
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
#       调度器找不到有足够空闲 GPU（或其他加速器）的节点，作业的 Pod 一直处于 Pending。可能是集群已满，或者单个 Pod 申请的 GPU 多于任何一个节点拥有的数量。之后已被调度的 Pod 不计在内；如果是 Gang 调度器或队列在整体上挡住了作业，则按排队等待报告。
package traindoc.rules.sched.insufficient_gpu

import data.traindoc.lib.capacity
import data.traindoc.lib.sched

# The accelerators a message says are short ("Insufficient
# nvidia.com/gpu", MIG slices, HAMi's gpumem and gpucores, AMD, Intel,
# Gaudi, Neuron, TPU, Ascend devices: lib/capacity), and Volcano's vGPU
# predicate, which counts cards instead ("no enough gpu cards on node").
_resources(msg) := capacity.accelerators_short(msg) | {"GPU cards" | regex.match(`no enough gpu cards on node`, msg)}

# The scheduler's current words about waiting pods that name a missing
# accelerator. A gang or queue that holds the job explains these words
# itself (the gang rule quotes them).
_hits contains m if {
	not sched.gang_hold
	some m in sched.messages
	not sched.is_gang(m.text)
	count(_resources(m.text)) > 0
}

# The earliest message stands for all: the pods of one job share it.
_first := sort([[m.time, m.text] | some m in _hits])[0][1]

_params := {
	"pods": count({m.pod | some m in _hits}),
	"resource": concat(", ", sort(_resources(_first))),
	"detail": sched.short(_first),
}

findings contains f if {
	some m in _hits
	f := {
		"subject": {"kind": "Pod", "name": m.pod},
		"params": _params,
		"evidence": [m.evidence],
		"time": m.time,
	}
}
