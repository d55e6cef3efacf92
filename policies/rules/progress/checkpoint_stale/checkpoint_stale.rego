# METADATA
# title: Checkpoints are stale or missing
# description: |
#   The job keeps training but its newest checkpoint is old: older than the
#   checkpoint age threshold while steps advance, far more steps behind the
#   current step than the threshold, or no checkpoint at all after the job has
#   run for hours. A failure now would lose that much work.
# custom:
#   severity: warning
#   owner: user
#   message:
#     en: "Checkpoints are stale: {{.detail.en}}."
#     zh: "检查点已过期：{{.detail.zh}}。"
#   remediation:
#     en: |
#       - Check the checkpoint callback is configured (`save_steps`/`save_strategy`, `--save-interval`, Ray Train `CheckpointConfig`) and writes where you look.
#       - Look for failed saves in the logs (disk full, permission denied, object-store errors); a save that fails on rank 0 only can silently stop checkpoints.
#       - Save at least every hour or so of training for large jobs; use asynchronous or sharded checkpointing if saving is slow.
#     zh: |
#       - 检查检查点回调是否已配置（`save_steps`/`save_strategy`、`--save-interval`、Ray Train 的 `CheckpointConfig`），以及写入位置是否就是你查看的位置。
#       - 在日志中查找保存失败（磁盘已满、权限被拒绝、对象存储错误）；只在 rank 0 上失败的保存可能悄悄地停止产生检查点。
#       - 大型作业至少每训练一小时左右保存一次；保存较慢时使用异步或分片检查点。
#   zh:
#     title: 检查点过期或缺失
#     description: |
#       作业仍在训练，但最新的检查点已经很旧：在 step 继续前进时超过了检查点时间阈值，落后当前 step 的步数超过阈值，或作业运行数小时后仍没有任何检查点。此时失败将丢失这么多工作。
package traindoc.rules.progress.checkpoint_stale

import data.traindoc.lib.config
import data.traindoc.lib.k8s

# The checkpoint listing: the job-level one, else any pod's.
_listing := c if {
	c := input.progress.checkpoint
} else := c if {
	some pod in input.pods
	c := pod.exec.checkpoints
}

_th := config.thresholds

_last_step := object.get(input.progress, "lastStep", null)

_last_step_time := object.get(input.progress, "lastStepTime", "")

_evidence(text) := [{
	"kind": "exec",
	"source": "checkpoint listing",
	"object": k8s.job_ref,
	"file": object.get(_listing, "file", ""),
	"text": text,
}]

# The newest checkpoint is much older than the newest step.
findings contains f if {
	input.phase == "Running"
	ct := object.get(_listing, "latestTime", "")
	ct != ""
	_last_step_time != ""
	gap := k8s.seconds_between(ct, _last_step_time)
	gap > _th.checkpoint_stale_seconds
	f := {
		"subject": {"kind": input.kind, "name": input.name},
		"params": {"detail": _hours_behind(round(gap / 360) / 10)},
		"evidence": _evidence(sprintf("latest checkpoint step %v at %s; last step %v at %s", [object.get(_listing, "latestStep", "?"), ct, _last_step, _last_step_time])),
		"time": ct,
	}
}

# The newest checkpoint is many steps behind.
findings contains f if {
	input.phase == "Running"
	not _time_stale
	cs := _listing.latestStep
	_last_step != null
	_last_step - cs > _th.checkpoint_stale_steps
	f := {
		"subject": {"kind": input.kind, "name": input.name},
		"params": {"detail": _steps_behind(cs, _last_step - cs)},
		"evidence": _evidence(sprintf("latest checkpoint step %v; last step %v", [cs, _last_step])),
		"time": object.get(_listing, "latestTime", _last_step_time),
	}
}

# The details in both languages of the message.
_hours_behind(h) := {
	"en": sprintf("the newest checkpoint is %v hours older than the newest step", [h]),
	"zh": sprintf("最新检查点比最新的 step 早 %v 小时", [h]),
}

_steps_behind(step, n) := {
	"en": sprintf("the newest checkpoint (step %v) is %v steps behind the current step", [step, n]),
	"zh": sprintf("最新检查点（step %v）落后当前 step %v 步", [step, n]),
}

_none_after(h) := {
	"en": sprintf("no checkpoint after %v hours of running", [h]),
	"zh": sprintf("已运行 %v 小时仍没有任何检查点", [h]),
}

_time_stale if {
	ct := object.get(_listing, "latestTime", "")
	ct != ""
	_last_step_time != ""
	k8s.seconds_between(ct, _last_step_time) > _th.checkpoint_stale_seconds
}

# A listing with no checkpoint at all after hours of running.
findings contains f if {
	input.phase == "Running"
	count(object.get(_listing, "steps", [])) == 0
	not _listing.latestStep
	start := _started
	age := k8s.age_seconds(start)
	age > _th.checkpoint_stale_seconds
	f := {
		"subject": {"kind": input.kind, "name": input.name},
		"params": {"detail": _none_after(round(age / 360) / 10)},
		"evidence": _evidence(sprintf("checkpoint listing is empty; job started %s", [start])),
		"time": start,
	}
}

_started := t if {
	t := input.status.startTime
	t != ""
} else := t if {
	t := input.createdAt
	t != ""
}
