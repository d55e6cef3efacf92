# METADATA
# title: Native crash (segmentation fault or abort)
# description: |
#   A process crashed in native code: SIGSEGV (exit 139, "Segmentation
#   fault", torchrun exitcode -11) or SIGABRT (exit 134, an uncaught C++
#   exception such as c10::Error, torchrun exitcode -6). An abort that
#   follows a NCCL, CUDA or other error in the same container is that error's
#   consequence and is not reported here.
# custom:
#   severity: error
#   owner: user
#   explains: [job.backoff-exceeded]
#   message:
#     en: "A process crashed with {{.signal}}."
#     zh: "进程因 {{.signal}} 崩溃。"
#   remediation:
#     en: |
#       - Check the node for GPU Xid errors around the crash time first; a failing GPU often shows up as a segfault or a c10::Error abort.
#       - Get a native stack: `PYTHONFAULTHANDLER=1` (or `python -X faulthandler`), and core dumps (`ulimit -c unlimited`) or `gdb -p` on a reproducing rank.
#       - Look for mismatched native builds: flash-attention, apex, bitsandbytes, DeepSpeed ops or custom extensions compiled against another PyTorch/CUDA version; rebuild or pin matching wheels.
#       - DataLoader workers crashing with SIGSEGV: try `num_workers=0` to surface the error, and avoid forking after CUDA or threads were initialised (`multiprocessing_context="spawn"`).
#     zh: |
#       - 先检查崩溃时刻节点上是否有 GPU Xid 错误；故障 GPU 常常表现为段错误或 c10::Error 中止。
#       - 获取原生调用栈：`PYTHONFAULTHANDLER=1`（或 `python -X faulthandler`），开启 core dump（`ulimit -c unlimited`），或对能复现的 rank 使用 `gdb -p`。
#       - 检查原生库是否版本不匹配：flash-attention、apex、bitsandbytes、DeepSpeed ops 或自定义扩展是否针对其他 PyTorch/CUDA 版本编译；重新编译或固定匹配的版本。
#       - DataLoader worker 因 SIGSEGV 崩溃：先用 `num_workers=0` 暴露真正的错误，并避免在初始化 CUDA 或线程之后 fork（`multiprocessing_context="spawn"`）。
#   zh:
#     title: 原生崩溃（段错误或中止）
#     description: |
#       进程在原生代码中崩溃：SIGSEGV（退出码 139、"Segmentation fault"、torchrun exitcode -11）或 SIGABRT（退出码 134、未捕获的 C++ 异常如 c10::Error、torchrun exitcode -6）。在同一容器中跟随 NCCL、CUDA 或其他错误之后的中止是该错误的后果，不在此报告。
package traindoc.rules.exec.segfault

import data.traindoc.lib.exec
import data.traindoc.lib.k8s

# Not Ray's "(3) The worker is crashed unexpectedly due to SIGSEGV" list of
# possible causes: only lines that say a crash happened. Launchers that
# forward a child's signal (torch.distributed.launch and Accelerate through
# subprocess, torch.multiprocessing.spawn) count as saying so.
signatures contains {
	"id": "exec.segfault.sigsegv",
	"pattern": `Segmentation fault|\*\*\* SIGSEGV|SIGSEGV: segmentation violation|received signal SIGSEGV|DataLoader worker \(pid \d+\) is killed by signal: Segmentation fault|died with <Signals\.SIGSEGV: 11>|process \d+ terminated with signal SIGSEGV`,
}

signatures contains {
	"id": "exec.segfault.sigabrt",
	"pattern": `terminate called after throwing an instance of|Fatal Python error: Aborted|Aborted \(core dumped\)|\*\*\* SIGABRT|died with <Signals\.SIGABRT: 6>|process \d+ terminated with signal SIGABRT`,
}

_segv_ids := {"exec.segfault.sigsegv", "launcher.sigsegv"}

_abrt_ids := {"exec.segfault.sigabrt", "launcher.sigabrt"}

_exit_signal := {139: "SIGSEGV (exit code 139)", 134: "SIGABRT (exit code 134)"}

findings contains f if {
	some pod in input.pods
	some c in k8s.containers(pod)
	hs := exec.hits(pod, c, _segv_ids)
	count(hs) > 0
	f := {
		"subject": exec.hit_subject(pod, c, hs[0]),
		"params": {"signal": "SIGSEGV"},
		"evidence": exec.evidence(pod, c, hs),
		"time": exec.hit_time(c, hs[0]),
	}
}

findings contains f if {
	some pod in input.pods
	some c in k8s.containers(pod)
	not exec.has_hit(pod, c, _segv_ids)
	not _other_cause(pod, c)
	hs := exec.hits(pod, c, _abrt_ids)
	count(hs) > 0
	f := {
		"subject": exec.hit_subject(pod, c, hs[0]),
		"params": {"signal": "SIGABRT"},
		"evidence": exec.evidence(pod, c, hs),
		"time": exec.hit_time(c, hs[0]),
	}
}

# Exit codes alone, when the logs say nothing.
findings contains f if {
	input.phase != "Succeeded"
	some pod in input.pods
	some c in k8s.containers(pod)
	not exec.has_hit(pod, c, _segv_ids | _abrt_ids)
	some which in ["state", "lastState"]
	s := c[which]
	s.state == "terminated"
	sig := _exit_signal[k8s.exit_code(s)]
	not _other_cause(pod, c)
	f := {
		"subject": exec.subject(pod, c),
		"params": {"signal": sig},
		"evidence": [k8s.state_evidence(pod, c, which, s)],
		"time": exec.state_time(c, s),
	}
}

# Another failure signature in the same container explains an abort.
_other_cause(pod, c) if {
	some lf in exec.logs(c)
	some id, m in lf.matches
	not id in (_segv_ids | _abrt_ids)
	_is_failure_id(id)
	exec.relevant(pod, c, lf, m)
}

_is_failure_id(id) if startswith(id, "exec.")

_is_failure_id(id) if startswith(id, "node.")
