package traindoc.rules.exec.python_error_test

import data.traindoc.lib.testing
import data.traindoc.rules.exec.python_error

_with_exception(pod, e, tb) := object.union(pod, {"containers": [object.union(pod.containers[0], {"logs": [object.union(pod.containers[0].logs[0], {"exception": e, "traceback": tb})]})]})

test_fires_on_key_error if {
	pod := _with_exception(testing.pod(testing.failed, {}, {}), "KeyError: 'input_ids'", ["Traceback (most recent call last):", "  File \"/workspace/data.py\", line 88, in collate", "KeyError: 'input_ids'"])
	fs := python_error.findings with input as {"phase": "Failed", "pods": [pod]}
	some f in fs
	f.params.type == "KeyError"
	f.evidence[1].text == "File \"/workspace/data.py\", line 88, in collate"
	f.time == "2026-03-01T10:00:00Z"
}

# torchrun's ChildFailedError wraps the rank's own exception.
test_fires_unwraps_child_failed_error if {
	m := {"count": 2, "firstLine": 10, "lastLine": 30, "samples": [
		{"line": 10, "text": "[rank1]: ValueError: too many values to unpack (expected 2)"},
		{"line": 30, "text": "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: "},
	]}
	pod := _with_exception(testing.pod(testing.failed, {"launcher.exception": m}, {}), "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ", [])
	fs := python_error.findings with input as {"phase": "Failed", "pods": [pod]}
	some f in fs
	f.params.type == "ValueError"
}

# A handled traceback in a container that is still running is not a failure.
test_quiet_in_running_container if {
	pod := _with_exception(testing.pod(testing.running, {}, {}), "requests.exceptions.ConnectionError: HTTPSConnectionPool(host='wandb.ai', port=443)", [])
	count(python_error.findings) == 0 with input as {"phase": "Running", "pods": [pod]}
}

# A container a specific rule explains is not reported again.
test_quiet_when_specific_signature if {
	pod := _with_exception(testing.pod(testing.failed, {"exec.cuda-oom.torch": testing.match("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.")}, {}), "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.", [])
	count(python_error.findings) == 0 with input as {"phase": "Failed", "pods": [pod]}
}
