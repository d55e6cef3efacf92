# METADATA
# title: Killed from outside (SIGKILL or SIGTERM, not memory)
# description: |
#   The container or its training process was stopped by a signal it did not
#   raise itself: exit 137 without any sign of an OOM kill (no OOMKilled
#   reason, no OOM event on the node, no kernel OOM line), exit 143 (SIGTERM), a liveness
#   probe that failed and restarted the container, or torchrun receiving a
#   death signal. Usually this is a consequence (the job was torn down after
#   another replica failed, the pod was deleted or preempted); a liveness
#   probe kill is a cause of its own.
# custom:
#   severity: warning
#   owner: platform
#   explains: [job.backoff-exceeded]
#   message:
#     en: "The container was stopped by a signal from outside: {{.how.en}}."
#     zh: "容器被外部信号终止：{{.how.zh}}。"
#   remediation:
#     en: |
#       - Find who sent the signal: `kubectl describe pod` events (Killing, Preempting, Evicted, liveness probe), the job controller's events, and whether another replica failed just before.
#       - If a liveness probe killed it, make the probe tolerate long steps, evaluation and checkpoint saves (raise `timeoutSeconds`, `periodSeconds` and `failureThreshold`, or drop the probe for training containers).
#       - If the job was torn down after another replica failed, diagnose that replica: this finding is the consequence.
#       - Handle SIGTERM in the training script (save a checkpoint) and give it enough `terminationGracePeriodSeconds`.
#     zh: |
#       - 找出信号来源：`kubectl describe pod` 中的事件（Killing、Preempting、Evicted、存活探针），作业控制器的事件，以及是否有其他副本刚刚失败。
#       - 如果是存活探针（liveness probe）杀死了容器，让探针能容忍长时间的 step、评估和检查点保存（增大 `timeoutSeconds`、`periodSeconds` 和 `failureThreshold`，或不给训练容器配置该探针）。
#       - 如果是其他副本失败后作业被整体销毁，请诊断那个副本：本条只是后果。
#       - 在训练脚本中处理 SIGTERM（保存检查点），并设置足够的 `terminationGracePeriodSeconds`。
#   zh:
#     title: 被外部信号终止（SIGKILL 或 SIGTERM，非内存原因）
#     description: |
#       容器或其训练进程被非自身产生的信号终止：退出码 137 且没有任何 OOM 迹象（原因不是 OOMKilled，节点上没有 OOM 事件，也没有内核 OOM 日志）、退出码 143（SIGTERM）、存活探针失败导致容器重启，或 torchrun 收到终止信号。通常这是后果（其他副本失败后作业被销毁、Pod 被删除或抢占）；存活探针导致的终止本身就是原因。
package traindoc.rules.exec.killed

import data.traindoc.lib.exec
import data.traindoc.lib.k8s
import data.traindoc.lib.resources

# torchrun's agent receiving a signal (PyTorch 1.9 to 2.x wordings), and
# mpirun or MPICH Hydra reporting a rank terminated by SIGTERM.
signatures contains {
	"id": "exec.killed.launcher-signal",
	"pattern": `SignalException: Process \d+ got signal: (?:15|1|2)\b|Received (?:Signals\.)?(?:SIGTERM|SIGHUP|SIGINT|15|1|2) death signal, shutting down workers|Main process received SIG(?:TERM|INT|HUP), exiting|exited on signal 15 \(Terminated\)|TERMINATED WITH THE EXIT STRING: Terminated \(signal 15\)|DataLoader worker \(pids?\(?s?\)?[\d, ]+\) is killed by signal: Terminated`,
}

_exit_how := {
	137: {"en": "exit code 137 (SIGKILL) without OOMKilled", "zh": "退出码 137（SIGKILL），但没有 OOMKilled"},
	143: {"en": "exit code 143 (SIGTERM)", "zh": "退出码 143（SIGTERM）"},
}

# Exit codes of the container.
findings contains f if {
	input.phase != "Succeeded"
	some pod in input.pods
	some c in k8s.containers(pod)
	some which in ["state", "lastState"]
	s := c[which]
	s.state == "terminated"
	object.get(s, "reason", "") != "OOMKilled"
	code := k8s.exit_code(s)
	how := _exit_how[code]
	not _liveness_killed(pod, c)
	not _host_oom(pod, c, code)
	f := {
		"subject": exec.subject(pod, c),
		"params": {"how": how},
		"evidence": [k8s.state_evidence(pod, c, which, s)],
		"time": exec.state_time(c, s),
	}
}

# Liveness probe kills (kubelet events).
findings contains f if {
	input.phase != "Succeeded"
	some pod in input.pods
	some c in k8s.containers(pod)
	_liveness_killed(pod, c)
	evs := _liveness_events(pod, c)
	f := {
		"subject": exec.subject(pod, c),
		"params": {"how": {"en": "the liveness probe failed and the kubelet restarted the container", "zh": "存活探针失败，kubelet 重启了容器"}},
		"evidence": [k8s.event_evidence(e) | some e in evs],
		"time": min({k8s.event_time(e) | some e in evs}),
		"severity": "error",
		"owner": "user",
		# The same probe kills the restarted container at the same point.
		"retryable": false,
	}
}

# torchrun itself was signalled (container may still have exited 1).
findings contains f if {
	some pod in input.pods
	some c in k8s.containers(pod)
	not _exit_signalled(c)
	not _liveness_killed(pod, c)
	hs := exec.hits(pod, c, {"exec.killed.launcher-signal"})
	count(hs) > 0
	f := {
		"subject": exec.subject(pod, c),
		"params": {"how": {"en": "the launcher received a termination signal", "zh": "启动器收到了终止信号"}},
		"evidence": exec.evidence(pod, c, hs),
		"time": exec.hit_time(c, hs[0]),
	}
}

# A SIGKILL the kernel's OOM killer sent is exec.oom-killed: the status
# says "Error" when the victim was not the container's first process, but
# node events, the pod's kernel log or cgroup counters tell.
_host_oom(pod, c, 137) if resources.host_oom(pod, c)

_exit_signalled(c) if {
	some which in ["state", "lastState"]
	c[which].state == "terminated"
	object.get(c[which], "reason", "") != "OOMKilled"
	_exit_how[k8s.exit_code(c[which])]
}

_liveness_events(pod, c) := [e |
	some e in k8s.pod_events(pod.name)
	_is_liveness(e, c.name)
]

_is_liveness(e, name) if {
	e.reason == "Killing"
	contains(e.message, "failed liveness probe")
	contains(e.message, sprintf("Container %s ", [name]))
}

_is_liveness(e, _) if {
	e.reason == "Unhealthy"
	startswith(e.message, "Liveness probe failed")
}

_liveness_killed(pod, c) if {
	some e in _liveness_events(pod, c)
	e.reason == "Killing"
}

_liveness_killed(pod, c) if {
	count(_liveness_events(pod, c)) > 0
	c.restartCount > 0
}
