package traindoc.rules.progress.checkpoint_stale_test

import data.traindoc.rules.progress.checkpoint_stale

_job(progress, exec) := {
	"kind": "RayJob", "name": "grpo", "namespace": "ml", "phase": "Running", "now": "2026-03-01T12:00:00Z",
	"status": {"startTime": "2026-03-01T02:00:00Z"},
	"progress": progress,
	"pods": [{"name": "head", "namespace": "ml", "phase": "Running", "containers": [], "conditions": [], "exec": exec}],
}

test_fires_when_steps_far_ahead if {
	ck := {"file": "exec/head/checkpoints.txt", "steps": [100, 500], "latestStep": 500}
	fs := checkpoint_stale.findings with input as _job({"known": true, "lastStep": 9000, "lastStepTime": "2026-03-01T11:59:00Z"}, {"checkpoints": ck})
	count(fs) == 1
	some f in fs
	f.params.detail == {"en": "the newest checkpoint (step 500) is 8500 steps behind the current step", "zh": "最新检查点（step 500）落后当前 step 8500 步"}
}

test_fires_when_old if {
	ck := {"file": "exec/head/checkpoints.txt", "steps": [500], "latestStep": 500, "latestTime": "2026-03-01T03:00:00Z"}
	fs := checkpoint_stale.findings with input as _job({"known": true, "lastStep": 900, "lastStepTime": "2026-03-01T11:59:00Z"}, {"checkpoints": ck})
	count(fs) == 1
}

test_fires_when_none_after_hours if {
	ck := {"file": "exec/head/checkpoints.txt", "steps": []}
	fs := checkpoint_stale.findings with input as _job({"known": true, "lastStep": 900}, {"checkpoints": ck})
	count(fs) == 1
}

test_quiet_when_recent if {
	ck := {"file": "exec/head/checkpoints.txt", "steps": [8500, 9000], "latestStep": 9000, "latestTime": "2026-03-01T11:50:00Z"}
	count(checkpoint_stale.findings) == 0 with input as _job({"known": true, "lastStep": 9100, "lastStepTime": "2026-03-01T11:59:00Z"}, {"checkpoints": ck})
}

test_quiet_without_listing if {
	count(checkpoint_stale.findings) == 0 with input as _job({"known": true, "lastStep": 9100}, {})
}
