# METADATA
# title: Training stopped making progress
# description: |
#   The job is Running but its step counter (or, when no steps are logged, its
#   logs) has not advanced for longer than the stall threshold: the processes
#   are alive but hung (a collective waiting on a dead or diverged rank, a
#   deadlocked data loader, a stuck storage read).
# custom:
#   severity: error
#   owner: user
#   message:
#     en: "No progress for {{.minutes}} minutes (last {{.basis.en}} at {{.since}})."
#     zh: "已经 {{.minutes}} 分钟没有进展（最后{{.basis.zh}}的时间为 {{.since}}）。"
#   remediation:
#     en: |
#       - Dump the Python stacks of every rank while it hangs (`py-spy dump --pid <pid>` in each pod) and compare: the rank in a different place is the culprit.
#       - Enable the NCCL flight recorder (`TORCH_NCCL_TRACE_BUFFER_SIZE`, `TORCH_NCCL_DUMP_ON_TIMEOUT=1`) and lower the process-group timeout so hangs fail fast with a report.
#       - Check data loading and storage (a hung NFS/FUSE mount, an object-store read without timeout) and whether the GPUs are busy (`nvidia-smi`).
#       - If the job is evaluating or saving a checkpoint on purpose, raise `stall_seconds` for it.
#     zh: |
#       - 在卡住时导出每个 rank 的 Python 调用栈（在每个 Pod 中执行 `py-spy dump --pid <pid>`）并对比：停在不同位置的 rank 就是问题所在。
#       - 开启 NCCL flight recorder（`TORCH_NCCL_TRACE_BUFFER_SIZE`、`TORCH_NCCL_DUMP_ON_TIMEOUT=1`）并降低进程组超时，让挂起尽快失败并留下报告。
#       - 检查数据加载和存储（挂起的 NFS/FUSE 挂载、没有超时的对象存储读取），以及 GPU 是否在工作（`nvidia-smi`）。
#       - 如果作业确实在评估或保存检查点，为它调大 `stall_seconds`。
#   zh:
#     title: 训练停止推进
#     description: |
#       作业处于 Running，但训练步数（没有步数时为日志）超过停滞阈值没有前进：进程还活着但已挂起（集合通信在等待已死或走偏的 rank、数据加载器死锁、存储读取卡住）。
package traindoc.rules.progress.stalled

import data.traindoc.lib.config
import data.traindoc.lib.k8s

_last := ["step", t] if {
	t := object.get(input.progress, "lastStepTime", "")
	t != ""
} else := ["log line", t] if {
	t := object.get(input.progress, "lastLogTime", "")
	t != ""
}

# What progress was last seen, in both languages of the message.
_basis := {
	"step": {"en": "step", "zh": "一个训练步"},
	"log line": {"en": "log line", "zh": "一行日志"},
}

findings contains f if {
	input.phase == "Running"
	[basis, t] := _last
	age := k8s.age_seconds(t)
	age > config.thresholds.stall_seconds
	f := {
		"subject": {"kind": input.kind, "name": input.name},
		"params": {"minutes": round(age / 60), "basis": _basis[basis], "since": t},
		"evidence": [{
			"kind": "progress",
			"source": object.get(input.progress, "source", "logs"),
			"object": k8s.job_ref,
			"text": sprintf("last %s at %s (step %v); snapshot at %s", [basis, t, object.get(input.progress, "lastStep", "?"), input.now]),
			"time": t,
		}],
		"time": t,
		"severity": _severity,
	}
}

# Steps stopped but the logs still move (evaluation, checkpointing, retries):
# a warning; everything silent: an error.
_severity := "warning" if {
	_last[0] == "step"
	lt := object.get(input.progress, "lastLogTime", "")
	lt != ""
	k8s.age_seconds(lt) <= config.thresholds.stall_seconds
} else := "error"
