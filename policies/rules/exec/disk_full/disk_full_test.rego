package traindoc.rules.exec.disk_full_test

import data.traindoc.rules.exec.disk_full

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
	some s in disk_full.signatures
	s.id == id
}

test_fires_on_enospc if {
	pod := _pod(_failed, {"exec.disk-full": _m("OSError: [Errno 28] No space left on device: '/checkpoints/run1/checkpoint-5000/optimizer.pt'")}, {})
	fs := disk_full.findings with input as {"phase": "Failed", "pods": [pod]}
	some f in fs
	f.params.path == "/checkpoints/run1/checkpoint-5000"
}

# /dev/shm belongs to exec.shm-exhausted.
test_not_on_dev_shm if {
	pod := _pod(_failed, {"exec.disk-full": _m("RuntimeError: unable to write to file </torch_1234_5678_0>: No space left on device (28)")}, {})
	count(disk_full.findings) == 0 with input as {"phase": "Failed", "pods": [pod]}
}

test_signatures if {
	regex.match(_re("exec.disk-full"), "RuntimeError: [enforce fail at inline_container.cc:595] . unexpected pos 2207252800 vs 2207252688")
	regex.match(_re("exec.disk-full"), "RuntimeError: [enforce fail at inline_container.cc:764] . PytorchStreamWriter failed writing file data/123: file write failed")
	not regex.match(_re("exec.disk-full"), "Saving model checkpoint to /checkpoints/run1/checkpoint-5000")
}
