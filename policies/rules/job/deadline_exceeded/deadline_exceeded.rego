# METADATA
# title: The job ran past its deadline
# description: |
#   The job, or a Job or JobSet beneath it, was stopped because it stayed
#   active longer than activeDeadlineSeconds (reason DeadlineExceeded). The
#   run was cut off by its time limit, whatever state training was in.
# custom:
#   severity: error
#   owner: user
#   message:
#     en: "{{.object}} was stopped at its deadline{{if .deadline}} of {{.deadline}} s{{end}}: {{.detail}}"
#     zh: "{{.object}} 达到截止时间{{if .deadline}}（{{.deadline}} 秒）{{end}}后被终止：{{.detail}}"
#   remediation:
#     en: |
#       - Check whether training was progressing when it was stopped (the last step in the log); if so, the limit is simply too short for this run.
#       - Raise or remove `activeDeadlineSeconds` (runPolicy, Job spec, RayJob spec), keeping in mind that time spent Pending or restarting counts too.
#       - Make the job resumable from checkpoints so the next run continues where this one stopped.
#       - If training had stalled before the deadline, look at the stall, not at the limit.
#     zh: |
#       - 检查作业被终止时训练是否仍在推进（日志中的最后一步）；如果是，说明这次训练的时限设得太短。
#       - 提高或去掉 `activeDeadlineSeconds`（runPolicy、Job spec、RayJob spec），注意 Pending 和重启的时间也计算在内。
#       - 让作业可以从检查点恢复，使下一次运行从这次停下的地方继续。
#       - 如果训练在截止之前就已停滞，应排查停滞原因，而不是时限。
#   zh:
#     title: 作业超过了截止时间
#     description: |
#       作业或其下层的 Job、JobSet 因为活跃时间超过 activeDeadlineSeconds 而被终止（原因为 DeadlineExceeded）。无论训练处于什么状态，运行都被时限截断了。
package traindoc.rules.job.deadline_exceeded

import data.traindoc.lib.k8s

_status := object.get(input, "status", {})

_deadline := sprintf("%d", [d]) if {
	d := input.spec.runPolicy.activeDeadlineSeconds
} else := x if {
	m := regex.find_all_string_submatch_n(`ActiveDeadlineSeconds: ([0-9]+)`, object.get(_status, "message", ""), 1)
	count(m) > 0
	x := m[0][1]
} else := ""

# A deadline in the reason (batch Job and RayJob DeadlineExceeded) or in
# the message of the Kubeflow operators
# ("was active longer than specified deadline"). Not "DeadlineExceeded"
# anywhere in a message: gRPC's "code = DeadlineExceeded" is a timeout of
# some call, not the job's deadline.
_reason_text := `^\w*DeadlineExceeded$`

_message_text := `(?i)active longer than specified deadline|passed the activeDeadlineSeconds|exceeded its (?:active )?deadline`

_says(reason, msg) if regex.match(_reason_text, reason)

_says(_, msg) if regex.match(_message_text, msg)

_hit(conds) := c if {
	some c in k8s.list(conds)
	c.type in {"Failed", "Complete", "Completed", "Succeeded"}
	c.status == "True"
	_says(object.get(c, "reason", ""), object.get(c, "message", ""))
} else := c if {
	some c in k8s.list(conds)
	c.type == "FailureTarget"
	c.status == "True"
	_says(object.get(c, "reason", ""), object.get(c, "message", ""))
}

_params(obj, c) := {"object": obj, "deadline": _deadline, "detail": trim_space(object.get(c, "message", object.get(c, "reason", "")))}

findings contains f if {
	c := _hit(object.get(_status, "conditions", []))
	f := {
		"subject": {"kind": input.kind, "name": input.name},
		"params": _params(sprintf("%s %s", [input.kind, input.name]), c),
		"evidence": [k8s.condition_evidence(k8s.job_ref, sprintf("status.conditions[%s]", [c.type]), c)],
		"time": object.get(c, "lastTransitionTime", ""),
	}
}

# RayJob and T9k carry the reason in their own status.
findings contains f if {
	not _hit(object.get(_status, "conditions", []))
	_says(object.get(_status, "reason", ""), object.get(_status, "message", ""))
	f := {
		"subject": {"kind": input.kind, "name": input.name},
		"params": {"object": sprintf("%s %s", [input.kind, input.name]), "deadline": _deadline, "detail": trim_space(object.get(_status, "message", _status.reason))},
		"evidence": [k8s.field_evidence(k8s.job_ref, "status.reason", trim_space(sprintf("%s: %s", [object.get(_status, "reason", ""), object.get(_status, "message", "")])))],
		"time": object.get(_status, "completionTime", object.get(input, "now", "")),
	}
}

# A child Job or JobSet that hit its own deadline, when the job itself does
# not say so.
findings contains f if {
	not _hit(object.get(_status, "conditions", []))
	not _says(object.get(_status, "reason", ""), object.get(_status, "message", ""))
	some ch in k8s.list(object.get(input, "children", []))
	c := _hit(ch.conditions)
	f := {
		"subject": {"kind": ch.kind, "name": ch.name},
		"params": _params(sprintf("%s %s", [ch.kind, ch.name]), c),
		"evidence": [k8s.condition_evidence({"kind": ch.kind, "namespace": object.get(ch, "namespace", ""), "name": ch.name}, sprintf("status.conditions[%s]", [c.type]), c)],
		"time": object.get(c, "lastTransitionTime", ""),
	}
}

# A DeadlineExceeded event (batch Job controller) with no status to match.
findings contains f if {
	count({1 | some x in _status_findings}) == 0
	some e in k8s.list(object.get(input, "events", []))
	_deadline_event(e)
	f := {
		"subject": {"kind": e.object.kind, "name": e.object.name},
		"params": {"object": sprintf("%s %s", [e.object.kind, e.object.name]), "deadline": _deadline, "detail": e.message},
		"evidence": [k8s.event_evidence(e)],
		"time": k8s.event_time(e),
	}
}

_status_findings contains 1 if _hit(object.get(_status, "conditions", []))

_status_findings contains 1 if _says(object.get(_status, "reason", ""), object.get(_status, "message", ""))

_status_findings contains 1 if {
	some ch in k8s.list(object.get(input, "children", []))
	_hit(ch.conditions)
}

# The batch Job controller's DeadlineExceeded, and the Kubeflow operators'
# <Kind>Failed event with the deadline message, on the job or a child.
_deadline_event(e) if e.reason == "DeadlineExceeded"

_deadline_event(e) if {
	e.object.kind != "Pod"
	regex.match(_message_text, e.message)
}
