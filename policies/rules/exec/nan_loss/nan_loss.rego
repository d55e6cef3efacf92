# METADATA
# title: Training diverged (loss is NaN or Inf)
# description: |
#   The loss became NaN or infinite and stayed so: the logged loss or
#   gradient norm (Hugging Face, Megatron, NeMo, Lightning, DeepSpeed,
#   mmengine and plain "loss: x" lines) is nan/inf in every report since the
#   last finite one, Megatron counts nan or skipped iterations in every
#   report, the training code stopped with "Loss is nan", anomaly detection
#   reported a function returning nan, or the fp16 loss scale is stuck at
#   its minimum. Steps may still advance: the job is diverged, not healthy
#   and not stalled. Normal dynamic loss scaling ("Gradient overflow.
#   Skipping step", "OVERFLOW! ... reducing to 32768") and an isolated nan
#   gradient norm followed by finite values are not divergence.
# custom:
#   severity: error
#   owner: user
#   message:
#     en: "Training diverged: {{.detail}}{{if .step}} (since step {{.step}}){{end}}."
#     zh: "训练发散：{{.detail_zh}}{{if .step}}（自第 {{.step}} 步起）{{end}}。"
#   remediation:
#     en: |
#       - Lower the learning rate or lengthen warmup; enable gradient clipping (`max_grad_norm=1.0`).
#       - Prefer bf16 over fp16; with fp16, a loss scale stuck at its minimum means gradients overflow at every step.
#       - Look for bad samples around the step where it started (empty sequences, labels all ignored, division by zero in a custom loss, log of zero).
#       - Resume from the last checkpoint before the divergence and skip the offending data; if it recurs on one node only, suspect the GPU (silent data corruption).
#     zh: |
#       - 降低学习率或延长 warmup；开启梯度裁剪（`max_grad_norm=1.0`）。
#       - 优先使用 bf16 而不是 fp16；使用 fp16 时，loss scale 卡在最小值表示每一步梯度都溢出。
#       - 检查开始出现问题的 step 附近的坏样本（空序列、标签全部被忽略、自定义 loss 中除以零、对零取对数）。
#       - 从发散前最后一个检查点恢复并跳过有问题的数据；如果只在某个节点上反复出现，怀疑该 GPU（静默数据损坏）。
#   zh:
#     title: 训练发散（loss 为 NaN 或 Inf）
#     description: |
#       loss 变成了 NaN 或无穷大并且一直如此：记录的 loss 或梯度范数（Hugging Face、Megatron、NeMo、Lightning、DeepSpeed、mmengine 以及普通的 "loss: x" 行）从最后一个有限值之后每次都是 nan/inf，Megatron 每次报告都统计到 nan 或跳过的迭代，训练代码以 "Loss is nan" 停止，异常检测报告函数返回 nan，或 fp16 的 loss scale 卡在最小值。step 可能仍在增加：作业已经发散，既不健康也不是停滞。正常的动态 loss scaling（"Gradient overflow. Skipping step"、"OVERFLOW! ... reducing to 32768"）以及偶尔一次 nan 梯度范数之后恢复为有限值，都不算发散。
package traindoc.rules.exec.nan_loss

import data.traindoc.lib.exec
import data.traindoc.lib.k8s

# The training code or framework stopping on a non-finite loss
# (detectron2 FloatingPointError, TF "Model diverged", Keras
# TerminateOnNaN, Lightning, Megatron's NaN checks).
signatures contains {
	"id": "exec.nan-loss.stop",
	"pattern": `[Ll]oss (?:is|became|was) (?:NaN|nan|inf|Inf|-inf|infinite|not finite)|(?:NaN|nan|Inf|inf) (?:loss|detected in (?:the )?loss)|Detected (?:NaN|nan|inf|Inf) (?:loss|in|values)|returned in .?training_step.? is (?:nan|inf|NaN)|found (?:NaN|Inf|nan|inf) in (?:local )?(?:grad norm|forward loss)|Model diverged with loss = NaN|Invalid loss, terminating training|non-finite loss, ending training`,
}

# Autograd anomaly mode.
signatures contains {
	"id": "exec.nan-loss.anomaly",
	"pattern": `returned nan values in its \d+(?:th|st|nd|rd) output`,
}

# fp16 loss scaling that has given up (plain "Gradient overflow. Skipping
# step" is normal and not matched).
signatures contains {
	"id": "exec.nan-loss.scale",
	"pattern": `Current loss scale already at minimum|Minimum loss scale reached|loss scale (?:reached|hit) (?:its )?minimum`,
}

# DeepSpeed's loss scaler at its floor, and any of its overflows.
signatures contains {"id": "ctx.nan-loss.scale-floor", "pattern": `OVERFLOW! Rank \d+ Skipping step\. Attempted loss scale: 1(?:\.0)?, reducing to 1(?:\.0)?\b`}

signatures contains {"id": "ctx.nan-loss.overflow", "pattern": `OVERFLOW! Rank \d+ Skipping step`}

# The metrics the progress patterns track (lib/progress.rego) that say
# training diverged when they stay bad: how many reports in a row up to
# the last one must be bad, and what it means. A loss or grad norm is bad
# when nan or inf (a scaler that skips a few steps and recovers, an
# isolated nan grad norm, are harmless); Megatron's counters when not
# zero.
_metrics := [
	{
		"name": "loss", "run": "nonFiniteRun", "since": "nonFiniteSince", "min": 3,
		"detail": "the logged loss is NaN or Inf and has not recovered",
		"detail_zh": "记录的 loss 为 NaN 或 Inf，且没有恢复",
	},
	{
		"name": "grad_norm", "run": "nonFiniteRun", "since": "nonFiniteSince", "min": 3,
		"detail": "the gradient norm is NaN or Inf and has not recovered",
		"detail_zh": "梯度范数为 NaN 或 Inf，且没有恢复",
	},
	{
		"name": "nan_iters", "run": "nonZeroRun", "since": "nonZeroSince", "min": 2,
		"detail": "every report since has NaN iterations",
		"detail_zh": "此后每次报告都有 NaN 迭代",
	},
	{
		"name": "skipped_iters", "run": "nonZeroRun", "since": "nonZeroSince", "min": 5,
		"detail": "every report since skips iterations (the fp16 loss scale cannot recover)",
		"detail_zh": "此后每次报告都跳过迭代（fp16 的 loss scale 无法恢复）",
	},
]

_detail := {
	"exec.nan-loss.stop": {"en": "the loss became NaN or Inf", "zh": "loss 变成了 NaN 或 Inf"},
	"exec.nan-loss.anomaly": {"en": "autograd anomaly detection found NaN", "zh": "autograd 异常检测发现了 NaN"},
	"exec.nan-loss.scale": {
		"en": "the fp16 loss scale reached its minimum (gradients overflow every step)",
		"zh": "fp16 的 loss scale 已降到最小值（每一步梯度都溢出）",
	},
}

# Explicit stops. Training keeps logging after a NaN, so progress
# afterwards does not make them harmless; a line that says it skips the
# batch does.
_stops(c) := [pair[1] |
	some pair in sort([[[object.get(m, "firstTime", ""), m.firstLine], {"log": lf, "id": id, "m": m}] |
		some lf in exec.logs(c)
		some id in object.keys(_detail)
		m := lf.matches[id]
		_stop(m)
	])
]

_stop(m) if {
	some s in m.samples
	not regex.match(`(?i)skip`, s.text)
}

findings contains f if {
	input.phase != "Succeeded"
	some pod in input.pods
	some c in k8s.containers(pod)
	hs := _stops(c)
	count(hs) > 0
	f := {
		"subject": exec.subject(pod, c),
		"params": {"detail": _detail[hs[0].id].en, "detail_zh": _detail[hs[0].id].zh},
		"evidence": exec.evidence(pod, c, hs),
		"time": exec.hit_time(c, hs[0]),
	}
}

# A metric that went bad and stayed bad up to its last report, while the
# job may still be stepping: the first bad report of the run and the
# last one.
_diverged(lf, m) := [since, t.last] if {
	t := lf.progress.metrics[m.name]
	t[m.run] >= m.min
	since := t[m.since]
}

# DeepSpeed: the latest overflow happened at the floor, and not once.
_floor(lf) := ss if {
	floor := lf.matches["ctx.nan-loss.scale-floor"]
	floor.count >= 3
	floor.lastLine >= lf.matches["ctx.nan-loss.overflow"].lastLine
	ss := floor.samples
}

_metric(c) := array.concat(
	[object.union(m, {"log": lf, "samples": ss}) |
		some lf in exec.logs(c)
		some m in _metrics
		ss := _diverged(lf, m)
	],
	[{
		"log": lf, "samples": ss,
		"detail": "the fp16 loss scale is stuck at its minimum (every step overflows)",
		"detail_zh": "fp16 的 loss scale 卡在最小值（每一步都溢出）",
	} |
		some lf in exec.logs(c)
		ss := _floor(lf)
	],
)

findings contains f if {
	input.phase != "Succeeded"
	some pod in input.pods
	some c in k8s.containers(pod)
	count(_stops(c)) == 0
	ms := _metric(c)
	count(ms) > 0
	first := ms[0]
	s := first.samples[0]
	f := {
		"subject": exec.subject(pod, c),
		"params": object.union({"detail": first.detail, "detail_zh": first.detail_zh}, _step(s)),
		# Several metrics usually go bad on the same lines: each line once.
		"evidence": sort({_sample_ev(pod, c, m.log, s2) | some m in ms; some s2 in array.slice(m.samples, 0, 2)}),
		"time": _time(c, first.log, s),
	}
}

_step(s) := {"step": sprintf("%d", [s.step])} if is_number(s.step)

else := {}

_time(c, lf, s) := s.time if object.get(s, "time", "") != ""

else := exec.finished_at(c, lf)

_sample_ev(pod, c, lf, s) := {
	"kind": "log",
	"source": sprintf("pod %s container %s", [pod.name, c.name]),
	"object": k8s.pod_ref(pod),
	"file": lf.file,
	"line": s.line,
	"text": s.text,
	"time": object.get(s, "time", ""),
}
