# METADATA
# title: CUDA runtime, driver or device mismatch
# description: |
#   The program could not use the GPU as built: no GPU visible in the
#   container, a driver older than the CUDA runtime in the image, a PyTorch
#   build without kernels for this GPU architecture, missing CUDA libraries
#   or ones that do not match what the code was built against (an undefined
#   CUDA or NCCL symbol), the node's NVIDIA kernel module and user-space
#   libraries at different versions (NVML "Driver/library version
#   mismatch"), an NVSwitch node whose fabric manager is not running (CUDA
#   error 802), or a device index beyond the GPUs the pod has. An
#   nvidia-smi output collected from the pod (exec/<pod>/) that reports the
#   NVML mismatch explains a failed container whose log names nothing more
#   specific.
# custom:
#   severity: error
#   owner: user
#   message:
#     en: "CUDA environment problem: {{.problem.en}}."
#     zh: "CUDA 环境问题：{{.problem.zh}}。"
#   remediation:
#     en: |
#       - "No CUDA GPUs are available" / "Found no NVIDIA driver": make sure the container requests `nvidia.com/gpu` and runs on a GPU node with the device plugin; do not set `CUDA_VISIBLE_DEVICES`/`NVIDIA_VISIBLE_DEVICES` to nothing. If it happens after a crash on a node with Xid errors, the GPU is gone: drain the node.
#       - "driver version is insufficient" / "forward compatibility": use an image whose CUDA runtime the node driver supports (`nvidia-smi` shows the highest CUDA version), or upgrade the node driver.
#       - "no kernel image is available": install a PyTorch/extension build that includes this GPU's compute capability (e.g. sm_90 for H100); rebuild custom CUDA extensions with `TORCH_CUDA_ARCH_LIST`.
#       - Missing `libcuda.so.1`/`libcudart`/`libcudnn`: run under the NVIDIA container runtime and use a CUDA base image, or install the matching `nvidia-*-cu12` wheels.
#       - "invalid device ordinal": start no more processes per pod than GPUs requested and select the device from LOCAL_RANK.
#       - NVML "Driver/library version mismatch" or "Failed to initialize NVML: Unknown Error": the node's driver was upgraded or its device cgroup lost without a reboot; cordon, drain and reboot the node (platform team).
#       - "Error 802: system not yet initialized" on A100/H100/H200/B200 (NVSwitch) nodes: the nvidia-fabricmanager service is not running or does not match the driver version; start it (same version as the driver) and check `nvidia-smi -q | grep -A2 Fabric` shows "Completed".
#       - "CUDA unknown error - this may be due to an incorrectly set up environment" or "ProcessGroupNCCL is only supported with GPUs, no GPUs found": the process sees no usable GPU; check the GPU request and that the node's devices are healthy (`nvidia-smi` inside the pod).
#       - "undefined symbol: cuda..."/"nccl...": a library in the image (NCCL, cuDNN, cuBLAS wheels) is older or newer than the one PyTorch was built with; install the versions the PyTorch build pins.
#     zh: |
#       - "No CUDA GPUs are available" / "Found no NVIDIA driver"：确认容器申请了 `nvidia.com/gpu` 并运行在装有设备插件的 GPU 节点上；不要把 `CUDA_VISIBLE_DEVICES`/`NVIDIA_VISIBLE_DEVICES` 设为空。如果是在有 Xid 错误的节点上崩溃后出现，说明 GPU 已丢失：请隔离该节点。
#       - "driver version is insufficient" / "forward compatibility"：使用节点驱动支持的 CUDA 运行时镜像（`nvidia-smi` 显示支持的最高 CUDA 版本），或升级节点驱动。
#       - "no kernel image is available"：安装包含该 GPU 计算能力的 PyTorch/扩展版本（如 H100 需要 sm_90）；用 `TORCH_CUDA_ARCH_LIST` 重新编译自定义 CUDA 扩展。
#       - 缺少 `libcuda.so.1`/`libcudart`/`libcudnn`：使用 NVIDIA 容器运行时和 CUDA 基础镜像，或安装匹配的 `nvidia-*-cu12` 包。
#       - "invalid device ordinal"：每个 Pod 启动的进程数不要超过申请的 GPU 数，并按 LOCAL_RANK 选择设备。
#       - NVML "Driver/library version mismatch" 或 "Failed to initialize NVML: Unknown Error"：节点驱动升级后或设备 cgroup 丢失后没有重启；请封锁、排空并重启该节点（平台团队处理）。
#       - A100/H100/H200/B200（NVSwitch）节点上的 CUDA 错误 802（"system not yet initialized"）：nvidia-fabricmanager 服务未运行或与驱动版本不一致；启动与驱动同版本的服务，并确认 `nvidia-smi -q | grep -A2 Fabric` 显示 "Completed"。
#       - "CUDA unknown error" 或 ProcessGroupNCCL 报 "no GPUs found"：进程看不到可用的 GPU；检查 GPU 申请，并在 Pod 内运行 `nvidia-smi` 确认节点设备正常。
#       - "undefined symbol: cuda..."/"nccl..."：镜像中的某个库（NCCL、cuDNN、cuBLAS 包）比 PyTorch 构建时使用的版本更旧或更新；安装 PyTorch 构建所固定的版本。
#   zh:
#     title: CUDA 运行时、驱动或设备不匹配
#     description: |
#       程序无法按构建方式使用 GPU：容器中看不到 GPU、驱动版本低于镜像中的 CUDA 运行时、PyTorch 版本不包含该 GPU 架构的内核、缺少 CUDA 库或库版本与代码构建时使用的不一致（未定义的 CUDA 或 NCCL 符号）、节点上 NVIDIA 内核模块与用户态库版本不同（NVML "Driver/library version mismatch"）、NVSwitch 节点上的 fabric manager 未运行（CUDA 错误 802），或设备编号超出了 Pod 拥有的 GPU 数量。从 Pod 收集的 nvidia-smi 输出（exec/<pod>/）若报告 NVML 版本不一致，则用来解释日志中没有更具体原因的失败容器。
package traindoc.rules.exec.cuda_env

import data.traindoc.lib.exec
import data.traindoc.lib.k8s
import data.traindoc.lib.ray

signatures contains {
	"id": "exec.cuda-env.no-gpu",
	"pattern": `No CUDA GPUs are available|Found no NVIDIA driver on your system|CUDA driver initialization failed|Torch not compiled with CUDA enabled|torch\.cuda\.is_available\(\) (?:is|returned) False|no CUDA-capable device is detected|cudaErrorNoDevice|CUDA_ERROR_NO_DEVICE|CUDA-capable device\(s\) is/are busy or unavailable|cudaErrorDevicesUnavailable|Unable to initialize backend 'cuda'|No visible GPU devices|NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver|Failed to initialize NVML: Unknown Error|ProcessGroupNCCL is only supported with GPUs, no GPUs found|CUDA unknown error - this may be due to an incorrectly set up environment|Found an unknown error - this may be due to an incorrectly set up environment|0 active drivers \(\[\]\)\. There should only be one`,
}

signatures contains {
	"id": "exec.cuda-env.driver",
	"pattern": `CUDA driver version is insufficient for CUDA runtime version|The NVIDIA driver on your system is too old|forward compatibility was attempted on non supported HW|system has unsupported display driver / cuda driver combination|cudaErrorInsufficientDriver|CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE|Error 80[34]:|CUDA backend failed to initialize: Found CUDA version \d+, but JAX was built against`,
}

# The node's driver stack is broken under the container: its kernel module
# and user-space libraries differ (a driver upgrade without a reboot), or
# the NVSwitch fabric manager is not running (CUDA error 802).
signatures contains {
	"id": "exec.cuda-env.node-driver",
	"pattern": `Driver/library version mismatch|NVML library version: [\d.]+|Error 802: system not yet initialized|cuda runtime error \(802\)|cudaErrorSystemNotReady|CUDA_ERROR_SYSTEM_NOT_READY|(?:CUDA error|Couldn't init CUDA)[^\n]*: system not yet initialized`,
}

signatures contains {
	"id": "exec.cuda-env.arch",
	"pattern": `no kernel image is available for execution on the device|CUDA capability sm_\d+ is not compatible with the current PyTorch installation|CUDA error: invalid device function`,
}

signatures contains {
	"id": "exec.cuda-env.library",
	"pattern": `(?:libcuda|libcudart|libcudnn\w*|libcublas\w*|libnccl|libnvrtc|libcufft|libcurand|libcusparse|libcusolver|libnvJitLink|libnvidia-ml)\.so[\d.]*: (?:cannot open shared object file|undefined symbol)|undefined symbol: (?:cuda|cu[A-Z]|nccl|cublas|cudnn|cusparse|cufft|curand|nvrtc|nvJitLink)\w*`,
}

signatures contains {
	"id": "exec.cuda-env.ordinal",
	"pattern": `CUDA error: invalid device ordinal|cudaErrorInvalidDevice\b`,
}

_problem := {
	"exec.cuda-env.no-gpu": {"en": "no usable GPU or driver in the container", "zh": "容器中没有可用的 GPU 或驱动"},
	"exec.cuda-env.driver": {
		"en": "the node's NVIDIA driver is too old for the CUDA runtime in the image",
		"zh": "节点的 NVIDIA 驱动版本过旧，不支持镜像中的 CUDA 运行时",
	},
	"exec.cuda-env.node-driver": {
		"en": "the node's NVIDIA driver is not usable: its kernel module and libraries differ, or its NVSwitch fabric manager is not running",
		"zh": "节点的 NVIDIA 驱动不可用：内核模块与用户态库版本不一致，或 NVSwitch fabric manager 未运行",
	},
	"exec.cuda-env.arch": {"en": "the CUDA build has no kernels for this GPU architecture", "zh": "所用的 CUDA 构建不包含该 GPU 架构的内核"},
	"exec.cuda-env.library": {
		"en": "a CUDA library is missing from the container or does not match the one the code was built against",
		"zh": "容器中缺少某个 CUDA 库，或其版本与代码构建时所用的不一致",
	},
	"exec.cuda-env.ordinal": {"en": "a process selected a GPU index the pod does not have", "zh": "某个进程选择了 Pod 中不存在的 GPU 编号"},
}

# More telling kinds first: a missing library or old driver explains "no GPU".
_rank := ["exec.cuda-env.node-driver", "exec.cuda-env.driver", "exec.cuda-env.library", "exec.cuda-env.arch", "exec.cuda-env.ordinal", "exec.cuda-env.no-gpu"]

findings contains f if {
	some pod in input.pods
	some c in k8s.containers(pod)
	hs := [h | some h in exec.hits(pod, c, object.keys(_problem)); not _driver_on_gpuless_ray_head(pod, h)]
	count(hs) > 0
	id := [x | some x in _rank; some h in hs; h.id == x][0]
	f := {
		"subject": exec.subject(pod, c),
		"params": {"problem": _problem[id]},
		"evidence": exec.evidence(pod, c, array.concat([h | some h in hs; h.id == id], [h | some h in hs; h.id != id])),
		"time": exec.hit_time(c, hs[0]),
		"owner": _owner(id),
	}
}

# A Ray driver on a head that asks for no GPU finds none: that is where the
# job placed its training code, not a broken CUDA stack (the Ray rules
# report it).
_driver_on_gpuless_ray_head(pod, h) if {
	h.id == "exec.cuda-env.no-gpu"
	ray.is_head(pod)
	ray.gpus(pod.containers) == 0
}

_owner("exec.cuda-env.driver") := "platform"

_owner("exec.cuda-env.no-gpu") := "platform"

_owner("exec.cuda-env.node-driver") := "platform"

_owner(id) := "user" if not id in {"exec.cuda-env.driver", "exec.cuda-env.no-gpu", "exec.cuda-env.node-driver"}

# nvidia-smi run in the pod when the snapshot was taken cannot talk to the
# driver because its libraries and the node's kernel module differ: the
# driver was changed under the running pod. It explains a container that
# failed with nothing more specific in its log; beside a specific cause it
# is left out, and a side nvidia-smi call in a job that carries on is no
# cause at all.
_nvml_mismatch := `Failed to initialize NVML: Driver/library version mismatch`

findings contains f if {
	input.phase == "Failed"
	some pod in input.pods
	some o in _smi_outputs(pod)
	m := regex.find_n(_nvml_mismatch, o.text, 1)
	count(m) == 1
	some c in k8s.containers(pod)
	exec.failed_container(pod, c)
	not exec.specific_hit(pod, c)
	f := {
		"subject": exec.subject(pod, c),
		"params": {"problem": _problem["exec.cuda-env.node-driver"]},
		"evidence": [{
			"kind": "exec",
			"source": sprintf("pod %s %s", [pod.name, o.name]),
			"object": k8s.pod_ref(pod),
			"file": o.file,
			"text": m[0],
		}],
		"time": "",
		"owner": "platform",
	}
}

# The plain `nvidia-smi` output is parsed (its failure kept as error); the
# others are kept as text.
_smi_outputs(pod) := array.concat(object.get(pod, ["exec", "other"], []), [o |
	smi := object.get(pod, ["exec", "nvidiaSmi"], {})
	err := object.get(smi, "error", "")
	err != ""
	o := {"name": "nvidia-smi", "file": object.get(smi, "file", ""), "text": err}
])
