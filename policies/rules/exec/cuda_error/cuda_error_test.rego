package traindoc.rules.exec.cuda_error_test

import data.traindoc.lib.testing
import data.traindoc.rules.exec.cuda_error

# Not lib/testing's pod: pod w-0 with container pytorch, exited 1, which
# the assertions name.
_pod(matches) := {
	"name": "w-0", "namespace": "ml", "phase": "Failed", "conditions": [],
	"containers": [{
		"name": "pytorch", "restartCount": 0,
		"state": {"state": "terminated", "exitCode": 1, "finishedAt": "2026-03-01T10:00:00Z"}, "lastState": {},
		"logs": [{"file": "logs/w-0/pytorch.log", "previous": false, "lines": 10, "matches": matches, "tail": []}],
	}],
}

_m(text) := {"count": 1, "firstLine": 4, "lastLine": 4, "samples": [{"line": 4, "text": text}]}

test_fires_on_device_assert if {
	pod := _pod({"exec.cuda-error.assert": _m("RuntimeError: CUDA error: device-side assert triggered")})
	fs := cuda_error.findings with input as {"phase": "Failed", "pods": [pod]}
	some f in fs
	f.params.error == "device-side assert triggered"
}

test_fires_on_illegal_access if {
	pod := _pod({"exec.cuda-error.runtime": _m("[rank2]: RuntimeError: CUDA error: an illegal memory access was encountered")})
	fs := cuda_error.findings with input as {"phase": "Failed", "pods": [pod]}
	some f in fs
	f.params.error == "an illegal memory access was encountered"
}

# "unknown error" and ECC are hardware, "out of memory" is cuda-oom.
test_quiet_on_hardware_or_oom_texts if {
	pod := _pod({"exec.cuda-error.runtime": {"count": 2, "firstLine": 4, "lastLine": 9, "samples": [
		{"line": 4, "text": "what():  CUDA error: unknown error"},
		{"line": 9, "text": "RuntimeError: CUDA error: uncorrectable ECC error encountered"},
	]}})
	count(cuda_error.findings) == 0 with input as {"phase": "Failed", "pods": [pod]}
	pod2 := _pod({"exec.cuda-error.runtime": _m("RuntimeError: CUDA error: out of memory")})
	count(cuda_error.findings) == 0 with input as {"phase": "Failed", "pods": [pod2]}
}

test_fires_signatures if {
	regex.match(testing.pattern(cuda_error.signatures, "exec.cuda-error.assert"), "../aten/src/ATen/native/cuda/Loss.cu:250: nll_loss_forward_reduce_cuda_kernel_2d: block: [0,0,0], thread: [5,0,0] Assertion `t >= 0 && t < n_classes` failed.")
	regex.match(testing.pattern(cuda_error.signatures, "exec.cuda-error.runtime"), "RuntimeError: CUDA error: CUBLAS_STATUS_EXECUTION_FAILED when calling `cublasGemmEx( handle, opa, opb, m, n, k, &falpha, a, CUDA_R_16F, lda, b, CUDA_R_16F, ldb, &fbeta, c, CUDA_R_16F, ldc, CUDA_R_32F, CUBLAS_GEMM_DFALT_TENSOR_OP)`")
	regex.match(testing.pattern(cuda_error.signatures, "exec.cuda-error.runtime"), "RuntimeError: cuDNN error: CUDNN_STATUS_INTERNAL_ERROR")
	regex.match(testing.pattern(cuda_error.signatures, "exec.cuda-error.runtime"), "RuntimeError: CUDA error: misaligned address")
	not regex.match(testing.pattern(cuda_error.signatures, "exec.cuda-error.runtime"), "CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.")
}

# PyTorch 0.x-1.0 reported CUDA faults as "cuda runtime error (N) : ...".
test_fires_old_runtime_error_wording if {
	m := {"exec.cuda-error.runtime": {"count": 1, "firstLine": 9, "lastLine": 9, "samples": [{"line": 9, "text": "RuntimeError: cuda runtime error (74) : misaligned address at /pytorch/aten/src/THC/THCTensorCopy.cu:84"}]}}
	pod := {"name": "w", "namespace": "ml", "phase": "Failed", "containers": [{"name": "pytorch", "restartCount": 0, "state": {"state": "terminated", "exitCode": 1}, "lastState": {}, "logs": [{"file": "f", "previous": false, "matches": m, "tail": []}]}]}
	some f in cuda_error.findings with input as {"phase": "Failed", "pods": [pod]}
	f.params.error == "misaligned address"
}

# PyTorch 1.x's THC allocator and Triton's launcher name the fault their own
# way; the message keeps only the fault.
test_fires_on_thc_and_triton_wordings if {
	thc := _pod({"exec.cuda-error.runtime": _m("THCudaCheck FAIL file=/pytorch/aten/src/THC/THCCachingHostAllocator.cpp line=271 error=4 : unspecified launch failure")})
	some f in cuda_error.findings with input as {"phase": "Failed", "pods": [thc]}
	f.params.error == "unspecified launch failure"
	triton := _pod({"exec.cuda-error.runtime": _m("RuntimeError: Triton Error [CUDA]: misaligned address")})
	some g in cuda_error.findings with input as {"phase": "Failed", "pods": [triton]}
	g.params.error == "misaligned address"
}

# A THC out-of-memory is cuda-oom's.
test_quiet_on_thc_oom if {
	pod := _pod({"exec.cuda-error.runtime": _m("THCudaCheck FAIL file=/pytorch/aten/src/THC/generic/THCStorage.cu line=58 error=2 : out of memory")})
	count(cuda_error.findings) == 0 with input as {"phase": "Failed", "pods": [pod]}
}
