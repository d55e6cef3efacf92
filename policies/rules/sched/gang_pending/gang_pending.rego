# METADATA
# title: Gang scheduler or queue holds the job until all replicas fit
# description: |
#   A gang scheduler (Volcano, TensorStack) or a queue (Kueue) keeps the job
#   waiting because not all of its replicas fit at once. The job will start
#   when other workloads release resources, unless a quota can never admit
#   it (reported separately).
# custom:
#   severity: warning
#   owner: platform
#   message:
#     en: "{{.scheduler}} holds the job in queue {{.queue}}: {{.detail}}"
#     zh: "{{.scheduler}} 让作业在队列 {{.queue}} 中等待：{{.detail}}"
#   remediation:
#     en: |
#       - Look at the queue: Volcano `kubectl get podgroup -n <namespace>` and `kubectl get queue <queue> -o yaml`; Kueue `kubectl get workloads -n <namespace>` and `kubectl describe clusterqueue <queue>`.
#       - The job starts once enough resources for all replicas (minMember / minAvailable) are free: wait, or stop lower-priority jobs in the same queue.
#       - To start sooner, ask for fewer replicas or fewer GPUs per replica, or submit to a queue with free capacity.
#       - If the job waits much longer than its peers, check its priority class and whether the queue may borrow from its cohort.
#     zh: |
#       - 查看队列：Volcano 使用 `kubectl get podgroup -n <namespace>` 和 `kubectl get queue <queue> -o yaml`；Kueue 使用 `kubectl get workloads -n <namespace>` 和 `kubectl describe clusterqueue <queue>`。
#       - 当所有副本（minMember / minAvailable）所需的资源都空闲时作业才会启动：请等待，或停止同一队列中优先级较低的作业。
#       - 想更快启动，可以减少副本数或每个副本的 GPU 数，或者提交到仍有空闲容量的队列。
#       - 如果作业等待时间明显长于其他作业，请检查它的优先级，以及该队列能否从所在 cohort 借用资源。
#   zh:
#     title: 作业在 Gang 调度器或队列中等待全部副本就绪
#     description: |
#       Gang 调度器（Volcano、TensorStack）或队列（Kueue）让作业一直等待，因为它的所有副本无法同时放下。其他工作负载释放资源后作业就会启动；如果配额永远无法容纳它，会由另一条规则单独报告。
package traindoc.rules.sched.gang_pending

import data.traindoc.lib.k8s

_list(x) := x if is_array(x)

else := []

_waiting if not object.get(input, "phase", "") in {"Running", "Succeeded", "Failed"}

_aref(a) := {"kind": a.kind, "namespace": object.get(a, "namespace", ""), "name": a.name}

_gang_words := `(?i)gang unschedulable|pod ?group is not ready|podgroup .*(unschedulable|pending)|NotEnoughResources|not enough resources`

_short(msg) := trim_space(split(msg, " preemption:")[0])

_queue(a) := q if {
	q := object.get(a, "queue", "")
	q != ""
} else := q if {
	q := object.get(object.get(object.get(input, "spec", {}), "scheduler", {}), "queue", "")
	q != ""
} else := "default"

_scheduler(a) := "Kueue" if {
	a.kind == "Workload"
} else := "TensorStack scheduler" if {
	contains(object.get(a, "apiVersion", ""), "tensorstack")
} else := "Volcano"

# A PodGroup that is Pending or Inqueue with an Unschedulable condition.
findings contains f if {
	_waiting
	some a in _list(input.admission)
	a.kind == "PodGroup"
	object.get(a, "phase", "Pending") in {"Pending", "Inqueue", "Unknown", ""}
	some c in a.conditions
	_unschedulable(c)
	f := {
		"subject": {"kind": "PodGroup", "name": a.name},
		"params": {"scheduler": _scheduler(a), "queue": _queue(a), "detail": _short(object.get(c, "message", object.get(c, "reason", "")))},
		"evidence": [k8s.condition_evidence(_aref(a), sprintf("status.conditions[%s]", [c.type]), c)],
		"time": object.get(c, "lastTransitionTime", ""),
	}
}

_unschedulable(c) if {
	c.type == "Unschedulable"
	c.status == "True"
}

_unschedulable(c) if {
	c.status == "True"
	regex.match(_gang_words, object.get(c, "message", ""))
}

_unschedulable(c) if {
	c.type in {"Scheduled", "Ready"}
	c.status == "False"
	regex.match(_gang_words, object.get(c, "message", ""))
}

_pg_findings contains a.name if {
	_waiting
	some a in _list(input.admission)
	a.kind == "PodGroup"
	some c in a.conditions
	_unschedulable(c)
}

# Gang events on pods or pod groups, when the PodGroup status says nothing.
findings contains f if {
	_waiting
	count(_pg_findings) == 0
	some e in _list(input.events)
	e.type == "Warning"
	e.reason in {"FailedScheduling", "Unschedulable", "PodGroupPending", "PodGroupNotReady"}
	regex.match(_gang_words, e.message)
	f := {
		"subject": {"kind": e.object.kind, "name": e.object.name},
		"params": {"scheduler": "Gang scheduler", "queue": _queue({}), "detail": _gang_detail},
		"evidence": [k8s.event_evidence(e)],
		"time": k8s.event_time(e),
	}
}

# One detail for all gang events: the earliest message, trimmed of the
# counts that change from one attempt to the next.
_gang_detail := d if {
	msgs := sort([[k8s.event_time(e), e.message] |
		some e in _list(input.events)
		e.type == "Warning"
		regex.match(_gang_words, e.message)
	])
	d := _short(msgs[0][1])
}

# A Kueue workload waiting for quota that others hold.
findings contains f if {
	some a in _list(input.admission)
	a.kind == "Workload"
	not _admitted(a)
	some c in a.conditions
	c.type == "QuotaReserved"
	c.status == "False"
	msg := object.get(c, "message", "")
	_kueue_waiting(c.reason, msg)
	f := {
		"subject": {"kind": "Workload", "name": a.name},
		"params": {"scheduler": "Kueue", "queue": _queue(a), "detail": msg},
		"evidence": [k8s.condition_evidence(_aref(a), "status.conditions[QuotaReserved]", c)],
		"time": object.get(c, "lastTransitionTime", ""),
	}
}

_admitted(a) if {
	some c in a.conditions
	c.type == "Admitted"
	c.status == "True"
}

_kueue_waiting(_, msg) if contains(msg, "insufficient unused quota")

_kueue_waiting(reason, msg) if {
	reason in {"Pending", "WaitingForPreemptedWorkloads", "Waiting"}
	not contains(msg, "maximum capacity")
	not regex.match(`(ClusterQueue|LocalQueue) [^\s]+ (doesn't exist|is inactive|is stopped)`, msg)
}

# A job suspended by Kueue while it waits, with no Workload in the snapshot.
findings contains f if {
	q := object.get(object.get(input, "labels", {}), "kueue.x-k8s.io/queue-name", "")
	q != ""
	input.phase in {"Suspended", "Pending"}
	count([a | some a in _list(input.admission); a.kind == "Workload"]) == 0
	f := {
		"subject": {"kind": input.kind, "name": input.name},
		"params": {"scheduler": "Kueue", "queue": q, "detail": sprintf("kueue.x-k8s.io/queue-name=%s, phase %s, Workload not collected", [q, input.phase])},
		"evidence": [k8s.field_evidence({"kind": input.kind, "namespace": object.get(input, "namespace", ""), "name": input.name}, "metadata.labels[kueue.x-k8s.io/queue-name]", q)],
		"time": object.get(input, "createdAt", ""),
	}
}
