# METADATA
# title: The job used up its retries
# description: |
#   The job, or a Job beneath it, failed because its pods failed more often
#   than the backoff limit allows (BackoffLimitExceeded), or a TensorStack
#   job or RayJob restarted as many times as permitted. This is a
#   consequence: the failures that used up the retries are the cause.
# custom:
#   severity: error
#   owner: user
#   message:
#     en: "{{.object}} gave up after {{if .restarts}}{{.restarts}} restarts{{else}}repeated pod failures{{end}}{{if .limit}} (backoff limit {{.limit}}){{end}}."
#     zh: "{{.object}} 在{{if .restarts}} {{.restarts}} 次重启{{else}}多次 Pod 失败{{end}}后放弃重试{{if .limit}}（backoff limit 为 {{.limit}}）{{end}}。"
#   remediation:
#     en: |
#       - Look at why the pods failed, not at the limit: the first failed pod's exit code, reason and log (`kubectl logs <pod> --previous`) name the cause; the report's other findings usually do.
#       - Raise `backoffLimit` (runPolicy, Job spec or RayJob `backoffLimit`) only for failures that are transient (preemption, node loss), and make restarts resume from a checkpoint.
#       - For failures that repeat identically (a code or config error), fix the cause; retrying cannot help.
#     zh: |
#       - 关注 Pod 失败的原因而不是重试上限：第一个失败 Pod 的退出码、原因和日志（`kubectl logs <pod> --previous`）会指出根因；报告中的其他发现通常已经给出。
#       - 只有对暂时性故障（抢占、节点丢失）才值得提高 `backoffLimit`（runPolicy、Job spec 或 RayJob 的 `backoffLimit`），并让重启从检查点恢复。
#       - 每次都以相同方式失败（代码或配置错误）时，请修复根因；重试无济于事。
#   zh:
#     title: 作业的重试次数已用完
#     description: |
#       作业或其下层的 Job 因为 Pod 失败次数超过 backoff limit 而失败（BackoffLimitExceeded），或者 TensorStack 作业、RayJob 的重启次数达到了上限。这只是结果：用完重试次数的那些失败才是原因。
package traindoc.rules.job.backoff_exceeded

import data.traindoc.lib.k8s

_status := object.get(input, "status", {})

_limit := sprintf("%d", [l]) if {
	l := input.spec.runPolicy.backoffLimit
} else := ""

# The retry budget in each controller's words: batch Job and the Kubeflow
# operators ("has reached the specified backoff limit"), Job's per-index
# limit (MaxFailedIndexesExceeded, FailedIndexes), JobSet's maxRestarts
# (ReachedMaxRestarts, which a TrainJob copies).
_backoff_text := `(?i)BackoffLimitExceeded|backoff ?limit|reached the specified backoff|MaxFailedIndexesExceeded|maximal number of failed indexes|\bFailedIndexes\b|ReachedMaxRestarts|reaching max number of restarts`

# Failed conditions of the job or a child object that name the backoff
# limit; FailureTarget only when Failed is not yet set.
_hit(conds) := c if {
	some c in k8s.list(conds)
	c.type == "Failed"
	c.status == "True"
	regex.match(_backoff_text, sprintf("%s %s", [object.get(c, "reason", ""), object.get(c, "message", "")]))
} else := c if {
	some c in k8s.list(conds)
	c.type == "FailureTarget"
	c.status == "True"
	regex.match(_backoff_text, sprintf("%s %s", [object.get(c, "reason", ""), object.get(c, "message", "")]))
}

_retries := n if {
	n := _status.backoffCount
	n > 0
} else := 0

findings contains f if {
	c := _hit(object.get(_status, "conditions", []))
	f := {
		"subject": {"kind": input.kind, "name": input.name},
		"params": {"object": sprintf("%s %s", [input.kind, input.name]), "restarts": _retries, "limit": _limit},
		"evidence": [k8s.condition_evidence(k8s.job_ref, sprintf("status.conditions[%s]", [c.type]), c)],
		"time": object.get(c, "lastTransitionTime", ""),
		"severity": _severity,
	}
}

# The kind's own reason (RayJob, T9k) when no condition says it.
findings contains f if {
	not _hit(object.get(_status, "conditions", []))
	regex.match(_backoff_text, object.get(_status, "reason", ""))
	f := {
		"subject": {"kind": input.kind, "name": input.name},
		"params": {"object": sprintf("%s %s", [input.kind, input.name]), "restarts": _retries, "limit": _limit},
		"evidence": [k8s.field_evidence(k8s.job_ref, "status.reason", trim_space(sprintf("%s %s", [_status.reason, object.get(_status, "message", "")])))],
		"time": object.get(_status, "completionTime", object.get(input, "createdAt", "")),
		"severity": _severity,
	}
}

# Child Jobs and JobSets (TrainJob, MPIJob launcher Job).
findings contains f if {
	some ch in k8s.list(object.get(input, "children", []))
	c := _hit(ch.conditions)
	f := {
		"subject": {"kind": ch.kind, "name": ch.name},
		"params": {"object": sprintf("%s %s", [ch.kind, ch.name]), "restarts": 0, "limit": _child_limit(c)},
		"evidence": [k8s.condition_evidence({"kind": ch.kind, "namespace": object.get(ch, "namespace", ""), "name": ch.name}, sprintf("status.conditions[%s]", [c.type]), c)],
		"time": object.get(c, "lastTransitionTime", ""),
		"severity": _severity,
	}
}

# The child's own limit is not in the evidence; the job's may differ.
_child_limit(_) := ""

# Restart budgets counted by the controller: T9k backoffCount reaching
# runPolicy.backoffLimit, RayJob failed attempts beyond backoffLimit.
findings contains f if {
	input.phase == "Failed"
	not _hit(object.get(_status, "conditions", []))
	not regex.match(_backoff_text, object.get(_status, "reason", ""))
	not regex.match(`(?i)deadline`, sprintf("%s %s", [object.get(_status, "reason", ""), object.get(_status, "message", "")]))
	n := object.get(_status, "backoffCount", 0)
	n > 0
	l := input.spec.runPolicy.backoffLimit
	l > 0
	_exhausted(n, l)
	f := {
		"subject": {"kind": input.kind, "name": input.name},
		"params": {"object": sprintf("%s %s", [input.kind, input.name]), "restarts": _retries, "limit": sprintf("%d", [l])},
		"evidence": [k8s.field_evidence(k8s.job_ref, "status.backoffCount", sprintf("backoffCount=%d, backoffLimit=%d", [n, l]))],
		"time": object.get(_status, "completionTime", object.get(input, "createdAt", "")),
		"severity": _severity,
	}
}

# RayJob counts failed attempts; the first attempt is not a retry.
_exhausted(n, l) if {
	input.kind == "RayJob"
	n > l
}

_exhausted(n, l) if {
	input.kind != "RayJob"
	n >= l
}

# Retries are used up by failures. When the snapshot shows a container that
# failed, other rules name the cause and this finding only records the
# consequence; without it (pods cleaned up), it is the best lead.
_severity := "info" if {
	some pod in k8s.list(object.get(input, "pods", []))
	some c in k8s.containers(pod)
	some s in [c.state, c.lastState]
	s.state == "terminated"
	object.get(s, "exitCode", 0) != 0
} else := "error"

# The controller's event when no status says it (status not captured):
# batch Job's BackoffLimitExceeded, the Kubeflow operators' <Kind>Failed
# with the backoff message.
findings contains f if {
	count(_status_hits) == 0
	some e in k8s.list(object.get(input, "events", []))
	e.object.kind != "Pod"
	_backoff_event(e)
	f := {
		"subject": {"kind": e.object.kind, "name": e.object.name},
		"params": {"object": sprintf("%s %s", [e.object.kind, e.object.name]), "restarts": _retries, "limit": _limit},
		"evidence": [k8s.event_evidence(e)],
		"time": k8s.event_time(e),
		"severity": _severity,
	}
}

_backoff_event(e) if e.reason in {"BackoffLimitExceeded", "MaxFailedIndexesExceeded", "FailedIndexes", "ReachedMaxRestarts"}

_backoff_event(e) if regex.match(`(?i)reached the specified backoff limit|reaching max number of restarts`, e.message)

_status_hits contains 1 if _hit(object.get(_status, "conditions", []))

_status_hits contains 1 if regex.match(_backoff_text, object.get(_status, "reason", ""))

_status_hits contains 1 if {
	some ch in k8s.list(object.get(input, "children", []))
	_hit(ch.conditions)
}
