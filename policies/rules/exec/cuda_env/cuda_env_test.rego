package traindoc.rules.exec.cuda_env_test

import data.traindoc.lib.testing
import data.traindoc.rules.exec.cuda_env

# Not lib/testing's pod: a crash-looping container (waiting after its
# previous instance exited 1).
_pod(matches) := {
	"name": "w-0", "namespace": "ml", "phase": "Failed", "conditions": [],
	"containers": [{
		"name": "pytorch", "restartCount": 2,
		"state": {"state": "waiting", "reason": "CrashLoopBackOff"},
		"lastState": {"state": "terminated", "exitCode": 1, "finishedAt": "2026-03-01T10:00:00Z"},
		"logs": [{"file": "logs/w-0/pytorch.log", "previous": false, "lines": 10, "matches": matches, "tail": []}],
	}],
}

_m(line, text) := {"count": 1, "firstLine": line, "lastLine": line, "samples": [{"line": line, "text": text}]}

test_fires_on_old_driver if {
	pod := _pod({
		"exec.cuda-env.driver": _m(7, "RuntimeError: The NVIDIA driver on your system is too old (found version 11040). Please update your GPU driver by downloading and installing a new version from the URL: http://www.nvidia.com/Download/index.aspx"),
		"exec.cuda-env.no-gpu": _m(9, "RuntimeError: No CUDA GPUs are available"),
	})
	fs := cuda_env.findings with input as {"phase": "Failed", "pods": [pod]}
	count(fs) == 1
	some f in fs
	f.params.problem == {"en": "the node's NVIDIA driver is too old for the CUDA runtime in the image", "zh": "节点的 NVIDIA 驱动版本过旧，不支持镜像中的 CUDA 运行时"}
	f.owner == "platform"

	# A crash loop's latest exit is not when the failure began.
	f.time == ""
}

test_quiet_in_succeeded_job if {
	pod := _pod({"exec.cuda-env.arch": _m(3, "UserWarning: NVIDIA H100 80GB HBM3 with CUDA capability sm_90 is not compatible with the current PyTorch installation.")})
	count(cuda_env.findings) == 0 with input as {"phase": "Succeeded", "pods": [pod]}
}

test_fires_signatures if {
	regex.match(testing.pattern(cuda_env.signatures, "exec.cuda-env.arch"), "RuntimeError: CUDA error: no kernel image is available for execution on the device")
	regex.match(testing.pattern(cuda_env.signatures, "exec.cuda-env.driver"), "RuntimeError: Unexpected error from cudaGetDeviceCount(). Did you run some cuda functions before calling NumCudaDevices() that might have already set an error? Error 804: forward compatibility was attempted on non supported HW")
	regex.match(testing.pattern(cuda_env.signatures, "exec.cuda-env.driver"), "RuntimeError: CUDA error: CUDA driver version is insufficient for CUDA runtime version")
	regex.match(testing.pattern(cuda_env.signatures, "exec.cuda-env.library"), "ImportError: libcudnn.so.8: cannot open shared object file: No such file or directory")
	regex.match(testing.pattern(cuda_env.signatures, "exec.cuda-env.library"), "OSError: libcuda.so.1: cannot open shared object file: No such file or directory")
	not regex.match(testing.pattern(cuda_env.signatures, "exec.cuda-env.library"), "ImportError: libGL.so.1: cannot open shared object file: No such file or directory")
	regex.match(testing.pattern(cuda_env.signatures, "exec.cuda-env.ordinal"), "RuntimeError: CUDA error: invalid device ordinal")
	regex.match(testing.pattern(cuda_env.signatures, "exec.cuda-env.no-gpu"), "RuntimeError: Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU and installed a driver from http://www.nvidia.com/Download/index.aspx")
}

test_fires_nvml_mismatch_is_the_node_driver if {
	some s in cuda_env.signatures
	s.id == "exec.cuda-env.node-driver"
	regex.match(s.pattern, "Failed to initialize NVML: Driver/library version mismatch")
	regex.match(s.pattern, "RuntimeError: Unexpected error from cudaGetDeviceCount(). Did you run some cuda functions before calling NumCudaDevices() that might have already set an error? Error 802: system not yet initialized")
	not regex.match(s.pattern, "RuntimeError: Unexpected error from cudaGetDeviceCount(). Did you run some cuda functions before calling NumCudaDevices() that might have already set an error? Error 804: forward compatibility was attempted on non supported HW")
	some t in cuda_env.signatures
	t.id == "exec.cuda-env.library"
	regex.match(t.pattern, "ImportError: /usr/local/lib/python3.10/dist-packages/torch/lib/libtorch_cuda.so: undefined symbol: ncclCommRegister")
	not regex.match(t.pattern, "ImportError: flash_attn_2_cuda.cpython-310-x86_64-linux-gnu.so: undefined symbol: _ZN3c104cuda9SetDeviceEi")
}

# A fabric manager that is not running is the node's, whatever the program
# printed after it.
test_fires_fabric_manager_over_no_gpu if {
	pod := _pod({
		"exec.cuda-env.node-driver": _m(5, "RuntimeError: Unexpected error from cudaGetDeviceCount(). Did you run some cuda functions before calling NumCudaDevices() that might have already set an error? Error 802: system not yet initialized"),
		"exec.cuda-env.no-gpu": _m(9, "RuntimeError: ProcessGroupNCCL is only supported with GPUs, no GPUs found!"),
	})
	fs := cuda_env.findings with input as {"phase": "Failed", "pods": [pod]}
	some f in fs
	startswith(f.params.problem.en, "the node's NVIDIA driver is not usable")
	f.owner == "platform"
}

test_fires_no_gpu_wordings if {
	p := testing.pattern(cuda_env.signatures, "exec.cuda-env.no-gpu")
	regex.match(p, "RuntimeError: CUDA unknown error - this may be due to an incorrectly set up environment, e.g. changing env variable CUDA_VISIBLE_DEVICES after program start. Setting the available devices to be zero.")
	regex.match(p, "RuntimeError: 0 active drivers ([]). There should only be one.")
	not regex.match(p, "wording-master-0:212:212 [0] NCCL INFO cudaDriverVersion 12040")
}

_smi_pod(matches, err) := object.union(_pod(matches), {"exec": {"nvidiaSmi": {"file": "exec/ml/w-0/nvidia-smi.txt", "gpus": [], "error": err}}})

test_fires_on_nvml_mismatch_in_nvidia_smi_output if {
	fs := cuda_env.findings with input as {"phase": "Failed", "pods": [_smi_pod({}, "Failed to initialize NVML: Driver/library version mismatch")]}
	count(fs) == 1
	some f in fs
	startswith(f.params.problem.en, "the node's NVIDIA driver is not usable")
	f.evidence[0].file == "exec/ml/w-0/nvidia-smi.txt"
}

# The container's own log names a specific cause: the side output is no
# explanation of its own.
test_quiet_on_nvml_mismatch_beside_specific_cause if {
	pod := _smi_pod({"exec.cuda-oom": _m(8, "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB")}, "Failed to initialize NVML: Driver/library version mismatch")
	count(cuda_env.findings) == 0 with input as {"phase": "Failed", "pods": [pod]}
	count(cuda_env.findings) == 0 with input as {"phase": "Running", "pods": [_smi_pod({}, "Failed to initialize NVML: Driver/library version mismatch")]}
}
