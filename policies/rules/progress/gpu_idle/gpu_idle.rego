# METADATA
# title: GPUs idle while the job runs
# description: |
#   The job is Running but nvidia-smi shows its GPUs at (near) zero
#   utilisation, or `ray status` shows GPUs in the cluster with none in use.
#   Training is not running on the GPUs: it waits, runs on CPU, or was started
#   where it cannot see them (a `ray job submit` entrypoint that does not
#   request GPUs).
# custom:
#   severity: warning
#   owner: user
#   explains: [progress.stalled, progress.throughput-drop, progress.checkpoint-stale]
#   message:
#     en: "GPUs are idle on {{.where.en}} ({{.signal.en}})."
#     zh: "{{.where.zh}}的 GPU 空闲（{{.signal.zh}}）。"
#   remediation:
#     en: |
#       - Check the training process is alive and past data loading (`py-spy dump`), and that it uses CUDA (`torch.cuda.is_available()`, the device of the model).
#       - On Ray: a script launched with `ray job submit` runs its driver without GPUs; request them in the code (`ScalingConfig(use_gpu=True)`, `@ray.remote(num_gpus=1)`) or start training inside the head pod (`kubectl exec <head-pod> -- python train.py`), then check `ray status` shows GPUs in use.
#       - If utilisation is low but not zero, look for a data-loading bottleneck (raise `num_workers`, prefetch, faster storage).
#     zh: |
#       - 确认训练进程仍然存活并已完成数据加载（`py-spy dump`），且在使用 CUDA（`torch.cuda.is_available()`、模型所在设备）。
#       - Ray：用 `ray job submit` 启动的脚本其 driver 不带 GPU；在代码中申请 GPU（`ScalingConfig(use_gpu=True)`、`@ray.remote(num_gpus=1)`），或直接在 head Pod 中启动训练（`kubectl exec <head-pod> -- python train.py`），然后用 `ray status` 确认 GPU 已被使用。
#       - 如果利用率低但不为零，检查数据加载瓶颈（增大 `num_workers`、预取、使用更快的存储）。
#   zh:
#     title: 作业运行中但 GPU 空闲
#     description: |
#       作业处于 Running，但 nvidia-smi 显示其 GPU 利用率为零（或接近零），或 `ray status` 显示集群中有 GPU 却一块也没有使用。训练没有跑在 GPU 上：它在等待、在 CPU 上运行，或在看不到 GPU 的地方启动（没有申请 GPU 的 `ray job submit` 入口）。
package traindoc.rules.progress.gpu_idle

import data.traindoc.lib.config
import data.traindoc.lib.k8s

findings contains f if {
	input.phase == "Running"
	some pod in input.pods
	pod.phase == "Running"
	smi := pod.exec.nvidiaSmi
	object.get(smi, "error", "") == ""
	count(object.get(smi, "gpus", [])) > 0
	smi.avgUtilization <= config.thresholds.gpu_idle_percent
	f := {
		"subject": {"kind": "Pod", "name": pod.name},
		"params": {
			"where": {"en": "the pods' GPUs", "zh": "Pod 上"},
			"signal": {"en": "nvidia-smi", "zh": "nvidia-smi"},
		},
		"evidence": [{
			"kind": "exec",
			"source": sprintf("pod %s nvidia-smi", [pod.name]),
			"object": k8s.pod_ref(pod),
			"file": object.get(smi, "file", ""),
			"text": sprintf("%d GPU(s), average utilization %v%%, %v process(es)", [count(smi.gpus), smi.avgUtilization, object.get(smi, "processes", 0)]),
		}],
		"time": "",
		"severity": _severity,
	}
}

findings contains f if {
	input.phase == "Running"
	some pod in input.pods
	rs := pod.exec.rayStatus
	rs.gpusTotal > 0
	rs.gpusUsed == 0
	f := {
		"subject": {"kind": "Pod", "name": pod.name},
		"params": {
			"where": {"en": "the Ray cluster", "zh": "Ray 集群中"},
			"signal": {"en": "ray status: 0 GPUs in use", "zh": "ray status 显示 0 个 GPU 在用"},
		},
		"evidence": [{
			"kind": "exec",
			"source": sprintf("pod %s ray status", [pod.name]),
			"object": k8s.pod_ref(pod),
			"file": object.get(rs, "file", ""),
			"text": sprintf("GPUs %v/%v used, CPUs %v/%v used", [rs.gpusUsed, rs.gpusTotal, object.get(rs, "cpusUsed", 0), object.get(rs, "cpusTotal", 0)]),
		}],
		"time": "",
		"severity": _severity,
	}
}

# Idle GPUs while steps still advance are a snapshot between steps or a
# data-loading bottleneck; with no recent step they are an error.
_severity := "warning" if {
	t := object.get(input.progress, "lastStepTime", "")
	t != ""
	k8s.age_seconds(t) <= config.thresholds.stall_seconds
} else := "error"
