# METADATA
# title: The job failed and no rule names why
# description: |
#   The job, or one of its replicas, failed, and no rule recognised the
#   cause. Rather than call such a job healthy or say nothing, traindoc
#   shows what a person needs to look further: the failure condition, the
#   first container that failed, its last log lines and its last traceback.
#   The engine drops this finding as soon as any other fault is found.
# custom:
#   severity: error
#   owner: user
#   message:
#     en: "{{.object}} failed and no rule recognised the cause{{if .container}}; the first failure was {{.container}}{{end}}."
#     zh: "{{.object}} 失败，但没有规则识别出原因{{if .container}}；最先失败的是 {{.container}}{{end}}。"
#   remediation:
#     en: |
#       - Read the last log lines and traceback in the evidence: they are from the first container that failed, which is usually closest to the cause.
#       - Look at the container's previous instance too (`kubectl logs <pod> -c <container> --previous`) and at the pod's events (`kubectl describe pod <pod>`).
#       - If the log is empty or cut, run with `PYTHONUNBUFFERED=1` and keep logs longer, then collect again.
#       - When you find the cause, a rule can recognise it next time: see the rule authoring section of the README (`--policies`).
#     zh: |
#       - 阅读证据中的最后几行日志和 traceback：它们来自最先失败的容器，通常离原因最近。
#       - 同时查看该容器的上一个实例（`kubectl logs <pod> -c <container> --previous`）和 Pod 的事件（`kubectl describe pod <pod>`）。
#       - 如果日志为空或被截断，设置 `PYTHONUNBUFFERED=1` 并延长日志保留时间，然后重新采集。
#       - 找到原因后，可以写一条规则让下次自动识别：见 README 中编写规则的部分（`--policies`）。
#   zh:
#     title: 作业失败，但没有规则指出原因
#     description: |
#       作业或其某个副本失败了，但没有规则识别出原因。traindoc 不会把这样的作业当作健康或不作说明，而是给出进一步排查所需的信息：失败条件、最先失败的容器、它的最后几行日志和最后一个 traceback。一旦发现任何其他故障，引擎就会去掉这条发现。
package traindoc.rules.job.unexplained_failure

import data.traindoc.lib.k8s

# How many of the last log lines to show.
_tail_lines := 20

# The job's own failure condition, when it has one.
_failed_conditions contains c if {
	some c in object.get(object.get(input, "status", {}), "conditions", [])
	c.type == "Failed"
	c.status == "True"
}

# Failed containers: terminated now with a non-zero exit, or (for a crash
# loop) in their last instance. The time orders them.
_failed_containers contains [t, pod.name, c.name] if {
	some pod in input.pods
	some c in k8s.containers(pod)
	some which in ["state", "lastState"]
	s := c[which]
	s.state == "terminated"
	k8s.exit_code(s) != 0
	t := object.get(s, "finishedAt", "")
}

# Failed pods without a failed container (evicted, lost node, deleted).
_failed_pods contains [object.get(pod, "startTime", ""), pod.name] if {
	some pod in input.pods
	pod.phase == "Failed"
}

_failed if {
	input.phase == "Failed"
}

_failed if {
	input.phase != "Succeeded"
	count(_failed_containers) > 0
}

_failed if {
	input.phase != "Succeeded"
	count(_failed_pods) > 0
}

# The first failing container: earliest end, unknown times last.
_first := x if {
	known := sort([x | some x in _failed_containers; x[0] != ""])
	count(known) > 0
	x := known[0]
} else := x if {
	xs := sort(_failed_containers)
	count(xs) > 0
	x := xs[0]
}

_pod(name) := p if {
	some p in input.pods
	p.name == name
}

_container(pod, name) := c if {
	some c in k8s.containers(pod)
	c.name == name
}

# The log of the failed instance: the previous one when the container has
# restarted since, else the current one.
_log(c) := lf if {
	c.state.state != "terminated"
	some lf in _own_logs(c)
	lf.previous
} else := lf if {
	some lf in _own_logs(c)
	not lf.previous
} else := lf if {
	some lf in _own_logs(c)
}

# The container's own logs, not command outputs scanned like logs.
_own_logs(c) := [lf | some lf in object.get(c, "logs", []); not lf.exec]

_log_evidence(pod, c) := [e |
	lf := _log(c)
	some e in array.concat(_tail_evidence(pod, c, lf), _traceback_evidence(pod, c, lf))
]

_tail_evidence(pod, c, lf) := [{
	"kind": "log",
	"source": sprintf("pod %s container %s (last lines)", [pod.name, c.name]),
	"object": k8s.pod_ref(pod),
	"file": lf.file,
	"text": concat("\n", array.slice(tail, count(tail) - _tail_lines, count(tail))),
}] if {
	tail := object.get(lf, "tail", [])
	count(tail) > 0
} else := []

_traceback_evidence(pod, c, lf) := [{
	"kind": "log",
	"source": sprintf("pod %s container %s (last traceback)", [pod.name, c.name]),
	"object": k8s.pod_ref(pod),
	"file": lf.file,
	"text": concat("\n", tb),
}] if {
	tb := object.get(lf, "traceback", [])
	count(tb) > 0
} else := []

_condition_evidence := [k8s.condition_evidence(k8s.job_ref, "status.conditions[Failed]", c) | some c in _failed_conditions]

_object := sprintf("%s %s", [input.kind, input.name])

# A failed container is known: name it, with its state, last lines and
# traceback.
findings contains f if {
	_failed
	first := _first
	pod := _pod(first[1])
	c := _container(pod, first[2])
	s := k8s.terminated(c)
	f := {
		"subject": k8s.container_subject(pod, c),
		"params": {"object": _object, "container": sprintf("%s/%s", [pod.name, c.name])},
		"evidence": array.concat(array.concat(_condition_evidence, [k8s.state_evidence(pod, c, "state", s)]), _log_evidence(pod, c)),
		"time": object.get(s, "finishedAt", ""),
	}
}

# No container failed (pods cleaned up, evicted, or never started): the
# job's condition or the failed pods are all there is.
findings contains f if {
	_failed
	not _first
	f := {
		"subject": {"kind": input.kind, "name": input.name},
		"params": {"object": _object, "container": ""},
		"evidence": array.concat(array.concat(_condition_evidence, [_pod_evidence(p) | some x in _failed_pods; p := _pod(x[1])]), _cleaned_up_evidence),
		"time": _condition_time,
	}
}

# When no pod is left, say why the usual evidence is missing and show what
# remains of it: the clean-up policy that deleted the pods with their logs
# and exit codes, the replica counts the controller kept, and the
# operator's events that recorded exit codes.
_cleaned_up_evidence := array.concat(array.concat(_policy_evidence, _counts_evidence), _exit_events) if {
	count(object.get(input, "pods", [])) == 0
} else := []

_policy_evidence := [k8s.field_evidence(k8s.job_ref, "spec.runPolicy.cleanPodPolicy", sprintf("cleanPodPolicy %s: the pods were deleted when the job finished, with their logs, exit codes and container states; collect with cleanPodPolicy None to keep them", [p]))] if {
	p := object.get(object.get(object.get(input, "spec", {}), "runPolicy", {}), "cleanPodPolicy", "")
	p in {"All", "Running", "Unfinished"}
} else := [k8s.field_evidence(k8s.job_ref, "pods", "no pod of the job is left: logs, exit codes and container states are missing")]

_counts_evidence := [k8s.field_evidence(k8s.job_ref, sprintf("status.replicaStatuses[%s]", [g.type]), sprintf("%s: failed=%d", [g.type, g.reported.failed])) |
	some g in object.get(input, "replicas", [])
	object.get(object.get(g, "reported", {}), "failed", 0) > 0
]

_exit_events := [k8s.event_evidence(e) |
	some e in object.get(input, "events", [])
	e.reason == "ExitedWithCode"
]

_pod_evidence(pod) := k8s.field_evidence(k8s.pod_ref(pod), "status.phase", trim_space(sprintf("Failed %s %s", [object.get(pod, "reason", ""), object.get(pod, "message", "")])))

_condition_time := ts[0] if {
	ts := sort([object.get(c, "lastTransitionTime", "") | some c in _failed_conditions])
	count(ts) > 0
} else := ""
