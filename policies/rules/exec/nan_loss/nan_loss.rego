# METADATA
# title: Training diverged (loss is NaN or Inf)
# description: |
#   The loss became NaN or infinite: progress lines show nan/inf loss, the
#   training code stopped with "Loss is nan", anomaly detection reported a
#   function returning nan, Megatron counted nan iterations, or the fp16 loss
#   scale hit its minimum. Normal dynamic loss scaling ("Gradient overflow.
#   Skipping step", "OVERFLOW!") alone is not divergence.
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
#       loss 变成了 NaN 或无穷大：进度行显示 nan/inf loss，训练代码以 "Loss is nan" 停止，异常检测报告函数返回 nan，Megatron 统计到 nan 迭代，或 fp16 的 loss scale 降到最小值。仅有正常的动态 loss scaling（"Gradient overflow. Skipping step"、"OVERFLOW!"）不算发散。
package traindoc.rules.exec.nan_loss

import data.traindoc.lib.exec
import data.traindoc.lib.k8s

# The training code or framework stopping on, or reporting, a non-finite loss.
signatures contains {
	"id": "exec.nan-loss.stop",
	"pattern": `[Ll]oss (?:is|became|was) (?:NaN|nan|inf|Inf|-inf|infinite|not finite)|(?:NaN|nan|Inf|inf) (?:loss|detected in (?:the )?loss)|Detected (?:NaN|nan|inf|Inf) (?:loss|in|values)|returned in .?training_step.? is (?:nan|inf|NaN)|'(?:loss|train_loss|grad_norm)': (?:nan|inf|-inf)\b|number of nan iterations:\s*[1-9]|found NaN in (?:local )?grad norm`,
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

_detail := {
	"exec.nan-loss.stop": "the loss became NaN or Inf",
	"exec.nan-loss.anomaly": "autograd anomaly detection found NaN",
	"exec.nan-loss.scale": "the fp16 loss scale reached its minimum (gradients overflow every step)",
}

findings contains f if {
	input.phase != "Succeeded"
	some pod in input.pods
	some c in k8s.containers(pod)
	hs := _hits(c)
	count(hs) > 0
	f := {
		"subject": exec.subject(pod, c),
		"params": {"detail": _detail[hs[0].id]},
		"evidence": exec.evidence(pod, c, hs),
		"time": exec.hit_time(c, hs[0]),
	}
}

# Training keeps logging after a NaN, so progress afterwards does not make
# it harmless.
_hits(c) := [pair[1] |
	some pair in sort([[[object.get(m, "firstTime", ""), m.firstLine], {"log": lf, "id": id, "m": m}] |
		some lf in exec.logs(c)
		some id in object.keys(_detail)
		m := lf.matches[id]
	])
]

# Non-finite loss values read by the progress patterns.
findings contains f if {
	input.phase != "Succeeded"
	some pod in input.pods
	some c in k8s.containers(pod)
	count(_hits(c)) == 0
	some lf in exec.logs(c)
	n := object.get(lf, ["progress", "nonFiniteLoss"], 0)
	n > 0
	f := {
		"subject": exec.subject(pod, c),
		"params": {"detail": "the loss became NaN or Inf"},
		"evidence": [{
			"kind": "log",
			"source": sprintf("pod %s container %s", [pod.name, c.name]),
			"object": k8s.pod_ref(pod),
			"file": lf.file,
			"text": sprintf("%d logged loss values were NaN or Inf (last step %v)", [n, object.get(lf, ["progress", "lastStep"], "?")]),
			"time": object.get(lf, ["progress", "lastStepTime"], ""),
		}],
		"time": object.get(lf, ["progress", "lastStepTime"], ""),
	}
}
