package traindoc.rules.progress.throughput_drop_test

import data.traindoc.rules.progress.throughput_drop

_job(tp) := {"kind": "PyTorchJob", "name": "gpt", "namespace": "ml", "phase": "Running", "now": "2026-03-01T12:00:00Z", "progress": {"known": true, "throughput": tp}, "pods": []}

test_fires_on_drop if {
	fs := throughput_drop.findings with input as _job({"unit": "samples/s", "samples": 40, "baseline": 148.9, "recent": 52.3, "last": 51, "recentSince": "2026-03-01T11:00:00Z"})
	some f in fs
	f.params == {"unit": "samples/s", "baseline": "149", "recent": "52.3", "percent": 35}
	f.time == "2026-03-01T11:00:00Z"
}

test_quiet_on_small_dip if {
	count(throughput_drop.findings) == 0 with input as _job({"unit": "samples/s", "samples": 40, "baseline": 148.9, "recent": 140.1})
}

test_quiet_with_few_samples if {
	count(throughput_drop.findings) == 0 with input as _job({"unit": "it/s", "samples": 3, "baseline": 2, "recent": 0.5})
}
