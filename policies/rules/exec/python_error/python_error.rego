# METADATA
# title: Uncaught Python exception
# description: |
#   The training process ended with an uncaught Python exception that no more
#   specific rule explains (KeyError, ValueError, TypeError, AttributeError,
#   IndexError, AssertionError, a shape mismatch, ...). It is the program's
#   own error. A launcher's wrapper (torchrun's ChildFailedError, Accelerate's
#   CalledProcessError, Ray's RayTaskError) names the rank's exception, also
#   when mpirun tags each rank's lines.
# custom:
#   severity: error
#   owner: user
#   explains: [job.backoff-exceeded]
#   message:
#     en: "Uncaught {{.type}}."
#     zh: "未捕获的 {{.type}}。"
#   remediation:
#     en: |
#       - Read the traceback in the evidence: the last frame in your code is where to look.
#       - Reproduce on one process with the same arguments and data shard (`--nproc_per_node=1`, a few steps) to debug quickly.
#       - If it happens only on some ranks, compare their inputs (data shards, config per rank) and environment.
#     zh: |
#       - 阅读证据中的 traceback：最后一个位于你代码中的调用帧就是要查看的位置。
#       - 用相同参数和数据分片在单进程上复现（`--nproc_per_node=1`，跑几个 step），便于快速调试。
#       - 如果只在部分 rank 上出现，对比这些 rank 的输入（数据分片、每个 rank 的配置）和环境。
#   zh:
#     title: 未捕获的 Python 异常
#     description: |
#       训练进程以一个未被捕获、且没有更具体规则能解释的 Python 异常结束（KeyError、ValueError、TypeError、AttributeError、IndexError、AssertionError、形状不匹配等）。这是程序自身的错误。启动器的包装异常（torchrun 的 ChildFailedError、Accelerate 的 CalledProcessError、Ray 的 RayTaskError）报告的是 rank 自身的异常，mpirun 给每个 rank 的输出加标签时也是如此。
package traindoc.rules.exec.python_error

import data.traindoc.lib.exec
import data.traindoc.lib.k8s
import data.traindoc.lib.python

# mpirun's --tag-output (MPIJob launchers, Horovod, DeepSpeed's MPI
# runner) puts "[1,3]<stderr>:" before every line of a rank, which hides
# its tracebacks from the scanner: the rank's exception line is found by
# this context signature instead.
signatures contains {
	"id": "launcher.mpi-exception",
	"pattern": `^\[\d+,\d+\]<std(?:out|err)>:\s*(?:[A-Za-z_]\w*\.)*[A-Z]\w*(?:Error|Exception|Interrupt|Exit|Failure)(?:\([\w.]+\))?: `,
	"hint": ">:",
}

# The exception of a log (see python.exception): the rank's own when the
# last traceback is a launcher's wrapper, else the last exception line an
# mpirun rank printed.
_exception(lf) := e if {
	e := python.exception(lf)
	e != ""
} else := e if {
	es := [s.text |
		some s in object.get(object.get(lf, "matches", {}), ["launcher.mpi-exception", "samples"], [])
		not exec.exception_type(s.text) in exec.wrapper_exceptions
	]
	count(es) > 0
	e := es[count(es) - 1]
}

# The log to read: the current one if the container failed now, else the
# previous instance.
_log(pod, c) := lf if {
	some lf in exec.logs(c)
	not lf.previous
	_ended(pod, c)
	_exception(lf)
} else := lf if {
	some lf in exec.logs(c)
	lf.previous
	_exception(lf)
}

_ended(_, c) if {
	c.state.state == "terminated"
	k8s.exit_code(c.state) != 0
}

_ended(_, _) if input.phase == "Failed"

_ended(pod, _) if pod.phase == "Failed"

findings contains f if {
	input.phase != "Succeeded"
	some pod in input.pods
	some c in k8s.containers(pod)
	not _specific_cause(pod, c)
	lf := _log(pod, c)
	e := _exception(lf)
	type := exec.exception_type(e)
	f := {
		"subject": exec.subject(pod, c),
		"params": {"type": type},
		"evidence": array.concat(
			[{
				"kind": "log",
				"source": sprintf("pod %s container %s", [pod.name, c.name]),
				"object": k8s.pod_ref(pod),
				"file": lf.file,
				"text": e,
			}],
			_frame(pod, c, lf),
		),
		"time": exec.finished_at(c, lf),
	}
}

# _specific_cause holds when a failure signature (exec.*, node.*) matched
# relevantly in the container and training did not carry on after it. A
# match the log trained past (a caught OOM whose batch was skipped, a
# retried download) explains nothing, and the uncaught exception that
# ended the run later is the cause; rules that still report such a match
# replace this fallback anyway.
_specific_cause(pod, c) if {
	some lf in exec.scanned(c)
	some id, m in lf.matches
	_failure_id(id)
	exec.relevant(pod, c, lf, m)
	not exec.survived(lf, m)
}

_failure_id(id) if startswith(id, "exec.")

_failure_id(id) if startswith(id, "node.")

# The innermost "File ..." line of the traceback, when the scanner kept it.
_frame(pod, c, lf) := [{
	"kind": "log",
	"source": sprintf("pod %s container %s", [pod.name, c.name]),
	"object": k8s.pod_ref(pod),
	"file": lf.file,
	"text": trim_space(frames[count(frames) - 1]),
}] if {
	tb := object.get(lf, "traceback", [])
	frames := [l | some l in tb; startswith(trim_space(l), "File \"")]
	count(frames) > 0
	not exec.exception_type(object.get(lf, "exception", "")) in exec.wrapper_exceptions
} else := []
