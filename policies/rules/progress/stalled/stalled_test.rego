package traindoc.rules.progress.stalled_test

import data.traindoc.rules.progress.stalled

_job(progress) := {"kind": "PyTorchJob", "name": "gpt", "namespace": "ml", "phase": "Running", "now": "2026-03-01T12:00:00Z", "progress": progress, "pods": []}

test_fires_when_steps_and_logs_stopped if {
	fs := stalled.findings with input as _job({"known": true, "lastStep": 812, "lastStepTime": "2026-03-01T10:30:00Z", "lastLogTime": "2026-03-01T10:31:00Z"})
	count(fs) == 1
	some f in fs
	f.params.minutes == 90
	f.params.basis == {"en": "step", "zh": "一个训练步"}
	f.severity == "error"
	f.subject == {"kind": "PyTorchJob", "name": "gpt"}
}

test_fires_warning_when_logs_still_move if {
	fs := stalled.findings with input as _job({"known": true, "lastStep": 812, "lastStepTime": "2026-03-01T10:30:00Z", "lastLogTime": "2026-03-01T11:55:00Z"})
	some f in fs
	f.severity == "warning"
}

test_quiet_when_recent if {
	count(stalled.findings) == 0 with input as _job({"known": true, "lastStep": 812, "lastStepTime": "2026-03-01T11:50:00Z"})
}

test_quiet_when_finished if {
	count(stalled.findings) == 0 with input as object.union(_job({"known": true, "lastStepTime": "2026-03-01T01:00:00Z"}), {"phase": "Succeeded"})
}
