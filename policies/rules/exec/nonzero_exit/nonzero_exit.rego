# METADATA
# title: Container exited with an error
# description: |
#   A container terminated with a non-zero exit code and nothing more specific
#   was found in its logs or state. The exit code is the only clue: 1 is
#   usually an exception, 2 a usage error, 126/127 a command that cannot run,
#   128+N a signal N.
# custom:
#   severity: error
#   owner: user
#   explains: [job.backoff-exceeded]
#   message:
#     en: "The container exited with code {{.code}} ({{.meaning.en}})."
#     zh: "容器以退出码 {{.code}} 退出（{{.meaning.zh}}）。"
#   remediation:
#     en: |
#       - Read the end of the container log (`kubectl logs <pod> -c <container> --previous`); run with `PYTHONUNBUFFERED=1` so the last lines are not lost.
#       - 127/126: check the command and image (`command`/`args`, the entrypoint exists and is executable).
#       - 2: check the arguments against the script's usage line.
#       - If the log is empty, enable `--log-dir`/`--redirects` for torchrun or increase the log retention of the collector.
#     zh: |
#       - 查看容器日志的末尾（`kubectl logs <pod> -c <container> --previous`）；设置 `PYTHONUNBUFFERED=1` 以免丢失最后几行。
#       - 127/126：检查命令和镜像（`command`/`args`，入口文件存在且可执行）。
#       - 2：对照脚本的用法说明检查参数。
#       - 如果日志为空，为 torchrun 开启 `--log-dir`/`--redirects`，或延长采集器的日志保留。
#   zh:
#     title: 容器以错误退出
#     description: |
#       容器以非零退出码终止，且在其日志或状态中没有找到更具体的原因。退出码是唯一线索：1 通常是异常，2 是用法错误，126/127 是命令无法执行，128+N 是信号 N。
package traindoc.rules.exec.nonzero_exit

import data.traindoc.lib.exec
import data.traindoc.lib.k8s

# What an exit code usually means, in both languages of the message.
_meanings := {
	1: {"en": "general error, usually an uncaught exception", "zh": "一般错误，通常是未捕获的异常"},
	2: {"en": "usage error: bad command-line arguments", "zh": "用法错误：命令行参数有误"},
	126: {"en": "the command cannot be executed", "zh": "命令无法执行"},
	127: {"en": "command not found", "zh": "找不到命令"},
	134: _same("SIGABRT"),
	135: _same("SIGBUS"),
	137: _same("SIGKILL"),
	139: _same("SIGSEGV"),
	143: _same("SIGTERM"),
}

_same(s) := {"en": s, "zh": s}

_meaning(code) := m if {
	m := _meanings[code]
} else := {"en": sprintf("killed by signal %d", [n]), "zh": sprintf("被信号 %d 终止", [n])} if {
	code > 128
	code < 160
	n := code - 128
} else := {"en": "error", "zh": "错误"}

findings contains f if {
	input.phase != "Succeeded"
	some pod in input.pods
	some c in k8s.containers(pod)
	some which in ["state", "lastState"]
	s := c[which]
	s.state == "terminated"
	code := k8s.exit_code(s)
	code > 0
	not _newer_failure(c, which)
	f := {
		"subject": exec.subject(pod, c),
		"params": {"code": code, "meaning": _meaning(code)},
		"evidence": array.concat([k8s.state_evidence(pod, c, which, s)], _tail(pod, c, which)),
		"time": exec.state_time(c, s),
	}
}

# Report one exit per container: the current one when both failed.
_newer_failure(c, "lastState") if {
	c.state.state == "terminated"
	k8s.exit_code(c.state) > 0
}

# The last lines of the log of the instance that failed: the previous
# instance's log for lastState, the current log for state. A container with
# both logs has one tail per instance, never two for the same exit.
_tail(pod, c, which) := [{
	"kind": "log",
	"source": sprintf("pod %s container %s", [pod.name, c.name]),
	"object": k8s.pod_ref(pod),
	"file": lf.file,
	"text": concat("\n", array.slice(tail, count(tail) - 5, count(tail))),
}] if {
	lf := _instance_log(c, which)
	tail := object.get(lf, "tail", [])
	count(tail) > 0
} else := []

_instance_log(c, "lastState") := lf if {
	some lf in exec.logs(c)
	lf.previous
} else := lf if {
	c.state.state != "terminated"
	some lf in exec.logs(c)
	not lf.previous
}

_instance_log(c, "state") := lf if {
	some lf in exec.logs(c)
	not lf.previous
}
