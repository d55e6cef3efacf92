package traindoc.rules.job.replica_mismatch_test

import data.traindoc.rules.job.replica_mismatch

_group(t, expected, created, running) := {"type": t, "expected": expected, "created": created, "pending": created - running, "running": running, "succeeded": 0, "failed": 0}

_job(phase, groups) := {
	"kind": "PyTorchTrainingJob", "name": "glm4", "namespace": "demo", "phase": phase,
	"createdAt": "2026-02-03T02:00:00Z", "now": "2026-02-03T03:30:00Z",
	"replicas": groups, "pods": [{"name": "glm4-worker-0"}, {"name": "glm4-worker-1"}],
	"status": {"counts": {"creating": 2, "running": 2, "pending": 0, "deleted": 0}},
}

test_fires_two_of_four_workers if {
	fs := replica_mismatch.findings with input as _job("Running", [object.union(_group("worker", 4, 2, 2), {"minReplicas": 2, "maxReplicas": 4})])
	count(fs) == 1
	some f in fs
	f.params == {"group": "worker", "expected": 4, "created": 2, "running": 2, "controller": ""}
	f.subject == {"kind": "PyTorchTrainingJob", "name": "glm4"}
}

test_fires_aggregate_only if {
	fs := replica_mismatch.findings with input as _job("Running", [])
	some f in fs
	f.params.controller == "creating=2"
	f.params.running == 2
}

test_quiet_cleaned_up_or_young_silent if {
	done := object.union(_job("Succeeded", [_group("worker", 4, 0, 0)]), {"status": {"counts": {"succeeded": 4}}})
	count(replica_mismatch.findings) == 0 with input as done
	young := object.union(_job("Pending", [_group("worker", 4, 0, 0)]), {"now": "2026-02-03T02:02:00Z"})
	count(replica_mismatch.findings) == 0 with input as young
}

test_quiet_full_job_silent if {
	j := object.remove(_job("Running", [_group("Master", 1, 1, 1), _group("Worker", 3, 3, 3)]), {"status"})
	count(replica_mismatch.findings) == 0 with input as j
}
