# METADATA
# title: GPU out of memory
# description: |
#   A training process asked for more GPU memory than was free and failed
#   (PyTorch CUDA/HIP OutOfMemoryError in its 1.x to 2.x wordings, "CUDA
#   error: out of memory", cuBLAS or cuDNN allocation and workspace
#   failures, NCCL failing to allocate its buffers, TensorFlow "OOM when
#   allocating tensor", JAX/XLA RESOURCE_EXHAUSTED on GPU or TPU HBM,
#   PaddlePaddle "Out of memory error on GPU"). Other ranks then usually
#   time out in their next collective. An error the training loop caught
#   and trained on after (a skipped batch, a smaller retry) is not one.
# custom:
#   severity: error
#   owner: user
#   message:
#     en: "A process ran out of GPU memory ({{.api}})."
#     zh: "进程耗尽了 GPU 显存（{{.api}}）。"
#   remediation:
#     en: |
#       - Lower the per-GPU batch size (raise gradient accumulation to keep the global batch), or the sequence length.
#       - Turn on activation checkpointing, mixed precision (bf16), and sharding (FSDP, DeepSpeed ZeRO-2/3) or CPU offload for optimizer state.
#       - If the message shows much memory "reserved but unallocated", set `PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True`.
#       - If only one rank fails, look for uneven inputs (longest sequences, largest images) on that rank, or another process on the same GPU (`nvidia-smi`).
#     zh: |
#       - 降低每张 GPU 的 batch size（用梯度累积保持全局 batch），或缩短序列长度。
#       - 开启激活重计算（activation checkpointing）、混合精度（bf16），以及切分（FSDP、DeepSpeed ZeRO-2/3）或把优化器状态卸载到 CPU。
#       - 如果报错显示大量显存"已保留但未分配"，设置 `PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True`。
#       - 如果只有一个 rank 失败，检查该 rank 上是否有特别长的样本，或同一 GPU 上是否还有其他进程（`nvidia-smi`）。
#   zh:
#     title: GPU 显存不足
#     description: |
#       训练进程申请的 GPU 显存超过了可用量而失败（PyTorch 1.x 到 2.x 各版本措辞的 CUDA/HIP OutOfMemoryError、"CUDA error: out of memory"、cuBLAS 或 cuDNN 分配及工作区失败、NCCL 无法分配缓冲区、TensorFlow "OOM when allocating tensor"、GPU 或 TPU HBM 上的 JAX/XLA RESOURCE_EXHAUSTED、PaddlePaddle "Out of memory error on GPU"）。其他 rank 通常随后会在下一次集合通信中超时。训练循环捕获后继续训练的错误（跳过该批次、用更小的 batch 重试）不算。
package traindoc.rules.exec.cuda_oom

import data.traindoc.lib.exec
import data.traindoc.lib.k8s

# PyTorch 0.4 "cuda runtime error (2)", 1.x RuntimeError, 2.0-2.4
# torch.cuda.OutOfMemoryError, 2.5+ torch.OutOfMemoryError; ROCm prints
# HIP; DataParallel re-raises it as "Caught OutOfMemoryError in replica";
# vLLM inside RL loops wraps it in a RuntimeError.
signatures contains {
	"id": "exec.cuda-oom.torch",
	"pattern": `(?:CUDA|HIP|XPU) out of memory\. Tried to allocate|OutOfMemoryError: (?:CUDA|HIP|XPU) out of memory|RuntimeError: (?:CUDA|HIP) out of memory|Caught OutOfMemoryError in replica \d+|cuda runtime error \(2\) ?: out of memory|CUDA out of memory occurred when`,
	"hint": "out of memory",
}

# The CUDA runtime's and driver's own codes, also as NCCL and TensorFlow's
# stream executor report them.
signatures contains {
	"id": "exec.cuda-oom.cuda-error",
	"pattern": `CUDA (?:driver )?error: ?out of memory|Cuda failure (?:\d+ )?'out of memory'|CUDA_ERROR_OUT_OF_MEMORY|cudaErrorMemoryAllocation|HIP_ERROR_OutOfMemory|hipErrorOutOfMemory|cudaMalloc(?:Async)?(?: retry)? failed: out of memory|NCCL WARN Failed to CUDA calloc \d+ bytes`,
}

# cuBLAS, cuDNN and friends failing to get memory for a handle or a
# workspace; PyTorch reports a cuDNN workspace it could not allocate as
# "Unable to find a valid cuDNN algorithm".
signatures contains {
	"id": "exec.cuda-oom.library",
	"pattern": `(?:CUBLAS|CUDNN|CUSOLVER|CUSPARSE|CUFFT|CURAND)_STATUS_ALLOC_FAILED|Unable to find a valid cuDNN algorithm to run convolution|CUDNN_STATUS_NOT_ENOUGH_WORKSPACE`,
}

# JAX/XLA and TensorFlow (TF 1.x "Resource exhausted: OOM when allocating
# tensor", TF 2.x ResourceExhaustedError, XlaRuntimeError RESOURCE_EXHAUSTED,
# the TPU compiler's "Ran out of memory in memory space hbm", the older
# BFC wording "Attempting to allocate 31.06M. That was not possible").
signatures contains {
	"id": "exec.cuda-oom.xla",
	"pattern": `(?i:RESOURCE_EXHAUSTED|Resource exhausted): (?:Out of memory|Attempting to allocate|.*(?:Failed to allocate|[Oo]ut of memory))|OOM when allocating tensor|ResourceExhaustedError: (?:Ran out of GPU memory|failed to allocate memory)|Ran out of memory in memory space hbm`,
}

# PaddlePaddle's allocator ("ResourceExhaustedError:" followed by "Out of
# memory error on GPU 0. Cannot allocate 3.62GB memory on GPU 0, ...").
signatures contains {
	"id": "exec.cuda-oom.paddle",
	"pattern": `Out of memory error on GPU ?\d+\. Cannot allocate`,
	"hint": "Out of memory error on GPU",
}

# vLLM/serving engines used in RL training loops.
signatures contains {
	"id": "exec.cuda-oom.kv-cache",
	"pattern": `No available memory for the cache blocks`,
	"hint": "No available memory for the cache blocks",
}

_api := {
	"exec.cuda-oom.torch": "PyTorch",
	"exec.cuda-oom.cuda-error": "CUDA runtime",
	"exec.cuda-oom.library": "cuBLAS/cuDNN allocation",
	"exec.cuda-oom.xla": "XLA/TensorFlow",
	"exec.cuda-oom.paddle": "PaddlePaddle",
	"exec.cuda-oom.kv-cache": "inference KV cache",
}

# Host memory, not GPU memory: TensorFlow's CPU allocator and pinned host
# buffers (a retried, usually harmless allocation).
_host := `device:CPU|allocator cpu\b|allocator mklcpu|bytes on host|pinned host memory`

# A loop that catches the error, skips the batch or retries with a
# smaller one (fairseq's "attempting to recover from OOM", a batch size
# finder) prints the same words and trains on: only an error that training
# did not carry on after counts, even when the job later failed of
# something else.
_gpu_hits(pod, c) := [h |
	some h in exec.hits(pod, c, object.keys(_api))
	_gpu(h)
	not exec.survived(h.log, h.m)
]

_gpu(h) if {
	some s in object.get(h.m, "samples", [])
	not regex.match(_host, s.text)
}

findings contains f if {
	some pod in input.pods
	some c in k8s.containers(pod)
	hs := _gpu_hits(pod, c)
	count(hs) > 0
	f := {
		"subject": exec.hit_subject(pod, c, hs[0]),
		"params": {"api": _api[hs[0].id]},
		"evidence": exec.evidence(pod, c, hs),
		"time": exec.hit_time(c, hs[0]),
	}
}
