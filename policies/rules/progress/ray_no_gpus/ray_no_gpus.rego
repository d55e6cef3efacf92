# METADATA
# title: The Ray driver trains without GPUs
# description: |
#   The job runs, but its training code runs in the Ray driver on the head
#   pod, which has no GPUs ("torch.cuda.is_available() is False",
#   "CUDA_VISIBLE_DEVICES=''", "No CUDA GPUs are available"), while the
#   cluster's GPU workers stay idle. A script started with `ray job submit`
#   (every RayJob entrypoint) runs its driver on the head; only the tasks,
#   actors and trainers it creates with GPU resources land on GPU workers.
#   When `ray status` or nvidia-smi already shows the idle GPUs, the GPU-idle
#   rule reports them and this one stays quiet.
# custom:
#   category: progress.gpu-idle
#   severity: error
#   owner: user
#   explains: [progress.stalled, progress.throughput-drop, progress.checkpoint-stale]
#   message:
#     en: "The driver on the Ray head {{.head}} has no GPU ({{.signal}}) while the worker groups have {{.gpus}} GPU(s) idle."
#     zh: "Ray head {{.head}} 上的 driver 没有 GPU（{{.signal_zh}}），而 worker 组的 {{.gpus}} 个 GPU 处于空闲。"
#   remediation:
#     en: |
#       - Move the GPU work out of the driver: Ray Train `TorchTrainer(..., scaling_config=ScalingConfig(num_workers=N, use_gpu=True))`, or `@ray.remote(num_gpus=1)` on the actors that build the model; for verl, keep `trainer.n_gpus_per_node`/`trainer.nnodes` matching the worker groups.
#       - Or run the script inside a GPU pod (`kubectl exec <gpu-worker-pod> -- python train.py`) instead of `ray job submit`.
#       - Then check `ray status` shows GPUs in use and nvidia-smi on the workers shows load.
#     zh: |
#       - 把 GPU 计算移出 driver：使用 Ray Train 的 `TorchTrainer(..., scaling_config=ScalingConfig(num_workers=N, use_gpu=True))`，或在构建模型的 actor 上使用 `@ray.remote(num_gpus=1)`；使用 verl 时让 `trainer.n_gpus_per_node`/`trainer.nnodes` 与 worker 组一致。
#       - 或者不用 `ray job submit`，而是在带 GPU 的 Pod 中运行脚本（`kubectl exec <gpu-worker-pod> -- python train.py`）。
#       - 然后确认 `ray status` 显示 GPU 已被使用，worker 上的 nvidia-smi 显示有负载。
#   zh:
#     title: Ray driver 在没有 GPU 的情况下训练
#     description: |
#       作业在运行，但训练代码运行在 head Pod 上的 Ray driver 里，而 head 没有 GPU（"torch.cuda.is_available() is False"、"CUDA_VISIBLE_DEVICES=''"、"No CUDA GPUs are available"），集群的 GPU worker 则一直空闲。用 `ray job submit` 启动的脚本（所有 RayJob 的入口）都在 head 上运行 driver；只有它以 GPU 资源创建的任务、actor 和 trainer 才会被放到 GPU worker 上。如果 `ray status` 或 nvidia-smi 已经显示 GPU 空闲，由 GPU 空闲规则报告，本规则不再报告。
package traindoc.rules.progress.ray_no_gpus

import data.traindoc.lib.config
import data.traindoc.lib.exec
import data.traindoc.lib.k8s
import data.traindoc.lib.ray

# The driver's own words that it sees no GPU.
signatures contains {
	"id": "ctx.ray-driver-no-gpu",
	"pattern": `torch\.cuda\.is_available\(\)(?: is| returned|:)? False|CUDA_VISIBLE_DEVICES=''|No CUDA GPUs are available|Found no NVIDIA driver on your system`,
}

_patterns := {s.id: s.pattern | some s in signatures}

_heads contains pod if {
	some pod in input.pods
	ray.is_head(pod)
	pod.phase == "Running"
	ray.pod_gpus(pod) == 0
}

# GPUs the worker groups have: the spec, or `ray status`.
_gpus := ray.cluster_gpus if {
	ray.cluster_gpus > 0
} else := max(ns) if {
	ns := [rs.gpusTotal | some pod in input.pods; rs := pod.exec.rayStatus]
	count(ns) > 0
}

# The GPU-idle rule reports idle GPUs it can see in `ray status` or
# nvidia-smi; this rule covers the runs where only the driver says so.
_idle_seen if {
	some pod in input.pods
	rs := pod.exec.rayStatus
	rs.gpusTotal > 0
	rs.gpusUsed == 0
}

_idle_seen if {
	some pod in input.pods
	smi := pod.exec.nvidiaSmi
	count(object.get(smi, "gpus", [])) > 0
	smi.avgUtilization <= config.thresholds.gpu_idle_percent
}

_signal(t) := ["torch.cuda.is_available() is False", "torch.cuda.is_available() 为 False"] if {
	contains(t, "is_available")
} else := ["CUDA_VISIBLE_DEVICES is empty", "CUDA_VISIBLE_DEVICES 为空"] if {
	contains(t, "CUDA_VISIBLE_DEVICES")
} else := ["No CUDA GPUs are available", "没有可用的 CUDA GPU"] if {
	contains(t, "No CUDA GPUs")
} else := ["no NVIDIA driver", "没有 NVIDIA 驱动"]

# The driver's words count however training went on after them: it goes
# on, slowly, on the CPU.
_evidence contains [e, s.text, "log"] if {
	some head in _heads
	some c in k8s.containers(head)
	some lf in exec.scanned(c)
	m := lf.matches["ctx.ray-driver-no-gpu"]
	s := m.samples[0]
	e := exec.sample_evidence(head, c, lf, m, s)
}

_evidence contains [e, h.text, "exec"] if {
	some h in ray.text_matches(_patterns)
	h.pod != null
	h.pod in _heads
	e := ray.text_evidence(h)
}

findings contains f if {
	input.phase == "Running"
	not _idle_seen
	_gpus > 0
	some head in _heads
	es := sort([x | some x in _evidence; x[0].object.name == head.name])
	count(es) > 0
	f := {
		"subject": {"kind": "Pod", "name": head.name},
		"params": {"head": head.name, "signal": _signal(es[0][1])[0], "signal_zh": _signal(es[0][1])[1], "gpus": _gpus},
		"evidence": [x[0] | some i, x in es; i < 3],
		"time": "",
		"severity": _severity,
	}
}

# As for idle GPUs: a run whose steps still advance only wastes the GPUs.
_severity := "warning" if {
	t := object.get(input.progress, "lastStepTime", "")
	t != ""
	k8s.age_seconds(t) <= config.thresholds.stall_seconds
} else := "error"
