# METADATA
# title: A quota or queue refuses the job
# description: |
#   A namespace ResourceQuota or a queue refuses the job: pod creation
#   fails with "exceeded quota", the quota's hard limit is smaller than what
#   the whole job asks for, the Kueue workload requests more than its
#   ClusterQueue can ever provide ("> maximum capacity"), the job is larger
#   than a Volcano or TensorStack queue's whole capability, or its queue
#   does not exist, is closed or stopped. As it stands, the job cannot
#   start no matter how long it waits.
# custom:
#   severity: error
#   owner: platform
#   message:
#     en: "{{.quota.en}} refuses the job{{if .resources}} ({{.resources}}){{end}}: {{if .why}}{{.why.en}}{{else}}{{.detail}}{{end}}"
#     zh: "{{.quota.zh}} 拒绝了该作业{{if .resources}}（{{.resources}}）{{end}}：{{if .why}}{{.why.zh}}{{else}}{{.detail}}{{end}}"
#   remediation:
#     en: |
#       - See the quota and what is used: `kubectl describe resourcequota -n <namespace>`; for Kueue, `kubectl describe clusterqueue <queue>` and `kubectl get workloads -n <namespace>`.
#       - If the job alone needs more than the hard limit or the queue's nominal quota plus what it may borrow, shrink it (fewer replicas or GPUs per pod) or ask the platform team to raise the quota.
#       - If other jobs in the namespace use the quota, wait for them or delete finished ones (`kubectl get pods --field-selector=status.phase!=Running`).
#       - A quota on `limits.*` or `requests.*` requires every container to set them: add the missing requests and limits.
#       - A closed or stopped queue admits nothing: ask the platform team to open it (Volcano `kubectl get queue <queue> -o yaml` status.state, TensorStack spec.closed, Kueue stopPolicy), or submit to another queue.
#     zh: |
#       - 查看配额及已用量：`kubectl describe resourcequota -n <namespace>`；使用 Kueue 时执行 `kubectl describe clusterqueue <queue>` 和 `kubectl get workloads -n <namespace>`。
#       - 如果作业本身的需求就超过了配额上限，或超过队列的名义配额加上可借用的额度，请缩小作业（减少副本数或每个 Pod 的 GPU），或请平台团队提高配额。
#       - 如果是同一命名空间的其他作业占用了配额，请等待它们结束或删除已完成的作业（`kubectl get pods --field-selector=status.phase!=Running`）。
#       - 针对 `limits.*` 或 `requests.*` 的配额要求每个容器都设置这些值：请补上缺失的 requests 和 limits。
#       - 已关闭或已停止的队列不接纳任何作业：请平台团队打开队列（Volcano 查看 `kubectl get queue <queue> -o yaml` 的 status.state，TensorStack 查看 spec.closed，Kueue 查看 stopPolicy），或提交到其他队列。
#   zh:
#     title: 配额或队列拒绝了作业
#     description: |
#       命名空间的 ResourceQuota 或队列拒绝了该作业：创建 Pod 时报 "exceeded quota"、配额的硬上限小于整个作业的需求、Kueue workload 申请的资源超过了 ClusterQueue 能提供的最大容量（"> maximum capacity"）、作业大于 Volcano 或 TensorStack 队列的全部容量，或者它的队列不存在、已关闭或已停止。按当前配置，作业等多久都无法启动。
package traindoc.rules.sched.quota_exceeded

import data.traindoc.lib.k8s
import data.traindoc.lib.sched

_events := e if {
	is_array(input.events)
	e := input.events
} else := []

# 1. Pod creation refused by the ResourceQuota admission plugin, reported by
# the operator (FailedCreatePod), the Job controller or a ReplicaSet
# (FailedCreate): "exceeded quota: gpu, requested: requests.nvidia.com/gpu=8,
# used: requests.nvidia.com/gpu=16, limited: requests.nvidia.com/gpu=16".
findings contains f if {
	some e in _events
	e.type == "Warning"
	not _answered
	m := regex.find_all_string_submatch_n(`exceeded quota: ([^,\s]+), requested: ([^\s]+?),? used: [^\s]*,? limited: ([^\s]+)`, e.message, 1)
	count(m) > 0
	f := {
		"subject": {"kind": e.object.kind, "name": e.object.name},
		"params": {"quota": _same(sprintf("ResourceQuota %s", [m[0][1]])), "resources": _keys(m[0][3]), "why": _limited(trim_right(m[0][3], ".\""))},
		"evidence": [k8s.event_evidence(e)],
		"time": k8s.event_time(e),
	}
}

# Older and shorter forms: "exceeded quota: q" without the amounts, and
# "failed quota: q: must specify limits.cpu,limits.memory".
findings contains f if {
	some e in _events
	e.type == "Warning"
	not _answered
	not regex.match(`exceeded quota: [^,\s]+, requested:`, e.message)
	m := regex.find_all_string_submatch_n(`(exceeded|failed) quota: ([^,:\s]+)(?:: (must specify [^\s]+))?`, e.message, 1)
	count(m) > 0
	f := {
		"subject": {"kind": e.object.kind, "name": e.object.name},
		"params": object.union({"quota": _same(sprintf("ResourceQuota %s", [m[0][2]])), "resources": _must(m[0])}, _short_reason(m[0])),
		"evidence": [k8s.event_evidence(e)],
		"time": k8s.event_time(e),
	}
}

# A refusal that was answered: the job finished, or runs with every pod it
# expects created (quota was freed and the controller's retry went
# through).
_answered if input.phase == "Succeeded"

_answered if {
	input.phase == "Running"
	want := sum([g.expected | some g in k8s.list(object.get(input, "replicas", []))])
	want > 0
	count(k8s.list(object.get(input, "pods", []))) >= want
}

_short_reason(m) := {"detail": m[3]} if m[3] != ""

else := {"why": {"en": "exceeded quota", "zh": "超出配额"}} if m[1] == "exceeded"

else := {"why": {"en": "failed quota", "zh": "配额检查未通过"}}

# _same is a name that reads the same in both languages.
_same(s) := {"en": s, "zh": s}

_limited(x) := {"en": sprintf("limited: %s", [x]), "zh": sprintf("上限：%s", [x])}

_must(m) := concat(", ", split(trim_prefix(m[3], "must specify "), ",")) if m[3] != ""

else := ""

# "requests.nvidia.com/gpu=16,limits.cpu=8" -> "requests.nvidia.com/gpu, limits.cpu"
_keys(s) := concat(", ", sort({k |
	some kv in split(trim_right(s, "."), ",")
	k := split(kv, "=")[0]
	k != ""
}))

# 2. A Kueue workload whose pod set can never fit its ClusterQueue. A pod
# set that fits some flavor once others release quota ("insufficient unused
# quota") is gang-pending, not this.
findings contains f if {
	some a in k8s.list(input.admission)
	a.kind == "Workload"
	not sched.kueue_admitted(a)
	some c in a.conditions
	c.type in {"QuotaReserved", "Admitted"}
	c.status == "False"
	some seg in _segments(object.get(c, "message", ""))
	_never_fits(seg)
	res := {r | some m in regex.find_all_string_submatch_n(`(?:insufficient quota for|resource) ([^\s]+) (?:in flavor|flavor|unavailable in ClusterQueue)`, seg, -1); r := m[1]}
	f := {
		"subject": {"kind": "Workload", "name": a.name},
		"params": {"quota": _queue(a), "resources": concat(", ", sort(res)), "detail": trim_right(trim_space(seg), ";")},
		"evidence": [k8s.condition_evidence(_aref(a), sprintf("status.conditions[%s]", [c.type]), c)],
		"time": object.get(c, "lastTransitionTime", ""),
	}
}

# Kueue's Pending events on a workload that is still not admitted say the
# same, when its conditions were not collected.
findings contains f if {
	some e in _events
	e.object.kind == "Workload"
	some a in k8s.list(input.admission)
	a.kind == "Workload"
	a.name == e.object.name
	not sched.kueue_admitted(a)
	not _kueue_condition_says_never(a)
	some seg in _segments(e.message)
	_never_fits(seg)
	res := {r | some m in regex.find_all_string_submatch_n(`(?:insufficient quota for|resource) ([^\s]+) (?:in flavor|unavailable in ClusterQueue)`, seg, -1); r := m[1]}
	f := {
		"subject": {"kind": "Workload", "name": a.name},
		"params": {"quota": _queue(a), "resources": concat(", ", sort(res)), "detail": trim_right(trim_space(seg), ";")},
		"evidence": [k8s.event_evidence(e)],
		"time": k8s.event_time(e),
	}
}

_kueue_condition_says_never(a) if {
	some c in a.conditions
	c.status == "False"
	some seg in _segments(object.get(c, "message", ""))
	_never_fits(seg)
}

# A pod set that can never fit: above the maximum capacity (Kueue up to
# 0.13: "request > maximum capacity (24 > 16)"; later: "previously
# considered podsets requests (0) + current podset request (24) > maximum
# capacity (16)"), or asking for a resource the ClusterQueue does not
# cover at all. Waiting for unused quota is the gang rule's.
_never_fits(seg) if {
	contains(seg, "maximum capacity")
	not contains(seg, "insufficient unused quota")
}

_never_fits(seg) if regex.match(`resource \S+ unavailable in ClusterQueue`, seg)

# Kueue 0.3 to 0.8: "insufficient quota for cpu in flavor default in
# ClusterQueue", the request is above what the queue may ever lend.
_never_fits(seg) if regex.match(`insufficient quota for \S+ (in )?flavor \S+ in ClusterQueue`, seg)

# A queue that does not exist ("LocalQueue x doesn't exist", Kueue 0.2's
# "ClusterQueue x not found") or is stopped admits nothing.
findings contains f if {
	some a in k8s.list(input.admission)
	a.kind == "Workload"
	not sched.kueue_admitted(a)
	some c in a.conditions
	c.type in {"QuotaReserved", "Admitted"}
	c.status == "False"
	m := regex.find_all_string_submatch_n(`(ClusterQueue|LocalQueue) ([^\s]+) (doesn't exist|not found|is inactive|is stopped|is terminating or missing|is terminating)`, object.get(c, "message", ""), 1)
	count(m) > 0
	f := {
		"subject": {"kind": "Workload", "name": a.name},
		"params": {"quota": _same(sprintf("%s %s", [m[0][1], m[0][2]])), "resources": "", "detail": m[0][0]},
		"evidence": [k8s.condition_evidence(_aref(a), sprintf("status.conditions[%s]", [c.type]), c)],
		"time": object.get(c, "lastTransitionTime", ""),
	}
}

_aref(a) := {"kind": a.kind, "namespace": object.get(a, "namespace", ""), "name": a.name}

_queue(a) := {"en": sprintf("Kueue queue %s", [a.queue]), "zh": sprintf("Kueue 队列 %s", [a.queue])} if a.queue != ""

else := _same("Kueue ClusterQueue")

# "couldn't assign flavors to pod set master: ...; couldn't assign flavors
# to pod set worker: ..." -> one segment per pod set.
_segments(msg) := [s |
	some s in split(msg, "couldn't assign flavors to pod set ")
	trim_space(s) != ""
]

# 3. A ResourceQuota whose hard limit is below what the job needs in total
# (unless the refusals above already name it).
findings contains f if {
	not object.get(input, "phase", "") in {"Succeeded", "Running"}
	some q in k8s.list(input.quotas)
	not _refused_by(q.name)
	some key, hard in q.hard
	need := _need(key)
	need > 0
	h := units.parse(hard)
	h < need
	f := {
		"subject": {"kind": "ResourceQuota", "name": q.name},
		"params": {"quota": _same(sprintf("ResourceQuota %s", [q.name])), "resources": key, "why": {"en": sprintf("hard %s=%s < %s", [key, hard, _amount_text(key, need)]), "zh": sprintf("硬上限 %s=%s < %s", [key, hard, _amount_text(key, need)])}},
		"evidence": [k8s.field_evidence({"kind": "ResourceQuota", "namespace": object.get(input, "namespace", ""), "name": q.name}, sprintf("spec.hard[%s]", [key]), sprintf("hard=%s used=%s; the job needs %s", [hard, object.get(object.get(q, "used", {}), key, "?"), _amount_text(key, need)]))],
		"time": object.get(input, "createdAt", ""),
	}
}

_groups := k8s.list(input.replicas)

_need(key) := sum([g.expected | some g in _groups]) if key in {"pods", "count/pods"}

_need(key) := _total("requests", trim_prefix(key, "requests.")) if startswith(key, "requests.")

_need(key) := _total("limits", trim_prefix(key, "limits.")) if startswith(key, "limits.")

_need(key) := _total("requests", key) if key in {"cpu", "memory", "ephemeral-storage"}

# Sum over groups of replicas x the per-pod amount of a resource. A missing
# request defaults to the limit, as the API server does.
_total(kind, res) := sum([n |
	some g in _groups
	per_pod := sum([x |
		some c in object.get(g.template, "containers", [])
		x := _amount(c, kind, res)
	])
	n := g.expected * per_pod
])

_amount(c, "requests", res) := x if {
	x := units.parse(c.requests[res])
} else := x if {
	x := units.parse(c.limits[res])
} else := 0

_amount(c, "limits", res) := x if {
	x := units.parse(c.limits[res])
} else := 0

_fmt(n) := sprintf("%d", [n]) if n == floor(n)

else := sprintf("%.2f", [n])

# Bytes read better in Gi.
_amount_text(key, n) := sprintf("%sGi", [_fmt(n / 1073741824)]) if {
	regex.match(`memory|storage`, key)
} else := _fmt(n)

# 4. The queue the job waits in is closed or stopped: a Volcano queue in
# state Closed or Closing, a TensorStack queue with spec.closed, a Kueue
# queue with a stopPolicy.
_not_started if not object.get(input, "phase", "") in {"Running", "Succeeded", "Failed"}

findings contains f if {
	_not_started
	some q in sched.queues
	q.state in {"Closed", "Closing", "Hold", "HoldAndDrain"}
	f := {
		"subject": {"kind": q.kind, "name": q.name},
		"params": {"quota": _queue_name(q), "resources": "", "why": _queue_state(_state_word(q.state))},
		"evidence": [k8s.field_evidence(sched.queue_ref(q), _state_field(q), q.state)],
		"time": object.get(input, "createdAt", ""),
	}
}

_state_word(s) := "stopped" if {
	s in {"Hold", "HoldAndDrain"}
} else := lower(s)

_state_field(q) := "spec.stopPolicy" if {
	q.state in {"Hold", "HoldAndDrain"}
} else := "spec.closed" if {
	contains(object.get(q, "apiVersion", ""), "tensorstack")
} else := "status.state"

_queue_name(q) := {"en": sprintf("Volcano queue %s", [q.name]), "zh": sprintf("Volcano 队列 %s", [q.name])} if {
	contains(object.get(q, "apiVersion", ""), "volcano")
} else := {"en": sprintf("TensorStack queue %s", [q.name]), "zh": sprintf("TensorStack 队列 %s", [q.name])} if {
	contains(object.get(q, "apiVersion", ""), "tensorstack")
} else := _same(sprintf("Kueue %s %s", [q.kind, q.name]))

# _queue_state says what state a queue is in, in both languages.
_queue_state(w) := {"en": sprintf("the queue is %s", [w]), "zh": z} if {
	z := {"stopped": "队列已停止", "closed": "队列已关闭", "closing": "队列正在关闭"}[w]
} else := {"en": sprintf("the queue is %s", [w]), "zh": sprintf("队列状态为 %s", [w])}

# A Kueue ClusterQueue that says it cannot admit (Active=False).
findings contains f if {
	_not_started
	some q in sched.queues
	q.kind == "ClusterQueue"
	some c in sched.list(object.get(q, "conditions", []))
	c.type == "Active"
	c.status == "False"
	f := {
		"subject": {"kind": q.kind, "name": q.name},
		"params": {"quota": _queue_name(q), "resources": "", "detail": trim_space(sprintf("%s: %s", [object.get(c, "reason", ""), object.get(c, "message", "")]))},
		"evidence": [k8s.condition_evidence(sched.queue_ref(q), "status.conditions[Active]", c)],
		"time": object.get(c, "lastTransitionTime", ""),
	}
}

# Volcano's admission webhook refuses a job or pod group for a queue that
# is not open: "can only submit job to queue with state `Open`, queue
# `research` status is `Closed`".
findings contains f if {
	some e in _events
	e.type == "Warning"
	m := regex.find_all_string_submatch_n("can only submit (?:job|PodGroup) to queue with state `Open`, queue `([^`]+)` status is `([^`]+)`", e.message, 1)
	count(m) > 0
	f := {
		"subject": {"kind": e.object.kind, "name": e.object.name},
		"params": {"quota": _volcano(m[0][1]), "resources": "", "why": _queue_state(lower(m[0][2]))},
		"evidence": [k8s.event_evidence(e)],
		"time": k8s.event_time(e),
	}
}

# Schedulers that name a queue that is not open in their events ("Queue
# <research> is closed", "queue research is not open").
findings contains f if {
	_not_started
	some e in _events
	e.object.kind in {"PodGroup", "Pod", input.kind}
	m := regex.find_all_string_submatch_n(`(?i)\bqueue <?([\w.-]+)>? (?:is closed|is not open|current state: (?:Closed|Closing))`, e.message, 1)
	count(m) > 0
	f := {
		"subject": {"kind": e.object.kind, "name": e.object.name},
		"params": {"quota": {"en": sprintf("Queue %s", [m[0][1]]), "zh": sprintf("队列 %s", [m[0][1]])}, "resources": "", "why": _queue_state("closed")},
		"evidence": [k8s.event_evidence(e)],
		"time": k8s.event_time(e),
	}
}

# 5. The job needs more at once than the queue's whole quota: a Volcano
# queue's capability, a TensorStack queue's quota, a Kueue ClusterQueue's
# nominal quota plus borrowing limit (one in a cohort without a borrowing
# limit may borrow and is not judged).
findings contains f if {
	_not_started
	not _kueue_says_never
	some q in sched.queues
	some res, quota in object.get(q, "quota", {})
	not res in object.get(q, "borrowing", [])
	need := sched.need(_plain(res))
	need > 0
	need > sched.number(quota)
	f := {
		"subject": {"kind": q.kind, "name": q.name},
		"params": {"quota": _queue_name(q), "resources": res, "why": {"en": sprintf("%s %s < %s the job needs", [res, quota, sched.fmt_number(need)]), "zh": sprintf("%s %s < 作业所需的 %s", [res, quota, sched.fmt_number(need)])}},
		"evidence": [k8s.field_evidence(sched.queue_ref(q), _quota_field(q), sprintf("%s: quota %s, allocated %s; the job needs %s", [res, quota, object.get(object.get(q, "allocated", {}), res, "0"), sched.fmt_number(need)]))],
		"time": object.get(input, "createdAt", ""),
	}
}

# Queue quotas name plain resources; a TensorStack quota may say
# requests.cpu.
_plain(res) := trim_prefix(res, "requests.")

_quota_field(q) := "spec.capability" if {
	contains(object.get(q, "apiVersion", ""), "volcano")
} else := "spec.quota.requests" if {
	contains(object.get(q, "apiVersion", ""), "tensorstack")
} else := "spec.resourceGroups"

# Kueue's own words already say the workload never fits: the queue's
# numbers would only repeat them.
_kueue_says_never if {
	some a in k8s.list(input.admission)
	a.kind == "Workload"
	some c in a.conditions
	c.status == "False"
	some seg in _segments(object.get(c, "message", ""))
	_never_fits(seg)
}

_refused_by(name) if {
	some e in _events
	e.type == "Warning"
	regex.match(sprintf(`(exceeded|failed) quota: %s\b`, [name]), e.message)
}

# A Kueue ClusterQueue whose namespaceSelector leaves out the job's
# namespace never admits it.
findings contains f if {
	some a in k8s.list(input.admission)
	a.kind == "Workload"
	not sched.kueue_admitted(a)
	some c in a.conditions
	c.type in {"QuotaReserved", "Admitted"}
	c.status == "False"
	contains(object.get(c, "message", ""), "Workload namespace doesn't match ClusterQueue selector")
	f := {
		"subject": {"kind": "Workload", "name": a.name},
		"params": {"quota": _queue(a), "resources": "", "why": {"en": "the job's namespace is not among the namespaces the ClusterQueue admits", "zh": "作业所在的命名空间不在该 ClusterQueue 接纳的命名空间之内"}},
		"evidence": [k8s.condition_evidence(_aref(a), sprintf("status.conditions[%s]", [c.type]), c)],
		"time": object.get(c, "lastTransitionTime", ""),
	}
}

# Volcano's admission webhook refuses a job or pod group for a queue that
# does not exist: 'queues.scheduling.volcano.sh "research" not found'
# (queues.scheduling.incubator.k8s.io before Volcano 0.2).
findings contains f if {
	some e in _events
	e.type == "Warning"
	m := regex.find_all_string_submatch_n(`queues\.scheduling\.(?:volcano\.sh|incubator\.k8s\.io) "([^"]+)" not found`, e.message, 1)
	count(m) > 0
	f := {
		"subject": {"kind": e.object.kind, "name": e.object.name},
		"params": {"quota": _volcano(m[0][1]), "resources": "", "why": {"en": "the queue does not exist", "zh": "队列不存在"}},
		"evidence": [k8s.event_evidence(e)],
		"time": k8s.event_time(e),
	}
}

# Schedulers that check a quota of their own while filtering nodes and
# refuse every node for it: scheduler-plugins' CapacityScheduling
# ("rejected in Prefilter because ElasticQuota q1 is more than Max") and
# TKEStack's gpu-admission ("ExceedsGPUQuota").
_sched_quota := `is rejected in Prefilter because ElasticQuota (\S+) is more than Max|\d+ (ExceedsGPUQuota)`

findings contains f if {
	some m in sched.messages
	x := regex.find_all_string_submatch_n(_sched_quota, m.text, 1)
	count(x) > 0
	f := {
		"subject": {"kind": "Pod", "name": m.pod},
		"params": {"quota": _sched_quota_name(x[0]), "resources": "", "detail": sched.short(m.text)},
		"evidence": [m.evidence],
		"time": m.time,
	}
}

_sched_quota_name(x) := _same(sprintf("ElasticQuota %s", [x[1]])) if x[1] != ""

else := {"en": "GPU quota (gpu-admission)", "zh": "GPU 配额（gpu-admission）"}

_volcano(name) := {"en": sprintf("Volcano queue %s", [name]), "zh": sprintf("Volcano 队列 %s", [name])}
