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

# mpirun --tag-output prefixes every line of a rank: the scanner follows
# no traceback, the rank's exception line is still the cause.
test_fires_on_mpirun_tagged_exception if {
	line := "[1,0]<stderr>:AssertionError: Check batch related parameters. train_batch_size is not equal to micro_batch_per_gpu * gradient_acc_step * world_size 16 != 1 * 1 * 1"
	pod := testing.pod(testing.failed, {"launcher.mpi-exception": testing.match(line)}, {})
	fs := python_error.findings with input as {"phase": "Failed", "pods": [pod]}
	some f in fs
	f.params.type == "AssertionError"
	f.evidence[0].text == line
}

test_mpirun_signature_skips_plain_output if {
	re := [s.pattern | some s in python_error.signatures; s.id == "launcher.mpi-exception"][0]
	regex.match(re, "[1,3]<stdout>:RuntimeError: shape '[4, -1]' is invalid for input of size 10")
	not regex.match(re, "[1,3]<stdout>:step 120 loss 2.113 (no NaN/Inf found: RuntimeError: none)")
	not regex.match(re, "RuntimeError: shape '[4, -1]' is invalid for input of size 10")
}

# Ray Train re-raises the worker's error wrapped in RayTaskError(KeyError).
test_fires_unwraps_ray_task_error if {
	e := "ray.exceptions.RayTaskError(KeyError): ray::_RayTrainWorker__execute.get_next() (pid=12451, ip=127.0.0.1)"
	pod := _with_exception(testing.pod(testing.failed, {}, {}), e, [])
	fs := python_error.findings with input as {"phase": "Failed", "pods": [pod]}
	some f in fs
	f.params.type == "KeyError"
}

# fairseq caught an OOM and trained on for an hour before a KeyError ended
# the run: the KeyError is the cause.
test_fires_after_a_match_training_carried_on_after if {
	oom := {"count": 1, "firstLine": 83, "lastLine": 83, "samples": [{"line": 83, "text": "OOM: Ran out of memory with exception: CUDA out of memory. Tried to allocate 1.95 GiB"}]}
	base := testing.pod(testing.failed, {"exec.cuda-oom.torch": oom}, {"lastStepLine": 150})
	pod := _with_exception(base, "KeyError: 'teacher_logits'", [])
	fs := python_error.findings with input as {"phase": "Failed", "pods": [pod]}
	some f in fs
	f.params.type == "KeyError"
}
