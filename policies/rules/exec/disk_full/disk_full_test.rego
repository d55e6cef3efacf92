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
	some s in array.concat([x | some x in disk_full.signatures], [x | some x in data.traindoc.lib.resources.signatures])
	s.id == id
}

test_fires_on_enospc if {
	pod := _pod(_failed, {"exec.enospc": _m("OSError: [Errno 28] No space left on device: '/checkpoints/run1/checkpoint-5000/optimizer.pt'")}, {})
	fs := disk_full.findings with input as {"phase": "Failed", "pods": [pod]}
	some f in fs
	f.params.path == "/checkpoints/run1/checkpoint-5000"
}

# /dev/shm belongs to exec.shm-exhausted.
test_quiet_on_dev_shm if {
	pod := _pod(_failed, {"exec.enospc": _m("RuntimeError: unable to write to file </torch_1234_5678_0>: No space left on device (28)")}, {})
	count(disk_full.findings) == 0 with input as {"phase": "Failed", "pods": [pod]}
}

test_fires_signatures if {
	regex.match(_re("exec.disk-full.torch-save"), "RuntimeError: [enforce fail at inline_container.cc:595] . unexpected pos 2207252800 vs 2207252688")
	regex.match(_re("exec.disk-full.torch-save"), "RuntimeError: [enforce fail at inline_container.cc:764] . PytorchStreamWriter failed writing file data/123: file write failed")
	not regex.match(_re("exec.enospc"), "Saving model checkpoint to /checkpoints/run1/checkpoint-5000")
}

_ms(text, before) := {"count": 1, "firstLine": 100, "lastLine": 100, "samples": [{"line": 100, "text": text, "before": before}]}

# multiprocessing's semaphores live in /dev/shm: a bare [Errno 28] raised
# from SemLock is shared memory, not a disk.
test_quiet_on_semlock_enospc if {
	before := ["  File \"/usr/lib/python3.10/multiprocessing/synchronize.py\", line 57, in __init__", "    sl = self._semlock = _multiprocessing.SemLock("]
	pod := _pod(_failed, {"exec.enospc": _ms("OSError: [Errno 28] No space left on device", before)}, {})
	count(disk_full.findings) == 0 with input as {"phase": "Failed", "pods": [pod]}
}

# A bare ENOSPC while saving a checkpoint: the df output names the full mount.
test_fires_path_from_df if {
	before := ["  File \"/usr/local/lib/python3.10/dist-packages/torch/serialization.py\", line 604, in _save", "    zip_file.write_record(name, storage.data_ptr(), num_bytes)"]
	df := {"name": "df.txt", "file": "exec/w-2/df.txt", "text": "Filesystem      Size  Used Avail Use% Mounted on\noverlay         200G   61G  140G  31% /\nshm              16G  1.2G   15G   8% /dev/shm\n/dev/nvme1n1    2.0T  2.0T     0 100% /checkpoints\n"}
	pod := object.union(_pod(_failed, {"exec.enospc": _ms("OSError: [Errno 28] No space left on device", before)}, {}), {"exec": {"other": [df]}})
	fs := disk_full.findings with input as {"phase": "Failed", "pods": [pod]}
	some f in fs
	f.params.path == "/checkpoints"
	some e in f.evidence
	e.kind == "exec"
}
