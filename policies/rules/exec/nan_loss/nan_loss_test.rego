package traindoc.rules.exec.nan_loss_test

import data.traindoc.rules.exec.nan_loss

_pod(state, matches, progress) := {
	"name": "w-2", "namespace": "ml", "phase": "Running", "nodeName": "node-a", "conditions": [],
	"containers": [{
		"name": "main", "restartCount": 0, "state": state, "lastState": {},
		"logs": [{
			"file": "logs/w-2/main.log", "previous": false, "lines": 500, "matches": matches,
			"tail": ["x"], "progress": progress, "exception": "",
		}],
	}],
}

_failed := {"state": "terminated", "reason": "Error", "exitCode": 1, "finishedAt": "2026-03-01T10:00:00Z"}

_running := {"state": "running"}

_m(text) := {"count": 1, "firstLine": 100, "lastLine": 100, "firstTime": "2026-03-01T09:59:00Z", "samples": [{"line": 100, "time": "2026-03-01T09:59:00Z", "text": text}]}

_re(id) := s.pattern if {
	some s in nan_loss.signatures
	s.id == id
}

test_fires_on_stop_message if {
	pod := _pod(_failed, {"exec.nan-loss.stop": _m("Loss is nan, stopping training")}, {})
	fs := nan_loss.findings with input as {"phase": "Failed", "pods": [pod]}
	some f in fs
	f.params.detail == "the loss became NaN or Inf"
}

_mm(n, first, last, texts) := {"count": n, "firstLine": first, "lastLine": last, "samples": [{"line": first + i, "text": t} | some i, t in texts]}

# Hugging Face Trainer: grad_norm nan in every report since step 540
# (the loss reads 0.0, the weights are NaN), steps still advance.
test_fires_on_persistent_nan_grad_norm if {
	pod := _pod(
		_running, {
			"ctx.nan-loss.grad-bad": _mm(40, 400, 480, ["{'loss': 0.0, 'grad_norm': nan, 'learning_rate': 5e-05, 'epoch': 0.54}", "{'loss': 0.0, 'grad_norm': nan, 'learning_rate': 5e-05, 'epoch': 0.55}", "{'loss': 0.0, 'grad_norm': nan, 'learning_rate': 5e-05, 'epoch': 0.57}"]),
			"ctx.nan-loss.grad-good": _mm(300, 10, 390, ["{'loss': 1.2, 'grad_norm': 0.8, 'learning_rate': 5e-05, 'epoch': 0.1}"]),
			"ctx.nan-loss.loss-good": _mm(340, 10, 480, ["{'loss': 0.0, 'grad_norm': nan, 'learning_rate': 5e-05, 'epoch': 0.57}"]),
		},
		{"lastStepLine": 490},
	)
	fs := nan_loss.findings with input as {"phase": "Running", "pods": [pod]}
	some f in fs
	f.params.detail == "the gradient norm is NaN or Inf and has not recovered"
}

# An isolated nan grad norm (an fp16 overflow the scaler skipped) followed
# by finite values is harmless.
test_not_on_isolated_nan_grad_norm if {
	pod := _pod(
		_running, {
			"ctx.nan-loss.grad-bad": _mm(2, 40, 150, ["{'loss': 0.1474, 'grad_norm': nan, 'learning_rate': 0.0001, 'epoch': 0.04}", "{'loss': 0.1819, 'grad_norm': nan, 'learning_rate': 0.0001, 'epoch': 0.15}"]),
			"ctx.nan-loss.grad-good": _mm(300, 10, 480, ["{'loss': 0.1549, 'grad_norm': 0.18, 'learning_rate': 0.0001, 'epoch': 0.08}"]),
		},
		{"lastStepLine": 490},
	)
	count(nan_loss.findings) == 0 with input as {"phase": "Running", "pods": [pod]}
}

# Megatron: nan iterations counted in every report since the last clean one.
test_fires_on_megatron_nan_iterations if {
	pod := _pod(
		_running, {
			"ctx.nan-loss.nan-iters": _mm(3, 300, 320, [" iteration      300/   10000 | lm loss: NAN | number of skipped iterations:   0 | number of nan iterations:  10 |"]),
			"ctx.nan-loss.no-nan-iters": _mm(29, 10, 290, [" iteration      290/   10000 | lm loss: 5.1E+00 | number of skipped iterations:   0 | number of nan iterations:   0 |"]),
		},
		{},
	)
	some f in nan_loss.findings with input as {"phase": "Running", "pods": [pod]}
}

# DeepSpeed's scaler stuck at 1: every step overflows.
test_fires_on_scale_floor if {
	floor := _mm(30, 100, 400, ["[deepscale] OVERFLOW! Rank 0 Skipping step. Attempted loss scale: 1, reducing to 1"])
	pod := _pod(_running, {"ctx.nan-loss.scale-floor": floor, "ctx.nan-loss.overflow": _mm(47, 20, 400, ["x"])}, {})
	some f in nan_loss.findings with input as {"phase": "Running", "pods": [pod]}
}

# Dynamic loss scaling skipping a step is normal fp16 behaviour.
test_not_on_gradient_overflow if {
	not regex.match(_re("exec.nan-loss.stop"), "Gradient overflow.  Skipping step, loss scaler 0 reducing loss scale to 32768.0")
	not regex.match(_re("exec.nan-loss.scale"), "[deepspeed] OVERFLOW! Rank 0 Skipping step. Attempted loss scale: 65536, reducing to 32768")
	not regex.match(_re("exec.nan-loss.stop"), " iteration      100/   10000 | lm loss: 5.1E+00 | loss scale: 65536.0 | number of skipped iterations:   0 | number of nan iterations:   0 |")
	not regex.match(_re("ctx.nan-loss.scale-floor"), "[deepspeed] OVERFLOW! Rank 0 Skipping step. Attempted loss scale: 65536, reducing to 32768")
	pod := _pod(_running, {"ctx.nan-loss.overflow": _mm(6, 20, 80, ["[deepspeed] OVERFLOW! Rank 0 Skipping step. Attempted loss scale: 65536, reducing to 32768"])}, {"lastStepLine": 480})
	count(nan_loss.findings) == 0 with input as {"phase": "Running", "pods": [pod]}
}

test_signatures if {
	regex.match(_re("ctx.nan-loss.loss-bad"), "{'loss': nan, 'grad_norm': nan, 'learning_rate': 1.9e-05, 'epoch': 0.4}")
	regex.match(_re("ctx.nan-loss.grad-bad"), "{'loss': nan, 'grad_norm': nan, 'learning_rate': 1.9e-05, 'epoch': 0.4}")
	regex.match(_re("ctx.nan-loss.loss-bad"), " iteration      300/   10000 | lm loss: NAN | number of skipped iterations:   0 | number of nan iterations:   3 |")
	regex.match(_re("ctx.nan-loss.loss-bad"), "Epoch 0: : 12%|█▏| 1200/10000 [20:00<2:26:40, reduced_train_loss=nan, global_step=1199.0]")
	regex.match(_re("ctx.nan-loss.loss-good"), "2026-03-09 01:02:52,989 - cpt - INFO - step 10 | loss 3.0903 | lr 2.000e-04 | grad_norm 0.825 | loss_scale 65536.0")
	not regex.match(_re("ctx.nan-loss.loss-bad"), "iteration 10 | loss scale: inf |")
	not regex.match(_re("ctx.nan-loss.loss-good"), "Gradient overflow.  Skipping step, loss scaler 0 reducing loss scale to 32768.0")
	not regex.match(_re("ctx.nan-loss.loss-bad"), "{'eval_loss': nan, 'epoch': 1.0}")
	regex.match(_re("exec.nan-loss.anomaly"), "RuntimeError: Function 'LogSoftmaxBackward0' returned nan values in its 0th output.")
	regex.match(_re("exec.nan-loss.scale"), "Exception: Current loss scale already at minimum - cannot decrease scale anymore. Exiting run.")
	regex.match(_re("exec.nan-loss.scale"), "FloatingPointError: Minimum loss scale reached (0.0001). Your loss is probably exploding.")
	regex.match(_re("exec.nan-loss.stop"), "FloatingPointError: Loss became infinite or NaN at iteration=166!")
}

# Many early isolated nans use up the scanner's first samples; the final
# run of bad reports is read from the last sample's context.
test_fires_on_final_run_after_early_isolated_nans if {
	early := [{"line": 10 * i, "text": "{'loss': 1.9, 'grad_norm': nan, 'epoch': 0.01}"} | some i in numbers.range(1, 5)]
	last := {"line": 900, "text": "{'loss': 0.0, 'grad_norm': nan, 'epoch': 0.9}", "before": [
		"{'loss': 1.2, 'grad_norm': 0.7, 'epoch': 0.87}",
		" 87%|████████▋ | 870/1000 [1:00:00<09:00,  4.1s/it]",
		"{'loss': 0.0, 'grad_norm': nan, 'epoch': 0.88}",
		" 88%|████████▊ | 880/1000 [1:00:40<08:20,  4.1s/it]",
		"{'loss': 0.0, 'grad_norm': nan, 'epoch': 0.89}",
		" 89%|████████▉ | 890/1000 [1:01:20<07:40,  4.1s/it]",
	]}
	bad := {"count": 9, "firstLine": 10, "lastLine": 900, "samples": array.concat(early, [last])}
	pod := _pod(_running, {"ctx.nan-loss.grad-bad": bad, "ctx.nan-loss.grad-good": _mm(80, 5, 870, ["{'loss': 1.2, 'grad_norm': 0.7, 'epoch': 0.87}"])}, {})
	some f in nan_loss.findings with input as {"phase": "Running", "pods": [pod]}

	# Two bad reports after the last good one are not yet divergence.
	short := object.union(last, {"before": array.slice(last.before, 0, 4)})
	bad2 := object.union(bad, {"samples": array.concat(early, [short])})
	pod2 := _pod(_running, {"ctx.nan-loss.grad-bad": bad2, "ctx.nan-loss.grad-good": _mm(80, 5, 870, ["x"])}, {})
	count(nan_loss.findings) == 0 with input as {"phase": "Running", "pods": [pod2]}
}
