# METADATA
# title: A higher-priority workload preempted the job
# description: |
#   The scheduler or a queue took the job's resources for a workload of
#   higher priority: kube-scheduler preempted pods, the kubelet preempted
#   them for a critical pod, Volcano reclaimed or preempted them, or Kueue
#   evicted the job's Workload to admit another. The replacement pods that
#   then cannot be scheduled, or the workload that waits in its queue again,
#   are consequences: the preemptor holds the resources.
# custom:
#   severity: warning
#   owner: platform
#   explains: [sched.insufficient-gpu, sched.insufficient-resources, sched.gang-pending]
#   message:
#     en: "Preempted by {{.by}} to make room for a higher-priority workload."
#     zh: "被 {{.by}} 抢占，资源让给了优先级更高的工作负载。"
#   remediation:
#     en: |
#       - See who took the resources: the Preempted events name the preemptor (`kubectl get events --field-selector reason=Preempted`); for Kueue, `kubectl describe workload <name>`.
#       - If this job matters more, give it a higher `priorityClassName` (or Kueue `WorkloadPriorityClass`), or run it in a queue that others may not reclaim from.
#       - Make the job resumable: save checkpoints often and restart from the latest one, so a preemption costs minutes rather than the whole run.
#     zh: |
#       - 查看是谁占用了资源：Preempted 事件会给出抢占者（`kubectl get events --field-selector reason=Preempted`）；使用 Kueue 时执行 `kubectl describe workload <name>`。
#       - 如果该作业更重要，请为其设置更高的 `priorityClassName`（或 Kueue 的 `WorkloadPriorityClass`），或提交到不会被其他作业回收资源的队列。
#       - 让作业可以续跑：经常保存检查点，并从最新的检查点重启，这样一次抢占只损失几分钟而不是整个训练。
#   zh:
#     title: 作业被更高优先级的工作负载抢占
#     description: |
#       调度器或队列把作业的资源让给了优先级更高的工作负载：kube-scheduler 抢占了 Pod，kubelet 为关键 Pod 抢占了它们，Volcano 回收或抢占了它们，或者 Kueue 驱逐了作业的 Workload 以接纳其他作业。之后无法调度的替代 Pod、或重新在队列中等待的 Workload 都是其后果：资源被抢占者占用着。
package traindoc.rules.pod.preempted

import data.traindoc.lib.k8s
import data.traindoc.lib.sched

# DisruptionTarget reasons: PreemptionByScheduler (1.27+) and
# PreemptionByKubeScheduler (1.26), message "default-scheduler: preempting
# to accommodate a higher priority pod" (or "pod group", "workload").
_disruption(c) if {
	c.type == "DisruptionTarget"
	c.status == "True"
	c.reason in {"PreemptionByScheduler", "PreemptionByKubeScheduler"}
}

_disruption(c) if {
	c.type == "DisruptionTarget"
	c.status == "True"
	contains(object.get(c, "message", ""), "preempting to accommodate")
}

# Volcano marks the pods it evicts: Ready=False, reason Evict, "Pod is
# evicted, because of preempt" (or reclaim, when another queue takes back
# its share).
_disruption(c) if {
	c.type == "Ready"
	c.status == "False"
	c.reason == "Evict"
	regex.match(`because of (preempt|reclaim)`, object.get(c, "message", ""))
}

findings contains f if {
	some pod in k8s.list(input.pods)
	some c in pod.conditions
	_disruption(c)
	f := {
		"subject": {"kind": "Pod", "name": pod.name},
		"params": {"by": _condition_by(c)},
		"evidence": array.concat([k8s.condition_evidence(k8s.pod_ref(pod), sprintf("status.conditions[%s]", [c.type]), c)], _pod_events(pod.name)),
		"time": object.get(c, "lastTransitionTime", ""),
	}
}

_pod_events(name) := [k8s.event_evidence(e) |
	some e in k8s.list(input.events)
	e.object.kind == "Pod"
	e.object.name == name
	_preempt_event(e)
]

# "Preempted by pod 1f2e... on node gpu-7", older "Preempted by ns/name on
# node x"; Volcano "Pod is evicted, because of preempt" / "reclaim".
_preempt_event(e) if e.reason in {"Preempted", "GotPreempted"}

_preempt_event(e) if {
	regex.match(`(?i)^Preempted by |because of (preempt|reclaim)|evicted.*(preempt|reclaim)|Preempted in order to admit critical pod`, e.message)
}

_condition_by(c) := "Volcano" if c.reason == "Evict"

else := "kube-scheduler"

_has_condition(name) if {
	some pod in k8s.list(input.pods)
	pod.name == name
	some c in pod.conditions
	_disruption(c)
}

# The kubelet preempts pods to admit a critical pod: the pod fails with
# reason Preempting ("Preempted in order to admit critical pod").
findings contains f if {
	some pod in k8s.list(input.pods)
	object.get(pod, "reason", "") in {"Preempting", "Preempted"}
	not _has_condition(pod.name)
	f := {
		"subject": {"kind": "Pod", "name": pod.name},
		"params": {"by": "the kubelet"},
		"evidence": [k8s.field_evidence(k8s.pod_ref(pod), "status.reason", trim_space(sprintf("%s %s", [pod.reason, object.get(pod, "message", "")])))],
		"time": object.get(pod, "startTime", ""),
	}
}

# Pod events alone (pod deleted since, or condition not captured).
findings contains f if {
	some e in k8s.list(input.events)
	e.object.kind == "Pod"
	_preempt_event(e)
	not _has_condition(e.object.name)
	not _pod_reason(e.object.name)
	f := {
		"subject": {"kind": "Pod", "name": e.object.name},
		"params": {"by": _event_by(e)},
		"evidence": [k8s.event_evidence(e)],
		"time": k8s.event_time(e),
	}
}

_pod_reason(name) if {
	some pod in k8s.list(input.pods)
	pod.name == name
	object.get(pod, "reason", "") in {"Preempting", "Preempted"}
}

_event_by(e) := "Volcano" if {
	regex.match(`(?i)because of (preempt|reclaim)|volcano`, sprintf("%s %s", [e.message, object.get(e, "source", "")]))
} else := "kube-scheduler"

# Kueue: the Workload's Evicted condition with reason Preempted, or its
# Preempted condition (InClusterQueue, InCohortReclamation, ...).
findings contains f if {
	some a in k8s.list(input.admission)
	a.kind == "Workload"
	some c in a.conditions
	_kueue_preempted(c)
	f := {
		"subject": {"kind": "Workload", "name": a.name},
		"params": {"by": "Kueue"},
		"evidence": [k8s.condition_evidence({"kind": "Workload", "namespace": object.get(a, "namespace", ""), "name": a.name}, sprintf("status.conditions[%s]", [c.type]), c)],
		"time": object.get(c, "lastTransitionTime", ""),
	}
}

_kueue_preempted(c) if {
	c.type == "Evicted"
	c.status == "True"
	c.reason == "Preempted"
}

_kueue_preempted(c) if {
	c.type == "Preempted"
	c.status == "True"
}

_kueue_preempted(c) if {
	c.status == "True"
	regex.match(`Preempted to accommodate a (higher priority )?[Ww]orkload`, object.get(c, "message", ""))
}

# Kueue's event on the job or its Workload ("Preempted", "Stopped",
# "EvictedDueToPreempted"), when no Workload was captured, or about a
# Workload that still waits to be admitted again and whose conditions were
# not kept.
findings contains f if {
	some e in k8s.list(input.events)
	e.object.kind != "Pod"
	regex.match(`Preempted to accommodate a (higher priority )?[Ww]orkload`, e.message)
	_event_holds(e)
	f := {
		"subject": {"kind": e.object.kind, "name": e.object.name},
		"params": {"by": "Kueue"},
		"evidence": [k8s.event_evidence(e)],
		"time": k8s.event_time(e),
	}
}

_workloads := [a | some a in k8s.list(input.admission); a.kind == "Workload"]

_event_holds(_) if count(_workloads) == 0

_event_holds(e) if {
	e.object.kind == "Workload"
	some a in _workloads
	a.name == e.object.name
	not sched.kueue_admitted(a)
	not _kueue_condition(a)
}

_kueue_condition(a) if {
	some c in k8s.list(a.conditions)
	_kueue_preempted(c)
}
