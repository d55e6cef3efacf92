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

test_fires_on_progress_nonfinite if {
	pod := _pod(_running, {}, {"nonFiniteLoss": 12, "lastStep": 3400, "lastStepTime": "2026-03-01T09:00:00Z", "lastStepLine": 480})
	fs := nan_loss.findings with input as {"phase": "Running", "pods": [pod]}
	some f in fs
	f.time == "2026-03-01T09:00:00Z"
}

# Dynamic loss scaling skipping a step is normal fp16 behaviour.
test_not_on_gradient_overflow if {
	not regex.match(_re("exec.nan-loss.stop"), "Gradient overflow.  Skipping step, loss scaler 0 reducing loss scale to 32768.0")
	not regex.match(_re("exec.nan-loss.scale"), "[deepspeed] OVERFLOW! Rank 0 Skipping step. Attempted loss scale: 65536, reducing to 32768")
	not regex.match(_re("exec.nan-loss.stop"), " iteration      100/   10000 | lm loss: 5.1E+00 | loss scale: 65536.0 | number of skipped iterations:   0 | number of nan iterations:   0 |")
	pod := _pod(_running, {}, {"nonFiniteLoss": 0, "lastStepLine": 480})
	count(nan_loss.findings) == 0 with input as {"phase": "Running", "pods": [pod]}
}

test_signatures if {
	regex.match(_re("exec.nan-loss.stop"), "{'loss': nan, 'grad_norm': nan, 'learning_rate': 1.9e-05, 'epoch': 0.4}")
	regex.match(_re("exec.nan-loss.stop"), " iteration      300/   10000 | lm loss: nan | number of skipped iterations:   0 | number of nan iterations:   3 |")
	regex.match(_re("exec.nan-loss.anomaly"), "RuntimeError: Function 'LogSoftmaxBackward0' returned nan values in its 0th output.")
	regex.match(_re("exec.nan-loss.scale"), "Exception: Current loss scale already at minimum - cannot decrease scale anymore. Exiting run.")
	regex.match(_re("exec.nan-loss.scale"), "FloatingPointError: Minimum loss scale reached (0.0001). Your loss is probably exploding.")
}
