# METADATA
# title: Gang scheduler or queue holds the job until all replicas fit
# description: |
#   A gang scheduler (Volcano, scheduler-plugins coscheduling, the
#   TensorStack scheduler) or a queue (Kueue, a Volcano or TensorStack
#   queue) keeps the job waiting because not all of its replicas fit at
#   once, or because the queue's free share is used by others. Nothing is
#   wrong with the job: it starts when other workloads release resources.
#   A request larger than the queue's whole quota, or a closed queue, can
#   never be admitted and is reported as a quota problem instead.
# custom:
#   severity: warning
#   owner: platform
#   message:
#     en: "{{if .scheduler}}{{.scheduler}}{{else}}A gang scheduler{{end}} holds the job{{if .queue}} in queue {{.queue}}{{end}} until all of it fits: {{.detail}}{{range .shares}}; {{.kind}} {{.name}} has {{.used}} of {{.quota}} {{.resource}} allocated, the job needs {{.need}}{{end}}"
#     zh: "{{if .scheduler}}{{.scheduler}}{{else}}Gang 调度器{{end}} 让作业{{if .queue}}在队列 {{.queue}} 中{{end}}等待，直到全部副本都能放下：{{.detail}}{{range .shares}}；{{.kind}} {{.name}} 已分配 {{.used}}/{{.quota}} {{.resource}}，作业还需要 {{.need}}{{end}}"
#   remediation:
#     en: |
#       - Look at the queue: Volcano `kubectl get podgroup -n <namespace>` and `kubectl get queue <queue> -o yaml`; Kueue `kubectl get workloads -n <namespace>` and `kubectl describe clusterqueue <queue>`; TensorStack `kubectl get podgroups.scheduler.tensorstack.dev -n <namespace>` and `kubectl get queues.scheduler.tensorstack.dev <queue> -o yaml`.
#       - The job starts once enough resources for all replicas (minMember / minAvailable) are free: wait, or stop lower-priority jobs in the same queue.
#       - To start sooner, ask for fewer replicas or fewer GPUs per replica, or submit to a queue with free capacity.
#       - For coscheduling, check that all replicas were created: "cannot find enough sibling pods" means fewer pods exist than the PodGroup's minMember.
#       - If the job waits much longer than its peers, check its priority class and whether the queue may borrow from its cohort.
#     zh: |
#       - 查看队列：Volcano 使用 `kubectl get podgroup -n <namespace>` 和 `kubectl get queue <queue> -o yaml`；Kueue 使用 `kubectl get workloads -n <namespace>` 和 `kubectl describe clusterqueue <queue>`；TensorStack 使用 `kubectl get podgroups.scheduler.tensorstack.dev -n <namespace>` 和 `kubectl get queues.scheduler.tensorstack.dev <queue> -o yaml`。
#       - 当所有副本（minMember / minAvailable）所需的资源都空闲时作业才会启动：请等待，或停止同一队列中优先级较低的作业。
#       - 想更快启动，可以减少副本数或每个副本的 GPU 数，或者提交到仍有空闲容量的队列。
#       - 使用 coscheduling 时，确认所有副本都已创建："cannot find enough sibling pods" 表示现有 Pod 数少于 PodGroup 的 minMember。
#       - 如果作业等待时间明显长于其他作业，请检查它的优先级，以及该队列能否从所在 cohort 借用资源。
#   zh:
#     title: 作业在 Gang 调度器或队列中等待全部副本就绪
#     description: |
#       Gang 调度器（Volcano、scheduler-plugins coscheduling、TensorStack 调度器）或队列（Kueue、Volcano 或 TensorStack 队列）让作业一直等待，因为它的所有副本无法同时放下，或者队列的空闲份额被其他作业占用。作业本身没有问题：其他工作负载释放资源后就会启动。请求超过队列全部配额或队列已关闭时，作业永远无法被接纳，这种情况作为配额问题单独报告。
package traindoc.rules.sched.gang_pending

import data.traindoc.lib.k8s
import data.traindoc.lib.sched

# Each hold is {rank, time, text, subject, evidence, scheduler, queue};
# rank orders the texts that best describe the hold: a pod group's or
# workload's own status first, then events.

# 1. A pod group that has not started says its gang does not fit or is
# incomplete (Volcano Unschedulable, TensorStack GroupScheduled=False or
# SufficientGroupMember=False).
_holds contains h if {
	sched.members_waiting
	some a in sched.gates
	sched.pod_group_waiting(a)
	some c in sched.list(object.get(a, "conditions", []))
	sched.group_unschedulable(c)
	h := {
		"rank": 0, "time": object.get(c, "lastTransitionTime", ""),
		"text": _condition_text(c),
		"subject": {"kind": a.kind, "name": a.name},
		"evidence": k8s.condition_evidence(sched.gate_ref(a), sprintf("status.conditions[%s]", [c.type]), c),
		"scheduler": sched.scheduler_of(a), "queue": object.get(a, "queue", ""),
	}
}

_condition_text(c) := sched.short(c.message) if object.get(c, "message", "") != ""

else := trim_space(sprintf("%s=%s %s", [c.type, c.status, object.get(c, "reason", "")]))

# 2. The scheduler's current words about a waiting pod are a gang's.
_holds contains h if {
	some m in sched.messages
	sched.is_gang(m.text)
	h := {
		"rank": 1, "time": m.time, "text": sched.short(m.text),
		"subject": {"kind": "Pod", "name": m.pod},
		"evidence": m.evidence,
		"scheduler": _scheduler_of_text(m.text), "queue": "",
	}
}

# 3. Gang or queue events about a pod group that has not started (Volcano
# records them as Unschedulable events, Normal or Warning) or about the job
# (PodGroupPending).
_holds contains h if {
	sched.members_waiting
	some e in sched.events
	e.object.kind in {"PodGroup", input.kind}
	e.reason in sched.scheduling_reasons
	sched.is_gang(e.message)
	_object_waiting(e.object)
	h := {
		"rank": 2, "time": k8s.event_time(e), "text": sched.short(e.message),
		"subject": {"kind": e.object.kind, "name": e.object.name},
		"evidence": k8s.event_evidence(e),
		"scheduler": _scheduler_of_text(sprintf("%s %s", [e.message, object.get(e, "source", "")])), "queue": "",
	}
}

_object_waiting(o) if {
	o.kind == "PodGroup"
	some a in sched.gates
	a.kind == "PodGroup"
	a.name == o.name
	sched.pod_group_waiting(a)
}

_object_waiting(o) if {
	o.kind == "PodGroup"
	not _gate_named(o.name)
	not input.phase in {"Running", "Succeeded", "Failed"}
}

_object_waiting(o) if {
	o.kind == input.kind
	not input.phase in {"Running", "Succeeded", "Failed"}
}

_gate_named(name) if {
	some a in sched.gates
	a.name == name
}

# 4. A Kueue workload waiting for quota that others hold: no quota
# reserved, for a reason that admission may yet change.
_holds contains h if {
	some a in sched.gates
	sched.kueue_waiting(a)
	some c in sched.list(object.get(a, "conditions", []))
	c.type == "QuotaReserved"
	c.status == "False"
	_kueue_waits(object.get(c, "reason", ""), object.get(c, "message", ""))
	h := {
		"rank": 0, "time": object.get(c, "lastTransitionTime", ""),
		"text": _condition_text(c),
		"subject": {"kind": "Workload", "name": a.name},
		"evidence": k8s.condition_evidence(sched.gate_ref(a), "status.conditions[QuotaReserved]", c),
		"scheduler": "Kueue", "queue": object.get(a, "queue", ""),
	}
}

# A workload Kueue has not looked at yet, or whose condition was lost.
_holds contains h if {
	some a in sched.gates
	sched.kueue_waiting(a)
	not _has_condition(a, "QuotaReserved")
	not _has_condition(a, "Evicted")
	not _has_condition(a, "Preempted")
	not _never_event(a)
	h := {
		"rank": 3, "time": object.get(a, "createdAt", object.get(input, "createdAt", "")),
		"text": "the Workload has no quota reserved yet",
		"subject": {"kind": "Workload", "name": a.name},
		"evidence": k8s.field_evidence(sched.gate_ref(a), "status.conditions", "no QuotaReserved or Admitted condition"),
		"scheduler": "Kueue", "queue": object.get(a, "queue", ""),
	}
}

# Kueue's Pending events on a workload that is still not admitted.
_holds contains h if {
	some e in sched.events
	e.object.kind == "Workload"
	e.reason == "Pending"
	some a in sched.gates
	a.kind == "Workload"
	a.name == e.object.name
	sched.kueue_waiting(a)
	_kueue_waits("Pending", e.message)
	h := {
		"rank": 2, "time": k8s.event_time(e), "text": sched.short(e.message),
		"subject": {"kind": "Workload", "name": a.name},
		"evidence": k8s.event_evidence(e),
		"scheduler": "Kueue", "queue": object.get(a, "queue", ""),
	}
}

# Kueue's event says the workload never fits: the quota rule's.
_never_event(a) if {
	some e in sched.events
	e.object.kind == "Workload"
	e.object.name == a.name
	_never_fits(e.message)
}

_has_condition(a, typ) if {
	some c in sched.list(object.get(a, "conditions", []))
	c.type == typ
}

# Reasons and messages of a workload that waits: for unused quota
# ("insufficient unused quota ... more needed", "Pending the preemption of
# 1 workload(s)", "Workload no longer fits after processing another
# workload"), for workloads it preempted, or for admission checks. A
# request above the queue's maximum capacity, a queue that does not exist
# or is stopped, or one whose namespace selector leaves the job's
# namespace out, never gets admitted: the quota rule reports those.
_kueue_waits(_, msg) if regex.match(`insufficient unused quota|insufficient quota (for \S+ )?(in )?flavor \S+, \S+ more needed|no longer fits after processing another workload|Pending the preemption of|waiting for .*preempted|failed admission checks|admission checks? .*(pending|retry)|couldn't assign flavors to pod set \S+: (insufficient unused quota|topology)`, msg)

_kueue_waits(reason, msg) if {
	reason in {"Pending", "WaitingForQuota", "WaitingForPreemptedWorkloads", "PendingEvaluation", "Waiting", "AdmissionGated", "WaitingForPodsReady"}
	not _never_fits(msg)
}

_never_fits(msg) if regex.match(`maximum capacity|insufficient quota for \S+ (in )?flavor \S+ in ClusterQueue|(ClusterQueue|LocalQueue) \S+ (doesn't exist|not found|is inactive|is stopped|is terminating or missing)|resource \S+ unavailable in ClusterQueue|flavor \S+ not found|namespace doesn't match ClusterQueue selector`, msg)

# 5. A job Kueue keeps suspended while it waits, with no Workload
# collected.
_holds contains h if {
	q := object.get(object.get(input, "labels", {}), "kueue.x-k8s.io/queue-name", "")
	q != ""
	input.phase in {"Suspended", "Pending"}
	count([a | some a in sched.gates; a.kind == "Workload"]) == 0
	count(sched.pods) == 0
	h := {
		"rank": 3, "time": object.get(input, "createdAt", ""),
		"text": sprintf("the job is suspended while it waits in LocalQueue %s (no Workload collected)", [q]),
		"subject": {"kind": input.kind, "name": input.name},
		"evidence": k8s.field_evidence(k8s.job_ref, "metadata.labels[kueue.x-k8s.io/queue-name]", q),
		"scheduler": "Kueue", "queue": q,
	}
}

# 6. The queue's share is used up by others while the gang waits: what is
# allocated plus what the job needs exceeds the quota, and the quota alone
# would hold the job.
_queue_holds contains h if {
	count(_holds) > 0
	some q in sched.queues
	some res, quota in object.get(q, "quota", {})
	need := sched.need(res)
	need > 0
	limit := sched.number(quota)
	need <= limit
	used := sched.number(object.get(object.get(q, "allocated", {}), res, ""))
	used + need > limit
	h := {
		"rank": 4, "time": object.get(input, "createdAt", ""),
		"text": sprintf("%s %s has %s of %s %s allocated; the job needs %s", [q.kind, q.name, sched.fmt_number(used), quota, res, sched.fmt_number(need)]),
		"share": {"kind": q.kind, "name": q.name, "used": sched.fmt_number(used), "quota": quota, "resource": res, "need": sched.fmt_number(need)},
		"subject": {"kind": q.kind, "name": q.name},
		"evidence": k8s.field_evidence(sched.queue_ref(q), "status.allocated", sprintf("%s: allocated %s of %s, the job needs %s", [res, sched.fmt_number(used), quota, sched.fmt_number(need)])),
		"scheduler": "", "queue": q.name,
	}
}

_scheduler_of_text(t) := "Coscheduling" if {
	regex.match(`(?i)sibling pods|pgName|Coscheduling|PostFilter|Unreserve|scheduler-plugins`, t)
} else := "TensorStack scheduler" if {
	contains(t, "t9k-scheduler")
} else := "Volcano"

# The hold that describes the job best, and the scheduler and queue it
# names (a queue a gate or the job names when the hold itself does not).
_best := sort([[h.rank, h.time, h.text, h.scheduler, h.queue] | some h in _holds])[0]

_scheduler := s if {
	s := sort([[x.rank, x.time, x.scheduler] | some x in _holds; x.scheduler != ""])[0][2]
} else := ""

_queue := q if {
	qs := sort([x.queue | some x in _holds; x.queue != ""])
	count(qs) > 0
	q := qs[0]
} else := q if {
	q := object.get(object.get(object.get(input, "spec", {}), "scheduler", {}), "queue", "")
	q != ""
} else := ""

# The scheduler's own words (quoted as they are), then the queue's numbers
# when they show why the hold lasts (words of traindoc's, in each language
# by the message templates).
_detail := _best[2]

_shares := [x[1] | some x in sort([[h.text, h.share] | some h in _queue_holds])]

_params := {"scheduler": _scheduler, "queue": _queue, "detail": _detail, "shares": _shares}

# The finding is about the gates (pod group, workload) when their status
# says the job waits, and about the pods and events otherwise (a
# coscheduling group has no conditions). The queue's numbers are evidence
# beside it.
_gate_level if {
	some h in _holds
	h.rank == 0
}

_shown contains h if {
	_gate_level
	some h in _holds
	h.subject.kind in {"PodGroup", "Workload", input.kind}
}

_shown contains h if {
	not _gate_level
	some h in _holds
}

findings contains f if {
	some h in _shown
	f := {
		"subject": h.subject,
		"params": _params,
		"evidence": array.concat([h.evidence], [q.evidence | some q in _queue_holds]),
		"time": h.time,
	}
}
