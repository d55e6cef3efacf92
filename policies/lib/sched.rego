# METADATA
# title: Helpers for the scheduling and queueing rules
# description: |
#   What the scheduling rules share: the scheduler messages that still
#   hold for a job (conditions of pods that are still unscheduled, and
#   events about them that no later Scheduled event or running pod
#   answered), the wordings of gang schedulers and queues (Volcano,
#   scheduler-plugins coscheduling, the TensorStack scheduler, Kueue),
#   whether a gang or queue holds the job, and what the job asks for in
#   total. This package emits no findings.
package traindoc.lib.sched

import data.traindoc.lib.k8s

list(x) := x if is_array(x)

else := []

pods := list(object.get(input, "pods", []))

events := list(object.get(input, "events", []))

gates := list(object.get(input, "admission", []))

queues := list(object.get(input, "queues", []))

# short(msg) is a scheduler message without kube-scheduler's preemption
# note ("... preemption: 0/12 nodes are available: 4 No preemption victims
# found for incoming pod, ..."), which never names a cause of its own.
short(msg) := trim_space(split(msg, " preemption:")[0])

# Event reasons under which schedulers and gang controllers report that
# they could not place a pod or a gang.
scheduling_reasons := {"FailedScheduling", "Unschedulable", "PodGroupPending", "PodGroupNotReady", "NotEnoughResources", "NotEnoughPods"}

# scheduled(pod) holds for a pod that has a node, or had one.
scheduled(pod) if object.get(pod, "nodeName", "") != ""

scheduled(pod) if pod.phase in {"Running", "Succeeded", "Failed"}

scheduled(pod) if {
	some c in list(object.get(pod, "conditions", []))
	c.type == "PodScheduled"
	c.status == "True"
}

# waiting_pods are the job's pods that still wait for a node.
waiting_pods contains pod if {
	some pod in pods
	pod.phase == "Pending"
	not scheduled(pod)
}

pod_named(name) := p if {
	some p in pods
	p.name == name
}

# A Scheduled event about the pod after t: whatever failed before was
# answered.
scheduled_after(name, t) if {
	some e in events
	e.object.kind == "Pod"
	e.object.name == name
	e.reason == "Scheduled"
	k8s.event_time(e) >= t
}

_job_started if input.phase in {"Running", "Succeeded"}

# live_pod_event(e): a scheduling event about a pod that is still waiting,
# or about a pod gone from the snapshot while the job has not started and
# nothing scheduled the pod since.
live_pod_event(e) if {
	e.object.kind == "Pod"
	some pod in waiting_pods
	pod.name == e.object.name
}

live_pod_event(e) if {
	e.object.kind == "Pod"
	not pod_named(e.object.name)
	not _job_started
	not scheduled_after(e.object.name, object.get(e, "lastTime", k8s.event_time(e)))
}

# messages are the scheduler's current words about the job's pods: the
# PodScheduled=False condition of a waiting pod, else the scheduling
# events about it that still hold. Each is {pod, text, time, evidence}.
messages contains m if {
	some pod in waiting_pods
	some c in list(object.get(pod, "conditions", []))
	c.type == "PodScheduled"
	c.status == "False"
	object.get(c, "message", "") != ""
	m := {
		"pod": pod.name,
		"text": c.message,
		"time": object.get(c, "lastTransitionTime", ""),
		"evidence": k8s.condition_evidence(k8s.pod_ref(pod), "status.conditions[PodScheduled]", c),
	}
}

_has_condition_message(name) if {
	some m in messages_from_conditions
	m.pod == name
}

messages_from_conditions contains m if {
	some pod in waiting_pods
	some c in list(object.get(pod, "conditions", []))
	c.type == "PodScheduled"
	c.status == "False"
	object.get(c, "message", "") != ""
	m := {"pod": pod.name}
}

messages contains m if {
	some e in events
	e.reason in scheduling_reasons
	live_pod_event(e)
	not _has_condition_message(e.object.name)
	m := {
		"pod": e.object.name,
		"text": e.message,
		"time": k8s.event_time(e),
		"evidence": k8s.event_evidence(e),
	}
}

# Gang schedulers' and queues' words for "the group waits until all of it
# fits": Volcano ("3/4 tasks in gang unschedulable: pod group is not
# ready, 1 Pending, 4 minAvailable"), its queue and overcommit plugins
# ("queue resource quota insufficient", "resource in cluster is
# overused"), scheduler-plugins coscheduling ("cannot find enough sibling
# pods, current pods number: 2, minMember of group: 4", "pod with pgName:
# ns/pg last failed in 3s, deny", "PodGroup ns/pg gets rejected due to Pod
# x is unschedulable even after PostFilter", "rejected due to timeout
# after waiting 10s at plugin Coscheduling"). Volcano's "pod group is
# ready, ..." is not: the gang is complete and only extra pods wait.
gang_pattern := `(?i)in gang unschedulable|pod ?group is not ready|job is not ready, \d|cannot find enough sibling pods|minMember of group|pod with pgName: \S+ last failed in|podGroup \S+ failed recently|PodGroup \S+ gets rejected due to|rejected due to timeout after waiting \S+ at plugin Coscheduling|optimistic rejection in PostFilter|rejection in Unreserve|cannot proceed due to gated pods in the same PodGroup|queue resource quota insufficient|resource in cluster is overused|Queue <?[\w.-]+>? is overused|can possibly be assigned to \S+`

is_gang(msg) if regex.match(gang_pattern, msg)

# A gang's pod group that has not started: Volcano Pending, Inqueue or
# Unknown (fewer than minMember running), scheduler-plugins Pending,
# PreScheduling or Scheduling, a T9k group without GroupScheduled=True.
pod_group_waiting(a) if {
	a.kind == "PodGroup"
	object.get(a, "phase", "") in {"Pending", "Inqueue", "Unknown", "PreScheduling", "Scheduling", ""}
	not _group_scheduled(a)
}

_group_scheduled(a) if {
	some c in list(object.get(a, "conditions", []))
	c.type in {"GroupScheduled", "Scheduled"}
	c.status == "True"
	not _group_unschedulable(a)
}

_group_unschedulable(a) if {
	some c in list(object.get(a, "conditions", []))
	c.type == "Unschedulable"
	c.status == "True"
}

# unschedulable_condition(a) is a pod group condition that says the gang
# does not fit or is incomplete (group_unschedulable).
unschedulable_condition(a) := c if {
	some c in list(object.get(a, "conditions", []))
	group_unschedulable(c)
}

group_unschedulable(c) if {
	c.type == "Unschedulable"
	c.status == "True"
}

group_unschedulable(c) if {
	c.type in {"GroupScheduled", "Scheduled", "SufficientGroupMember", "Ready"}
	c.status == "False"
}

group_unschedulable(c) if {
	c.status == "True"
	is_gang(object.get(c, "message", ""))
}

# kueue_admitted(a): a Kueue Workload that holds its quota and was
# admitted, or finished; older QuotaReserved=False transitions and Pending
# events do not matter then.
kueue_admitted(a) if {
	some c in list(object.get(a, "conditions", []))
	c.type in {"Admitted", "Finished"}
	c.status == "True"
}

kueue_waiting(a) if {
	a.kind == "Workload"
	not kueue_admitted(a)
	object.get(a, "active", true) != false
}

# gang_hold: a gang scheduler or a queue holds the job: a pod group that
# has not started says its gang does not fit, the scheduler's current
# words about a pod are a gang's, or a Kueue workload waits for admission.
# Capacity words about the same pods ("Insufficient nvidia.com/gpu") then
# describe why the gang waits, not a separate fault.
gang_hold if {
	some a in gates
	pod_group_waiting(a)
	unschedulable_condition(a)
	members_waiting
}

gang_hold if {
	some m in messages
	is_gang(m.text)
}

gang_hold if {
	some a in gates
	kueue_waiting(a)
}

gang_hold if {
	some e in events
	e.object.kind == "PodGroup"
	e.reason in scheduling_reasons
	is_gang(e.message)
	some a in gates
	a.kind == "PodGroup"
	a.name == e.object.name
	pod_group_waiting(a)
	members_waiting
}

# members_waiting: some pod still waits for a node, or no pod exists yet
# while the job has not started (a gang's pods may be created only once
# the group is admitted).
members_waiting if count(waiting_pods) > 0

members_waiting if {
	count(pods) == 0
	not _job_started
	not input.phase == "Failed"
}

# need(res) is what the whole job asks for of resource res at once:
# replicas times the per-pod request (the limit when no request is set).
need(res) := sum([n |
	some g in list(object.get(input, "replicas", []))
	per_pod := sum([x |
		some c in list(object.get(object.get(g, "template", {}), "containers", []))
		x := amount(c, res)
	])
	n := g.expected * per_pod
])

amount(c, res) := x if {
	q := object.get(object.get(c, "requests", {}), res, "")
	q != ""
	x := units.parse(q)
} else := x if {
	q := object.get(object.get(c, "limits", {}), res, "")
	q != ""
	x := units.parse(q)
} else := 0

# number(q) reads a quantity ("16", "2k", "100500m"), or 0.
number(q) := units.parse(q) if q != ""

else := 0

# fmt_number prints a whole number without a fraction.
fmt_number(n) := sprintf("%d", [n]) if n == floor(n)

else := sprintf("%.2f", [n])

queue_ref(q) := {"kind": q.kind, "namespace": object.get(q, "namespace", ""), "name": q.name}

gate_ref(a) := {"kind": a.kind, "namespace": object.get(a, "namespace", ""), "name": a.name}

# scheduler_of(a) names the scheduler behind a gate.
scheduler_of(a) := "Kueue" if {
	a.kind == "Workload"
} else := "TensorStack scheduler" if {
	contains(object.get(a, "apiVersion", ""), "tensorstack")
} else := "Coscheduling" if {
	startswith(object.get(a, "apiVersion", ""), "scheduling.x-k8s.io")
} else := "Volcano"
