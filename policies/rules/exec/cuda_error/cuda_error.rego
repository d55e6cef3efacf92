# METADATA
# title: CUDA fault in the program
# description: |
#   A CUDA kernel or library call failed because of the program: a
#   device-side assertion (typically an index or label out of range), an
#   illegal or misaligned memory access, an unspecified launch failure, a
#   cuBLAS/cuDNN execution failure, or CUDA used from a forked process, in
#   the words of PyTorch (any version, THC included), Triton, XLA/JAX or
#   TensorFlow. Out-of-memory, driver and
#   architecture mismatches, and "unknown error"/ECC (hardware) are
#   reported under their own categories.
# custom:
#   severity: error
#   owner: user
#   message:
#     en: "CUDA error in the program: {{.error}}."
#     zh: "程序中出现 CUDA 错误：{{.error}}。"
#   remediation:
#     en: |
#       - Rerun one rank with `CUDA_LAUNCH_BLOCKING=1` (and `TORCH_USE_CUDA_DSA=1` on builds that support it) so the error is raised at the call that caused it.
#       - "device-side assert triggered": check label and index ranges (class ids < num_classes, token ids < vocab size, embedding indices), often after a tokenizer or dataset change; run a few batches on CPU to get a readable error.
#       - Illegal or misaligned memory access, cuBLAS/cuDNN execution failures: suspect custom CUDA/Triton kernels, flash-attention or apex builds that do not match the PyTorch/CUDA version; try without them or with a matching build.
#       - If the same error appears on one node only, or after an Xid in the node log, treat it as hardware and drain the node.
#     zh: |
#       - 用 `CUDA_LAUNCH_BLOCKING=1`（以及支持的版本上 `TORCH_USE_CUDA_DSA=1`）重新运行一个 rank，让错误在真正出错的调用处抛出。
#       - "device-side assert triggered"：检查标签和索引范围（类别 id < num_classes、token id < 词表大小、embedding 索引），常见于更换分词器或数据集之后；在 CPU 上跑几个 batch 可得到可读的错误信息。
#       - 非法或未对齐的内存访问、cuBLAS/cuDNN 执行失败：怀疑自定义 CUDA/Triton 内核，或与 PyTorch/CUDA 版本不匹配的 flash-attention、apex 构建；先去掉它们或换成匹配的版本。
#       - 如果只在某一个节点上出现，或节点日志中有 Xid，请按硬件问题处理并隔离该节点。
#   zh:
#     title: 程序中的 CUDA 错误
#     description: |
#       CUDA 内核或库调用因程序本身而失败：设备端断言（通常是索引或标签越界）、非法或未对齐的内存访问、未指明的内核启动失败、cuBLAS/cuDNN 执行失败，或在 fork 出的进程中使用 CUDA；涵盖 PyTorch（包括旧版 THC）、Triton、XLA/JAX 与 TensorFlow 的各种措辞。显存不足、驱动与架构不匹配，以及 "unknown error"/ECC（硬件）归入各自的类别。
package traindoc.rules.exec.cuda_error

import data.traindoc.lib.exec
import data.traindoc.lib.k8s

signatures contains {
	"id": "exec.cuda-error.assert",
	"pattern": `device-side assert triggered|block: \[\d+,\d+,\d+\], thread: \[\d+,\d+,\d+\] Assertion`,
}

# Any "CUDA error: <text>"; the rule drops the texts other categories own.
signatures contains {
	"id": "exec.cuda-error.runtime",
	"pattern": `CUDA (?:driver )?error: [A-Za-z]|cuda runtime error \(\d+\) ?: [a-z]|THCudaCheck FAIL file=\S+ line=\d+ error=\d+ : [a-z]|Triton Error \[CUDA\]: [a-z]|cudaError(?:IllegalAddress|MisalignedAddress|LaunchFailure|IllegalInstruction|Assert)\b|CUDA_ERROR_(?:ILLEGAL_ADDRESS|MISALIGNED_ADDRESS|LAUNCH_FAILED|ILLEGAL_INSTRUCTION|ASSERT)\b|an illegal memory access was encountered|CUBLAS_STATUS_(?:EXECUTION_FAILED|INTERNAL_ERROR|NOT_SUPPORTED|INVALID_VALUE|NOT_INITIALIZED|ARCH_MISMATCH|MAPPING_ERROR)|CUDNN_STATUS_(?:EXECUTION_FAILED|INTERNAL_ERROR|MAPPING_ERROR|BAD_PARAM|NOT_SUPPORTED|ARCH_MISMATCH)|Cannot re-initialize CUDA in forked subprocess|OutOfResources: out of resource`,
}

# Texts that belong to cuda-oom, cuda-env or node.gpu-hardware.
_not_mine := `out of memory|ALLOC_FAILED|no kernel image|busy or unavailable|invalid device ordinal|invalid device function|driver version is insufficient|unknown error|ECC error|uncorrectable|NVLink|no CUDA-capable device|forward compatibility|system not yet initialized|GPU is lost|fallen off the bus`

_errors(hs) := [e |
	some t in exec.all_texts(hs)
	not regex.match(_not_mine, t)
	e := _normalise(t)
]

_normalise(t) := "device-side assert triggered" if {
	regex.match(`device-side assert|Assertion`, t)
} else := m[0][1] if {
	m := regex.find_all_string_submatch_n(`(CUBLAS_STATUS_\w+|CUDNN_STATUS_\w+)`, t, 1)
	count(m) > 0
} else := trim_space(m[0][1]) if {
	m := regex.find_all_string_submatch_n(`(?:CUDA (?:driver )?error|cuda runtime error \(\d+\) ?|THCudaCheck FAIL file=\S+ line=\d+ error=\d+ ?|Triton Error \[CUDA\]): ([^.\n(]+?)(?: at /|$|\.|\()`, t, 1)
	count(m) > 0
} else := "an illegal memory access was encountered" if {
	regex.match(`illegal memory access|IllegalAddress|ILLEGAL_ADDRESS`, t)
} else := "misaligned address" if {
	regex.match(`MisalignedAddress|MISALIGNED_ADDRESS`, t)
} else := "CUDA used in a forked subprocess" if {
	contains(t, "forked subprocess")
} else := "kernel out of resources"

findings contains f if {
	some pod in input.pods
	some c in k8s.containers(pod)
	hs := exec.hits(pod, c, {"exec.cuda-error.assert", "exec.cuda-error.runtime"})
	mine := [h | some h in hs; count(_errors([h])) > 0]
	count(mine) > 0
	f := {
		"subject": exec.hit_subject(pod, c, hs[0]),
		"params": {"error": _errors(mine)[0]},
		"evidence": exec.evidence(pod, c, mine),
		"time": exec.hit_time(c, mine[0]),
	}
}
