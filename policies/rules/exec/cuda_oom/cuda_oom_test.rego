package traindoc.rules.exec.cuda_oom_test

import data.traindoc.rules.exec.cuda_oom

_match(text) := {
	"count": 1, "firstLine": 40, "lastLine": 40,
	"firstTime": "2026-03-10T15:06:47Z", "lastTime": "2026-03-10T15:06:47Z",
	"samples": [{"line": 40, "time": "2026-03-10T15:06:47Z", "text": text}],
}

# Not lib/testing's pod: pod llama-master-0 with container pytorch and a
# long log, which the assertions name.
_pod(matches, progress, state) := {
	"name": "llama-master-0", "namespace": "ml", "phase": "Running",
	"conditions": [],
	"containers": [{
		"name": "pytorch", "restartCount": 0,
		"state": state, "lastState": {},
		"logs": [{
			"file": "logs/llama-master-0/pytorch.log", "previous": false, "lines": 1448,
			"matches": matches, "tail": [], "progress": progress,
		}],
	}],
}

_failed := {"state": "terminated", "reason": "Error", "exitCode": 1, "finishedAt": "2026-03-10T15:06:51Z"}

_line := "[rank37]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 4.00 GiB. GPU 5 has a total capacity of 79.10 GiB of which 3.02 GiB is free."

test_fires_on_torch_oom if {
	pod := _pod({"exec.cuda-oom.torch": _match(_line)}, {"lastStepLine": 30}, _failed)
	fs := cuda_oom.findings with input as {"phase": "Failed", "pods": [pod]}
	count(fs) == 1
	some f in fs
	f.subject == {"kind": "Pod", "name": "llama-master-0", "container": "pytorch", "rank": 37}
	f.params.api == "PyTorch"
	f.time == "2026-03-10T15:06:47Z"
	f.evidence[0].text == _line
}

# An OOM that a batch-size finder caught, with training going on afterwards
# in a job that is still running, is not a failure.
test_quiet_when_training_continued if {
	pod := _pod({"exec.cuda-oom.torch": _match(_line)}, {"lastStepLine": 900}, {"state": "running"})
	fs := cuda_oom.findings with input as {"phase": "Running", "pods": [pod]}
	count(fs) == 0
}

test_quiet_in_succeeded_job if {
	pod := _pod({"exec.cuda-oom.torch": _match(_line)}, {}, {"state": "terminated", "exitCode": 0})
	fs := cuda_oom.findings with input as {"phase": "Succeeded", "pods": [pod]}
	count(fs) == 0
}

_sig(id) := s if {
	some s in cuda_oom.signatures
	s.id == id
}

test_fires_signatures_match_real_lines if {
	regex.match(_sig("exec.cuda-oom.torch").pattern, "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 3 has a total capacity of 79.15 GiB")
	regex.match(_sig("exec.cuda-oom.torch").pattern, "RuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; 15.78 GiB total capacity; 14.21 GiB already allocated)")
	regex.match(_sig("exec.cuda-oom.torch").pattern, "torch.OutOfMemoryError: HIP out of memory. Tried to allocate 1.95 GiB. GPU 0 has a total capacity of 191.98 GiB")
	regex.match(_sig("exec.cuda-oom.cuda-error").pattern, "RuntimeError: CUDA error: out of memory")
	regex.match(_sig("exec.cuda-oom.cuda-error").pattern, "node-1:123:456 [0] include/alloc.h:103 NCCL WARN Cuda failure 2 'out of memory'")
	regex.match(_sig("exec.cuda-oom.library").pattern, "RuntimeError: CUDA error: CUBLAS_STATUS_ALLOC_FAILED when calling `cublasCreate(handle)`")
	regex.match(_sig("exec.cuda-oom.xla").pattern, "jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: Out of memory while trying to allocate 17179869184 bytes.")
	not regex.match(_sig("exec.cuda-oom.torch").pattern, "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True set by environment")
	not regex.match(_sig("exec.cuda-oom.cuda-error").pattern, "[WARNING] [stage3.py:1850:step] 1 pytorch allocator cache flushes since last step. this happens when there is high memory pressure")
}

# TensorFlow's CPU allocator and pinned host buffers are host memory.
test_quiet_on_host_allocations if {
	for_cpu := {"exec.cuda-oom.xla": {"count": 1, "firstLine": 9, "lastLine": 9, "samples": [{"line": 9, "text": "W tensorflow/core/framework/op_kernel.cc:1763] OP_REQUIRES failed at cast_op.cc:109 : Resource exhausted: OOM when allocating tensor with shape[1,559,512,3] and type float on /job:localhost/replica:0/task:0/device:CPU:0 by allocator cpu"}]}}
	pod := {"name": "w", "namespace": "ml", "phase": "Failed", "containers": [{"name": "tensorflow", "restartCount": 0, "state": {"state": "terminated", "exitCode": 1}, "lastState": {}, "logs": [{"file": "f", "previous": false, "matches": for_cpu, "tail": []}]}]}
	count(cuda_oom.findings) == 0 with input as {"phase": "Failed", "pods": [pod]}
}

test_fires_signature_family if {
	some s in cuda_oom.signatures
	s.id == "exec.cuda-oom.xla"
	regex.match(s.pattern, "jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: Out of memory allocating 20029400304 bytes.")
	regex.match(s.pattern, "RuntimeError: Resource exhausted: Out of memory while trying to allocate 12582912 bytes.")
	some t in cuda_oom.signatures
	t.id == "exec.cuda-oom.torch"
	regex.match(t.pattern, "RuntimeError: cuda runtime error (2) : out of memory at /pytorch/aten/src/THC/THCCachingAllocator.cpp:510")
	regex.match(t.pattern, "RuntimeError: Caught OutOfMemoryError in replica 0 on device 0.")
}

# fairseq's trainer catches the error, skips the batch and trains on: the
# job failing later of something else does not make it the cause.
test_quiet_when_training_carried_on_after_it if {
	pod := _pod({"exec.cuda-oom.torch": _match("| OOM: Ran out of memory with exception: CUDA out of memory. Tried to allocate 62.00 MiB (GPU 0; 15.90 GiB total capacity)")}, {"lastStepLine": 900}, _failed)
	count(cuda_oom.findings) == 0 with input as {"phase": "Failed", "pods": [pod]}
}

test_fires_on_paddle_oom if {
	pod := _pod({"exec.cuda-oom.paddle": _match("Out of memory error on GPU 0. Cannot allocate 400.000244MB memory on GPU 0, 7.288696GB memory has been allocated and available memory is only 155.187500MB.")}, {}, _failed)
	fs := cuda_oom.findings with input as {"phase": "Failed", "pods": [pod]}
	some f in fs
	f.params.api == "PaddlePaddle"
}
