# METADATA
# title: The job succeeded or runs with all its replicas
# description: |
#   The job completed successfully, or it is running with every expected
#   replica up and no container stuck in a failing state. When another rule
#   finds something at warning or above, the job is not healthy and the engine
#   leaves this finding out of the report.
# custom:
#   category: healthy
#   severity: info
#   owner: user
#   message:
#     en: "{{if eq .state \"succeeded\"}}The job completed successfully.{{else}}The job is running with all {{.replicas}} replica(s) up.{{end}}"
#     zh: "{{if eq .state \"succeeded\"}}作业已成功完成。{{else}}作业正在运行，全部 {{.replicas}} 个副本均已就绪。{{end}}"
#   remediation:
#     en: |
#       - Nothing to fix. For a running job, watch progress (steps, loss, throughput) and checkpoints; rerun the diagnosis if it slows down or stops.
#     zh: |
#       - 无需处理。对于运行中的作业，请关注训练进度（步数、loss、吞吐）和检查点；如果变慢或停止，请重新诊断。
#   zh:
#     title: 作业已成功或全部副本正常运行
#     description: |
#       作业已成功完成，或者正在运行且所有期望的副本都已启动、没有容器卡在失败状态。若其他规则发现警告及以上级别的问题，作业即不健康，引擎不会在报告中列出本条结论。
package traindoc.rules.control.healthy

import data.traindoc.lib.k8s

_status := object.get(input, "status", {})

_conditions := k8s.list(object.get(_status, "conditions", []))

_failed if input.phase == "Failed"

_failed if {
	some c in _conditions
	c.type == "Failed"
	c.status == "True"
}

# Succeeded: the normalised phase, a Succeeded/Complete/Completed condition,
# RayJob SUCCEEDED, T9k Succeeded.
_success_evidence contains k8s.field_evidence(k8s.job_ref, "status.phase", "Succeeded") if input.phase == "Succeeded"

_success_evidence contains k8s.condition_evidence(k8s.job_ref, sprintf("status.conditions[%s]", [c.type]), c) if {
	some c in _conditions
	c.type in {"Succeeded", "Complete", "Completed"}
	c.status == "True"
}

_success_evidence contains k8s.field_evidence(k8s.job_ref, "status.jobStatus", p) if {
	p := object.get(_status, "phase", "")
	upper(p) == "SUCCEEDED"
}

findings contains f if {
	not _failed
	count(_success_evidence) > 0
	evs := sort([e | some e in _success_evidence])
	times := sort([t | some e in evs; t := object.get(e, "time", ""); t != ""])
	f := {
		"subject": {"kind": input.kind, "name": input.name},
		"params": {"state": "succeeded", "replicas": _expected},
		"evidence": evs,
		"time": _first(times, object.get(_status, "completionTime", object.get(input, "createdAt", ""))),
	}
}

_expected := sum([g.expected | some g in k8s.list(input.replicas)])

# Waiting reasons that are part of a normal start.
_normal_waiting := {"ContainerCreating", "PodInitializing"}

_bad_container if {
	some pod in k8s.list(input.pods)
	some c in k8s.containers(pod)
	c.state.state == "waiting"
	not object.get(c.state, "reason", "") in _normal_waiting
}

_short_group if {
	some g in k8s.list(input.replicas)
	g.running + g.succeeded < g.expected
}

_bad_pod if {
	some pod in k8s.list(input.pods)
	pod.phase in {"Failed", "Unknown", "Pending"}
}

findings contains f if {
	input.phase == "Running"
	not _failed
	count(k8s.list(input.replicas)) > 0
	_expected > 0
	not _short_group
	not _bad_container
	not _bad_pod
	f := {
		"subject": {"kind": input.kind, "name": input.name},
		"params": {"state": "running", "replicas": _expected},
		"evidence": [k8s.field_evidence(k8s.job_ref, "replicas", concat(", ", [sprintf("%s %d/%d running", [g.type, g.running + g.succeeded, g.expected]) | some g in k8s.list(input.replicas)]))],
		"time": object.get(_status, "startTime", object.get(input, "createdAt", "")),
	}
}

_first(ts, _) := ts[0] if count(ts) > 0

_first(ts, fallback) := fallback if count(ts) == 0
