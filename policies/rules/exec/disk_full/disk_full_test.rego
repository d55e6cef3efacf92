package traindoc.rules.exec.disk_full_test

import data.traindoc.lib.testing
import data.traindoc.rules.exec.disk_full

# The ENOSPC signature is declared in lib/resources, which disk_full and
# shm_exhausted share.
_signatures := array.concat([x | some x in disk_full.signatures], [x | some x in data.traindoc.lib.resources.signatures])

test_fires_on_enospc if {
	pod := testing.pod(testing.failed, {"exec.enospc": testing.match("OSError: [Errno 28] No space left on device: '/checkpoints/run1/checkpoint-5000/optimizer.pt'")}, {})
	fs := disk_full.findings with input as {"phase": "Failed", "pods": [pod]}
	some f in fs
	f.params.path == "/checkpoints/run1/checkpoint-5000"
}

# /dev/shm belongs to exec.shm-exhausted.
test_quiet_on_dev_shm if {
	pod := testing.pod(testing.failed, {"exec.enospc": testing.match("RuntimeError: unable to write to file </torch_1234_5678_0>: No space left on device (28)")}, {})
	count(disk_full.findings) == 0 with input as {"phase": "Failed", "pods": [pod]}
}

test_fires_signatures if {
	regex.match(testing.pattern(_signatures, "exec.disk-full.torch-save"), "RuntimeError: [enforce fail at inline_container.cc:595] . unexpected pos 2207252800 vs 2207252688")
	regex.match(testing.pattern(_signatures, "exec.disk-full.torch-save"), "RuntimeError: [enforce fail at inline_container.cc:764] . PytorchStreamWriter failed writing file data/123: file write failed")
	not regex.match(testing.pattern(_signatures, "exec.enospc"), "Saving model checkpoint to /checkpoints/run1/checkpoint-5000")
}

_ms(text, before) := {"count": 1, "firstLine": 100, "lastLine": 100, "samples": [{"line": 100, "text": text, "before": before}]}

# multiprocessing's semaphores live in /dev/shm: a bare [Errno 28] raised
# from SemLock is shared memory, not a disk.
test_quiet_on_semlock_enospc if {
	before := ["  File \"/usr/lib/python3.10/multiprocessing/synchronize.py\", line 57, in __init__", "    sl = self._semlock = _multiprocessing.SemLock("]
	pod := testing.pod(testing.failed, {"exec.enospc": _ms("OSError: [Errno 28] No space left on device", before)}, {})
	count(disk_full.findings) == 0 with input as {"phase": "Failed", "pods": [pod]}
}

# A bare ENOSPC while saving a checkpoint: the df output names the full mount.
test_fires_path_from_df if {
	before := ["  File \"/usr/local/lib/python3.10/dist-packages/torch/serialization.py\", line 604, in _save", "    zip_file.write_record(name, storage.data_ptr(), num_bytes)"]
	df := {"name": "df.txt", "file": "exec/w-2/df.txt", "text": "Filesystem      Size  Used Avail Use% Mounted on\noverlay         200G   61G  140G  31% /\nshm              16G  1.2G   15G   8% /dev/shm\n/dev/nvme1n1    2.0T  2.0T     0 100% /checkpoints\n"}
	pod := object.union(testing.pod(testing.failed, {"exec.enospc": _ms("OSError: [Errno 28] No space left on device", before)}, {}), {"exec": {"other": [df]}})
	fs := disk_full.findings with input as {"phase": "Failed", "pods": [pod]}
	some f in fs
	f.params.path == "/checkpoints"
	some e in f.evidence
	e.kind == "exec"
}

# Libraries that refuse to write when they find the disk full.
test_fires_on_library_refusal if {
	pod := testing.pod(testing.failed, {"exec.disk-full.reported": testing.match("ray.exceptions.OutOfDiskError: Local disk is full")}, {})
	count(disk_full.findings) == 1 with input as {"phase": "Failed", "pods": [pod]}
}

test_fires_reported_signature if {
	regex.match(testing.pattern(_signatures, "exec.disk-full.reported"), "OSError: Not enough disk space. Needed: 134.92 GiB (download: 41.97 GiB, generated: 92.95 GiB, post-processed: Unknown size)")
	not regex.match(testing.pattern(_signatures, "exec.disk-full.reported"), "(raylet) Spilled 1049654 MiB, 1571 objects, write throughput 663 MiB/s.")
}
