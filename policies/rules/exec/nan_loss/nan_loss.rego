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
#     en: "Training diverged: {{.detail}}."
#     zh: "训练发散：{{.detail}}。"
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
	"hint": "returned nan values",
}

# fp16 loss scaling that has given up (plain "Gradient overflow. Skipping
# step" is normal and not matched).
signatures contains {
	"id": "exec.nan-loss.scale",
	"pattern": `Current loss scale already at minimum|Minimum loss scale reached|loss scale (?:reached|hit) (?:its )?minimum`,
}

# Metric reports, each with its finite counterpart: a bad value counts
# only while no good one has been logged since (a scaler that skips a few
# steps and recovers, an isolated nan grad norm, are harmless). Context
# ids: the rule, not the match, decides.
_metric_re(key, value) := sprintf(`(?i)(?:^|[^\w])%s'?(?:\s*[:=]\s*|\s+)'?(?:tensor\()?%s`, [key, value])

_loss_key := `(?:train[_/]|lm |reduced_train_|total_|avg_|mean_)?loss`

_grad_key := `grad[_ ]norm`

_bad := `[-+]?(?:nan|inf)\b`

_good := `[-+]?\d`

signatures contains {"id": "ctx.nan-loss.loss-bad", "pattern": _metric_re(_loss_key, _bad), "context": _ctx}

signatures contains {"id": "ctx.nan-loss.loss-good", "pattern": _metric_re(_loss_key, _good)}

signatures contains {"id": "ctx.nan-loss.grad-bad", "pattern": _metric_re(_grad_key, _bad), "context": _ctx}

signatures contains {"id": "ctx.nan-loss.grad-good", "pattern": _metric_re(_grad_key, _good)}

# Megatron's per-report counters.
signatures contains {"id": "ctx.nan-loss.nan-iters", "pattern": _nan_iters, "context": _ctx}

signatures contains {"id": "ctx.nan-loss.no-nan-iters", "pattern": _no_nan_iters}

signatures contains {"id": "ctx.nan-loss.skipped-iters", "pattern": _skipped, "context": _ctx}

signatures contains {"id": "ctx.nan-loss.no-skipped-iters", "pattern": _no_skipped}

# DeepSpeed's loss scaler at its floor, and any of its overflows.
signatures contains {"id": "ctx.nan-loss.scale-floor", "pattern": `OVERFLOW! Rank \d+ Skipping step\. Attempted loss scale: 1(?:\.0)?, reducing to 1(?:\.0)?\b`}

signatures contains {"id": "ctx.nan-loss.overflow", "pattern": `OVERFLOW! Rank \d+ Skipping step`}

_nan_iters := `number of nan iterations:\s*[1-9]`

_no_nan_iters := `number of nan iterations:\s*0\b`

_skipped := `number of skipped iterations:\s*[1-9]`

_no_skipped := `number of skipped iterations:\s*0\b`

# The lines before a bad report that the scanner keeps: the scanner keeps
# only the first few reports and the last, so the reports just before the
# last one are read from its context.
_ctx := 40

_patterns := {
	"ctx.nan-loss.loss-bad": _metric_re(_loss_key, _bad),
	"ctx.nan-loss.loss-good": _metric_re(_loss_key, _good),
	"ctx.nan-loss.grad-bad": _metric_re(_grad_key, _bad),
	"ctx.nan-loss.grad-good": _metric_re(_grad_key, _good),
	"ctx.nan-loss.nan-iters": _nan_iters,
	"ctx.nan-loss.no-nan-iters": _no_nan_iters,
	"ctx.nan-loss.skipped-iters": _skipped,
	"ctx.nan-loss.no-skipped-iters": _no_skipped,
}

# bad, good, how many bad reports since the last good one make it
# divergence, and what it means.
_pairs := [
	{"bad": "ctx.nan-loss.loss-bad", "good": "ctx.nan-loss.loss-good", "min": 3, "detail": "the logged loss is NaN or Inf and has not recovered"},
	{"bad": "ctx.nan-loss.grad-bad", "good": "ctx.nan-loss.grad-good", "min": 3, "detail": "the gradient norm is NaN or Inf and has not recovered"},
	{"bad": "ctx.nan-loss.nan-iters", "good": "ctx.nan-loss.no-nan-iters", "min": 2, "detail": "every report since has NaN iterations"},
	{"bad": "ctx.nan-loss.skipped-iters", "good": "ctx.nan-loss.no-skipped-iters", "min": 5, "detail": "every report since skips iterations (the fp16 loss scale cannot recover)"},
]

_detail := {
	"exec.nan-loss.stop": "the loss became NaN or Inf",
	"exec.nan-loss.anomaly": "autograd anomaly detection found NaN",
	"exec.nan-loss.scale": "the fp16 loss scale reached its minimum (gradients overflow every step)",
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
		"params": {"detail": _detail[hs[0].id]},
		"evidence": exec.evidence(pod, c, hs),
		"time": exec.hit_time(c, hs[0]),
	}
}

# A metric that went bad and stayed bad, while the job may still be
# stepping.
_diverged(lf, p) := ss if {
	bad := lf.matches[p.bad]
	good_last := object.get(lf.matches, [p.good, "lastLine"], 0)
	_since(bad, p, good_last) >= p.min
	ss := [s | some s in bad.samples; s.line > good_last]
}

_since(bad, p, good_last) := bad.count if bad.firstLine > good_last

else := max({
	count([s | some s in bad.samples; s.line > good_last]),
	_run_before_last(bad, p, good_last),
})

# The bad reports in a row that end with the last one, counted in its
# context: 1 for the last one, plus those before it since the latest good
# report there.
_run_before_last(bad, p, good_last) := n if {
	last := bad.samples[count(bad.samples) - 1]
	last.line > good_last
	before := object.get(last, "before", [])
	goods := [i | some i, l in before; regex.match(_patterns[p.good], l)]
	from := _after_last(goods)
	n := 1 + count([i | some i, l in before; i >= from; regex.match(_patterns[p.bad], l)])
} else := 0

_after_last(goods) := 0 if count(goods) == 0

else := max(goods) + 1

# DeepSpeed: the latest overflow happened at the floor, and not once.
_floor(lf) := ss if {
	floor := lf.matches["ctx.nan-loss.scale-floor"]
	floor.count >= 3
	floor.lastLine >= lf.matches["ctx.nan-loss.overflow"].lastLine
	ss := floor.samples
}

_metric(c) := array.concat(
	[{"log": lf, "samples": ss, "detail": p.detail} |
		some lf in exec.logs(c)
		some p in _pairs
		ss := _diverged(lf, p)
		count(ss) > 0
	],
	[{"log": lf, "samples": ss, "detail": "the fp16 loss scale is stuck at its minimum (every step overflows)"} |
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
		"params": {"detail": first.detail},
		"evidence": [_sample_ev(pod, c, m.log, s2) | some m in ms; some s2 in array.slice(m.samples, 0, 2)],
		"time": _time(c, first.log, s),
	}
}

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
