package traindoc.rules.job.pending_too_long_test

import data.traindoc.rules.job.pending_too_long

test_fires_pending_five_hours if {
	j := {"kind": "RayJob", "name": "bge", "namespace": "ray-batch", "phase": "Pending", "createdAt": "2026-03-01T06:00:00Z", "now": "2026-03-01T11:32:10Z"}
	fs := pending_too_long.findings with input as j
	count(fs) == 1
	some f in fs
	f.params == {"age": "5h32m", "threshold": "30m"}
	f.time == "2026-03-01T06:30:00Z"
}

test_fires_threshold_override if {
	j := {"kind": "PyTorchJob", "name": "x", "phase": "Pending", "createdAt": "2026-03-01T11:00:00Z", "now": "2026-03-01T11:10:00Z"}
	fs := pending_too_long.findings with input as j with data.settings.thresholds as {"pending_seconds": 300}
	some f in fs
	f.params.threshold == "5m"
}

test_quiet_young_or_running_silent if {
	young := {"kind": "PyTorchJob", "name": "x", "phase": "Pending", "createdAt": "2026-03-01T11:00:00Z", "now": "2026-03-01T11:10:00Z"}
	count(pending_too_long.findings) == 0 with input as young
	running := object.union(young, {"phase": "Running", "now": "2026-03-02T11:00:00Z"})
	count(pending_too_long.findings) == 0 with input as running
}

# The finding is dated when the wait became too long, after the scheduler's
# verdict, so that the engine's causal relation lets that verdict explain it
# (and, as a fallback category, drop it).
test_fires_dated_after_the_scheduling_failure if {
	msg := "0/8 nodes are available: 8 Insufficient nvidia.com/gpu."
	pod := {"name": "w-0", "namespace": "ml", "phase": "Pending", "containers": [], "conditions": [{"type": "PodScheduled", "status": "False", "reason": "Unschedulable", "message": msg, "lastTransitionTime": "2026-03-01T06:00:10Z"}]}
	j := {"kind": "PyTorchJob", "name": "x", "phase": "Pending", "createdAt": "2026-03-01T06:00:00Z", "now": "2026-03-01T11:32:10Z", "pods": [pod], "events": []}
	some f in pending_too_long.findings with input as j
	time.parse_rfc3339_ns(f.time) > time.parse_rfc3339_ns(pod.conditions[0].lastTransitionTime)
}
