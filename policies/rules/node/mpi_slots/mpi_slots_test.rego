package traindoc.rules.node.mpi_slots_test

import data.traindoc.rules.node.mpi_slots

_launcher(matches) := {
	"name": "bert-launcher", "namespace": "ml", "phase": "Failed", "conditions": [],
	"containers": [{
		"name": "mpi-launcher", "restartCount": 0,
		"state": {"state": "terminated", "exitCode": 1, "finishedAt": "2026-03-01T10:00:05Z"}, "lastState": {},
		"logs": [{"file": "logs/bert-launcher/mpi-launcher.log", "previous": false, "lines": 12, "matches": matches, "tail": []}],
	}],
}

_m := {
	"count": 1, "firstLine": 3, "lastLine": 3, "groups": {"requested": "16"},
	"samples": [{"line": 3, "text": "There are not enough slots available in the system to satisfy the 16"}],
}

test_fires_with_the_spec_numbers if {
	inp := {
		"phase": "Failed", "kind": "MPIJob", "spec": {"procsPerNodeCount": 4},
		"replicas": [{"type": "Launcher", "expected": 1}, {"type": "Worker", "expected": 2}],
		"pods": [_launcher({"exec.mpi-slots": _m})],
	}
	fs := mpi_slots.findings with input as inp
	count(fs) == 1
	some f in fs
	f.params == {"requested": "16", "available": 8, "workers": 2, "slots": 4}
}

test_quiet_without_the_message if {
	count(mpi_slots.findings) == 0 with input as {"phase": "Failed", "pods": [_launcher({})]}
}
