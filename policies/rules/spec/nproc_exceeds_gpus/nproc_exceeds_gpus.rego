# METADATA
# title: More processes per node than GPUs
# description: |
#   The launcher starts more training processes on each pod than the pod has
#   GPUs. Several ranks then share one GPU: NCCL refuses duplicate devices,
#   CUDA runs out of memory, or ranks beyond the GPU count fail with an
#   invalid device ordinal.
# custom:
#   severity: error
#   owner: user
#   message:
#     en: "{{.nproc}} processes per node are started ({{.source}}) but the {{.groups}} pods have only {{.gpus}} GPU(s) each."
#     zh: "每个节点启动 {{.nproc}} 个进程（{{.source}}），但 {{.groups}} 的每个 Pod 只有 {{.gpus}} 块 GPU。"
#   remediation:
#     en: |
#       - Make processes per node equal to the GPUs per pod: set `nprocPerNode` (PyTorchJob), `torchrunConfig.procPerNode` (T9k) or `--nproc_per_node` to the `nvidia.com/gpu` limit.
#       - Or raise the pod's `nvidia.com/gpu` limit to the number of processes, if a node has that many GPUs.
#       - Prefer `auto` or `gpu` where the launcher supports it, so the count follows the GPUs the pod really gets.
#     zh: |
#       - 让每个节点的进程数等于每个 Pod 的 GPU 数：把 `nprocPerNode`（PyTorchJob）、`torchrunConfig.procPerNode`（T9k）或 `--nproc_per_node` 设为 `nvidia.com/gpu` 的 limit。
#       - 如果节点上有足够的 GPU，也可以把 Pod 的 `nvidia.com/gpu` limit 提高到进程数。
#       - 启动器支持时优先使用 `auto` 或 `gpu`，让进程数跟随 Pod 实际分到的 GPU 数。
#   zh:
#     title: 每个节点的进程数超过 GPU 数
#     description: |
#       启动器在每个 Pod 上启动的训练进程多于该 Pod 拥有的 GPU。多个 rank 会共用同一块 GPU：NCCL 拒绝重复的设备、CUDA 显存不足，或者超出 GPU 数量的 rank 因设备序号无效而失败。
package traindoc.rules.spec.nproc_exceeds_gpus

import data.traindoc.lib.k8s
import data.traindoc.lib.launch

_groups := g if {
	is_array(input.replicas)
	g := input.replicas
} else := []

_gpu_groups contains g if {
	some g in _groups
	object.get(g.template, "gpuLimit", 0) > 0
}

findings contains f if {
	some gpus in {g.template.gpuLimit | some g in _gpu_groups}
	over := [[g, x] |
		some g in _gpu_groups
		g.template.gpuLimit == gpus
		x := launch.nproc(g)
		x[0] > gpus
	]
	count(over) > 0
	first := over[0][1]
	names := sort({g.type | some p in over; g := p[0]})
	f := {
		"subject": {"kind": input.kind, "name": input.name},
		"params": {"nproc": first[0], "gpus": gpus, "groups": concat(", ", names), "source": first[1]},
		"evidence": array.concat([k8s.field_evidence(k8s.job_ref, first[2], sprintf("%s=%d", [first[1], first[0]]))], [e |
			some p in over
			e := k8s.field_evidence(k8s.job_ref, sprintf("replicas[%s].template", [p[0].type]), sprintf("nvidia.com/gpu limit=%d", [gpus]))
		]),
		"time": object.get(input, "createdAt", ""),
	}
}
