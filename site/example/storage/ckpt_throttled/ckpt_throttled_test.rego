package traindoc.rules.storage.ckpt_throttled_test

import data.traindoc.rules.storage.ckpt_throttled

_pod(matches) := {"name": "llama-worker-0", "containers": [{"name": "pytorch", "logs": [{"matches": matches}]}]}

test_fires_on_slowdown if {
	fs := ckpt_throttled.findings with input as {"pods": [_pod({"storage.ckpt-throttled": {"count": 3}})]}
	count(fs) == 1
	some f in fs
	f.params.count == 3
}

test_quiet_without_slowdown if {
	fs := ckpt_throttled.findings with input as {"pods": [_pod({})]}
	count(fs) == 0
}
