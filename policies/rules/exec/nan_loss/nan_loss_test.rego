package traindoc.rules.exec.nan_loss_test

import data.traindoc.lib.testing
import data.traindoc.rules.exec.nan_loss

test_fires_on_stop_message if {
	pod := testing.pod(testing.failed, {"exec.nan-loss.stop": testing.match("Loss is nan, stopping training")}, {})
	fs := nan_loss.findings with input as {"phase": "Failed", "pods": [pod]}
	some f in fs
	f.params.detail == "the loss became NaN or Inf"
}

# A metric track as the scanner gives it: reports up to line `last`,
# ending with `run` bad ones since line `since`.
_track(run_key, since_key, run, since, last, text) := {
	"reports": 50, "nonFinite": run,
	"last": {"line": last, "time": "2026-03-01T09:59:00Z", "text": text},
	run_key: run,
	since_key: {"line": since, "time": "2026-03-01T09:40:00Z", "step": 540, "text": text},
}

_nonfinite(run, since, last, text) := _track("nonFiniteRun", "nonFiniteSince", run, since, last, text)

_nonzero(run, since, last, text) := _track("nonZeroRun", "nonZeroSince", run, since, last, text)

_recovered := {"reports": 80, "nonFinite": 2, "nonFiniteRun": 0, "nonZeroRun": 80, "last": {"line": 480, "text": "x", "value": 0.18}}

# Hugging Face Trainer: grad_norm nan in every report since step 540
# (the loss reads 0.0, the weights are NaN), steps still advance.
test_fires_on_persistent_nan_grad_norm if {
	text := "{'loss': 0.0, 'grad_norm': nan, 'learning_rate': 5e-05, 'epoch': 0.57}"
	pod := testing.pod(testing.running, {}, {"lastStepLine": 490, "metrics": {"grad_norm": _nonfinite(8, 400, 480, text), "loss": _recovered}})
	fs := nan_loss.findings with input as {"phase": "Running", "pods": [pod]}
	some f in fs
	f.params.detail == "the gradient norm is NaN or Inf and has not recovered"
	f.params.step == "540"
	f.time == "2026-03-01T09:40:00Z"
	{e.line | some e in f.evidence} == {400, 480}
}

# An isolated nan grad norm (an fp16 overflow the scaler skipped) followed
# by finite values is harmless, and so are two bad reports in a row.
test_quiet_on_isolated_nan_grad_norm if {
	pod := testing.pod(testing.running, {}, {"lastStepLine": 490, "metrics": {"grad_norm": _recovered}})
	count(nan_loss.findings) == 0 with input as {"phase": "Running", "pods": [pod]}
	pod2 := testing.pod(testing.running, {}, {"metrics": {"grad_norm": _nonfinite(2, 470, 480, "{'loss': 1.2, 'grad_norm': nan}")}})
	count(nan_loss.findings) == 0 with input as {"phase": "Running", "pods": [pod2]}
}

# Megatron: nan iterations counted in every report since the last clean
# one; the loss and grad norm on the same lines are one piece of evidence.
test_fires_on_megatron_nan_iterations if {
	text := " iteration      320/   10000 | lm loss: NAN | grad norm: nan | number of skipped iterations:   0 | number of nan iterations:  10 |"
	metrics := {
		"nan_iters": _nonzero(3, 300, 320, text),
		"loss": _nonfinite(3, 300, 320, text),
		"grad_norm": _nonfinite(3, 300, 320, text),
		"skipped_iters": {"reports": 32, "nonFinite": 0, "nonFiniteRun": 0, "nonZeroRun": 0, "last": {"line": 320, "text": text, "value": 0}},
	}
	pod := testing.pod(testing.running, {}, {"metrics": metrics})
	some f in nan_loss.findings with input as {"phase": "Running", "pods": [pod]}
	count(f.evidence) == 2
}

# The fp16 loss scaler skipping one report and recovering is harmless;
# skipping in five reports in a row is not.
test_quiet_skipped_iterations if {
	quiet := testing.pod(testing.running, {}, {"metrics": {"skipped_iters": _nonzero(1, 50, 50, " iteration 5/ 100 | number of skipped iterations:   5 |")}})
	count(nan_loss.findings) == 0 with input as {"phase": "Running", "pods": [quiet]}
	bad := testing.pod(testing.running, {}, {"metrics": {"skipped_iters": _nonzero(5, 50, 90, " iteration 90/ 100 | number of skipped iterations:  10 |")}})
	some f in nan_loss.findings with input as {"phase": "Running", "pods": [bad]}
	startswith(f.params.detail, "every report since skips iterations")
}

# DeepSpeed's scaler stuck at 1: every step overflows.
test_fires_on_scale_floor if {
	floor := _mm(30, 100, 400, ["[deepscale] OVERFLOW! Rank 0 Skipping step. Attempted loss scale: 1, reducing to 1"])
	pod := testing.pod(testing.running, {"ctx.nan-loss.scale-floor": floor, "ctx.nan-loss.overflow": _mm(47, 20, 400, ["x"])}, {})
	some f in nan_loss.findings with input as {"phase": "Running", "pods": [pod]}
}

_mm(n, first, last, texts) := {"count": n, "firstLine": first, "lastLine": last, "samples": [{"line": first + i, "text": t} | some i, t in texts]}

# Dynamic loss scaling skipping a step is normal fp16 behaviour.
test_quiet_on_gradient_overflow if {
	not regex.match(testing.pattern(nan_loss.signatures, "exec.nan-loss.stop"), "Gradient overflow.  Skipping step, loss scaler 0 reducing loss scale to 32768.0")
	not regex.match(testing.pattern(nan_loss.signatures, "exec.nan-loss.scale"), "[deepspeed] OVERFLOW! Rank 0 Skipping step. Attempted loss scale: 65536, reducing to 32768")
	not regex.match(testing.pattern(nan_loss.signatures, "exec.nan-loss.stop"), " iteration      100/   10000 | lm loss: 5.1E+00 | loss scale: 65536.0 | number of skipped iterations:   0 | number of nan iterations:   0 |")
	not regex.match(testing.pattern(nan_loss.signatures, "ctx.nan-loss.scale-floor"), "[deepspeed] OVERFLOW! Rank 0 Skipping step. Attempted loss scale: 65536, reducing to 32768")
	pod := testing.pod(testing.running, {"ctx.nan-loss.overflow": _mm(6, 20, 80, ["[deepspeed] OVERFLOW! Rank 0 Skipping step. Attempted loss scale: 65536, reducing to 32768"])}, {"lastStepLine": 480})
	count(nan_loss.findings) == 0 with input as {"phase": "Running", "pods": [pod]}
}

# A job that finished is not diverged, whatever its last reports say.
test_quiet_when_succeeded if {
	pod := testing.pod(testing.running, {}, {"metrics": {"loss": _nonfinite(9, 400, 480, "loss: nan")}})
	count(nan_loss.findings) == 0 with input as {"phase": "Succeeded", "pods": [pod]}
}

test_fires_signatures if {
	regex.match(testing.pattern(nan_loss.signatures, "exec.nan-loss.anomaly"), "RuntimeError: Function 'LogSoftmaxBackward0' returned nan values in its 0th output.")
	regex.match(testing.pattern(nan_loss.signatures, "exec.nan-loss.scale"), "Exception: Current loss scale already at minimum - cannot decrease scale anymore. Exiting run.")
	regex.match(testing.pattern(nan_loss.signatures, "exec.nan-loss.scale"), "FloatingPointError: Minimum loss scale reached (0.0001). Your loss is probably exploding.")
	regex.match(testing.pattern(nan_loss.signatures, "exec.nan-loss.stop"), "FloatingPointError: Loss became infinite or NaN at iteration=166!")
}
