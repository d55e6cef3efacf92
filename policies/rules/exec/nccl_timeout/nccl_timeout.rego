# METADATA
# title: Collective operation timed out
# description: |
#   A NCCL (or Gloo) collective did not complete within the process group
#   timeout and the watchdog took the process down. Most often a symptom:
#   one rank crashed, hung, or took a different code path (uneven data,
#   rank-dependent branches, a slow checkpoint or data loader), and the
#   others waited for it. Less often the network or a GPU stalled.
# custom:
#   severity: error
#   owner: user
#   explains: [job.backoff-exceeded, exec.nccl-error]
#   message:
#     en: "{{if .stuck}}The NCCL watchdog thread made no progress for {{.stuck}} and the heartbeat monitor aborted the process.{{else}}A {{.op}} collective timed out{{if .timeout}} after {{.timeout}}{{end}}; the NCCL watchdog aborted the process.{{end}}"
#     zh: "{{if .stuck}}NCCL watchdog 线程 {{.stuck}} 没有进展，heartbeat monitor 终止了进程。{{else}}{{.op}} 集合通信超时{{if .timeout}}（超时时间 {{.timeout}}）{{end}}，NCCL watchdog 终止了进程。{{end}}"
#   remediation:
#     en: |
#       - Look first for a rank that failed or stopped logging before the timeout: its own error (CUDA OOM, exception, Xid) is the root cause; the timeouts on the other ranks are consequences.
#       - If every rank timed out on the same SeqNum, check for rank-dependent code paths (evaluation or saving on rank 0 only, uneven batches, early exit) that leave one rank outside the collective.
#       - Record the collective trace: `TORCH_NCCL_TRACE_BUFFER_SIZE=2000 TORCH_NCCL_DUMP_ON_TIMEOUT=1` (flight recorder) and compare ranks; `TORCH_NCCL_DESYNC_DEBUG=1` names the lagging rank.
#       - If long but legitimate work happens between collectives (checkpoint upload, dataset build), do it before initialising the process group or raise the `timeout` of `init_process_group`.
#       - For network suspicion, run nccl-tests all_reduce_perf across the same nodes and check NCCL_DEBUG=INFO for the transport in use.
#     zh: |
#       - 先找在超时前已失败或停止输出日志的 rank：它自身的错误（CUDA OOM、异常、Xid）才是根因，其他 rank 的超时只是后果。
#       - 如果所有 rank 都在同一个 SeqNum 上超时，检查是否存在依赖 rank 的代码路径（只在 rank 0 上评估或保存、batch 不均、提前退出），使某个 rank 没有参与该集合通信。
#       - 记录集合通信轨迹：`TORCH_NCCL_TRACE_BUFFER_SIZE=2000 TORCH_NCCL_DUMP_ON_TIMEOUT=1`（flight recorder）并对比各 rank；`TORCH_NCCL_DESYNC_DEBUG=1` 会指出落后的 rank。
#       - 如果两次集合通信之间确实有很长的工作（上传检查点、构建数据集），把它放在初始化进程组之前，或增大 `init_process_group` 的 `timeout`。
#       - 如果怀疑网络，在相同节点上运行 nccl-tests 的 all_reduce_perf，并用 NCCL_DEBUG=INFO 检查实际使用的传输方式。
#   zh:
#     title: 集合通信超时
#     description: |
#       NCCL（或 Gloo）集合通信在进程组超时时间内没有完成，watchdog 终止了进程。这通常是症状：某个 rank 崩溃、卡住或走了不同的代码路径（数据不均、依赖 rank 的分支、缓慢的检查点或数据加载），其他 rank 一直在等它。少数情况下是网络或 GPU 停顿。
package traindoc.rules.exec.nccl_timeout

import data.traindoc.lib.exec
import data.traindoc.lib.k8s

# The watchdog's own timeout report, PyTorch 1.8-2.8: "[Rank N] Watchdog
# caught collective operation timeout: WorkNCCL(SeqNum=.., OpType=.., ...)"
# (with "[rankN]:" and "[PG .. Rank N]" prefixes in newer versions, inside
# "NCCL communicator was aborted" with NCCL_ASYNC_ERROR_HANDLING, inside
# DistBackendError in DeepSpeed, Megatron and Ray Train), "Timeout at NCCL
# work: N" (2.2-2.6), "Work WorkNCCL(...) timed out in blocking wait" (with
# TORCH_NCCL_BLOCKING_WAIT=1, where wait() times out before the watchdog),
# and the flight-recorder dump that a timeout triggers on this or another
# rank (2.4+).
signatures contains {
	"id": "exec.nccl-timeout.watchdog",
	"pattern": `[Cc]ollective operation timeout|Timeout at NCCL work: \d+|\bWork Work\w+\(.*\) timed out in blocking wait|Received a dump signal due to a collective timeout|Received a global timeout from another rank|watchdog detected a collective timeout`,
}

# Lines that follow a watchdog abort; on their own they may also follow a
# NCCL error, so they count only when no NCCL error was seen.
signatures contains {
	"id": "exec.nccl-timeout.aborted",
	"pattern": `Some NCCL operations have failed or timed out|NCCL communicator was aborted on rank|ProcessGroupNCCL's watchdog got stuck|Heartbeat monitor timed out|[Ww]atchdog thread terminated with exception|failure detected by watchdog at work sequence id|Exception \(either an error or timeout\) detected by watchdog|Terminating the process after attempting to dump debug info|Observed flight recorder dump signal from another rank`,
}

# Gloo collectives and monitored barriers: rank 0 names the ranks that
# did not arrive; the others report that rank 0 gave up on them.
signatures contains {
	"id": "exec.nccl-timeout.gloo",
	"pattern": `Timed out waiting \d+ ?ms for (?:recv|send) operation to complete|failed to pass monitoredBarrier|timed out in monitoredBarrier|successfully reached monitoredBarrier, but received errors while waiting|Application timeout caused pair closure`,
}

_ids := {"exec.nccl-timeout.watchdog", "exec.nccl-timeout.aborted", "exec.nccl-timeout.gloo"}

_nccl_error_ids := {
	"exec.nccl-error.result", "exec.nccl-error.ib", "exec.nccl-error.ibv", "exec.nccl-error.ofi",
	"exec.nccl-error.connect", "exec.nccl-error.socket", "exec.nccl-error.cuda", "exec.nccl-error.gloo",
	"exec.nccl-error.mismatch", "exec.nccl-error.ifname", "exec.nccl-error.topo",
}

findings contains f if {
	some pod in input.pods
	some c in k8s.containers(pod)
	hs := exec.hits(pod, c, _ids)
	count(hs) > 0
	_timeout_evidence(pod, c, hs)
	texts := exec.all_texts(hs)
	f := {
		"subject": exec.hit_subject(pod, c, hs[0]),
		"params": {"op": _op(texts), "timeout": _timeout(texts), "stuck": _stuck(texts)},
		"evidence": exec.evidence(pod, c, hs),
		"time": exec.hit_time(c, hs[0]),
	}
}

_timeout_evidence(_, _, hs) if {
	some h in hs
	h.id != "exec.nccl-timeout.aborted"
}

_timeout_evidence(_, _, hs) if {
	some t in exec.all_texts(hs)
	regex.match(`Timeout\(ms\)|operation timeout|watchdog got stuck|Heartbeat monitor timed out`, t)
}

_timeout_evidence(pod, c, _) if not exec.has_hit(pod, c, _nccl_error_ids)

# op normalises the collective: "_REDUCE_SCATTER_BASE" -> "REDUCE_SCATTER_BASE".
_op(texts) := op if {
	ops := [m[1] | some t in texts; some m in regex.find_all_string_submatch_n(`OpType=(\w+)`, t, 1)]
	count(ops) > 0
	op := upper(trim(ops[0], "_"))
} else := "collective"

_timeout(texts) := sprintf("%v min", [round(ms / 60000)]) if {
	mss := [to_number(m[1]) | some t in texts; some m in regex.find_all_string_submatch_n(`Timeout\(ms\)=(\d+)`, t, 1)]
	count(mss) > 0
	ms := mss[0]
} else := ""

# The heartbeat monitor fires when the watchdog thread itself hangs (a
# CUDA or NCCL call that never returns), not on a collective's timeout.
_stuck(texts) := "" if {
	some t in texts
	contains(t, "OpType=")
} else := sprintf("%s s", [ss[0]]) if {
	ss := [m[1] | some t in texts; some m in regex.find_all_string_submatch_n(`watchdog got stuck for (\d+) seconds`, t, 1)]
	count(ss) > 0
} else := ""
