# METADATA
# title: The job is suspended or paused
# description: |
#   The job is stopped on purpose: spec.suspend is true, its Suspended
#   condition is True, a TensorStack job runs in pause mode, a RayJob or
#   RayCluster is suspended, or its Kueue workload was deactivated. No pods
#   run until it is resumed. This is a state, not a fault: it does not make
#   the job unhealthy. A job that a queue (Kueue) holds suspended while it
#   waits is reported as waiting in the queue instead.
# custom:
#   severity: info
#   owner: user
#   message:
#     en: "The job is suspended ({{.via}}); it will not run until resumed."
#     zh: "作业已暂停（{{.via}}），恢复之前不会运行。"
#   remediation:
#     en: |
#       - If the pause was not intended, resume it: set `spec.suspend: false` (TrainJob, PyTorchJob `runPolicy.suspend`, RayJob `suspend`), or `runMode.pause.enable: false` for a PyTorchTrainingJob.
#       - Check who suspended it: `kubectl get <kind> <name> -o yaml` (managedFields) and the events.
#       - A resumed job starts its pods anew; make sure it resumes from its last checkpoint.
#     zh: |
#       - 如果并非有意暂停，请恢复作业：设置 `spec.suspend: false`（TrainJob、PyTorchJob 的 `runPolicy.suspend`、RayJob 的 `suspend`），PyTorchTrainingJob 则设置 `runMode.pause.enable: false`。
#       - 查看是谁暂停了作业：`kubectl get <kind> <name> -o yaml`（managedFields）以及相关事件。
#       - 恢复后作业会重新创建 Pod；请确保它能从最近的检查点继续训练。
#   zh:
#     title: 作业已被挂起或暂停
#     description: |
#       作业被有意停止：spec.suspend 为 true、Suspended 状况为 True、TensorStack 作业处于暂停模式、RayJob 或 RayCluster 已挂起，或者它的 Kueue workload 已被停用。恢复之前不会有 Pod 运行。这是一种状态而不是故障，不会让作业被判为不健康。由队列（Kueue）在排队期间挂起的作业会作为排队等待报告，而不是这里。
package traindoc.rules.job.suspended

import data.traindoc.lib.k8s
import data.traindoc.lib.sched

_status := object.get(input, "status", {})

_spec := object.get(input, "spec", {})

# Each way a job can be suspended, with its evidence.
_signals contains ["spec.suspend", k8s.field_evidence(k8s.job_ref, "spec.suspend", "suspend: true"), t] if {
	object.get(_spec, "suspend", false) == true
	t := object.get(input, "createdAt", "")
}

_signals contains ["runMode.pause", k8s.field_evidence(k8s.job_ref, "spec.runMode.pause.enable", "pause mode enabled"), t] if {
	object.get(object.get(_spec, "runMode", {}), "pause", false) == true
	t := object.get(input, "createdAt", "")
}

_signals contains [sprintf("condition %s", [c.type]), k8s.condition_evidence(k8s.job_ref, sprintf("status.conditions[%s]", [c.type]), c), object.get(c, "lastTransitionTime", "")] if {
	some c in k8s.list(object.get(_status, "conditions", []))
	c.type in {"Suspended", "Paused"}
	c.status == "True"
}

_signals contains [sprintf("status %s", [p]), k8s.field_evidence(k8s.job_ref, "status", p), object.get(input, "createdAt", "")] if {
	some p in [object.get(_status, "phase", ""), object.get(_status, "deploymentStatus", "")]
	lower(p) in {"paused", "suspended", "suspending", "pausing"}
}

# A Kueue workload that was deactivated (spec.active: false, "kueuectl
# stop workload"): the job is stopped on purpose.
_signals contains ["Kueue workload deactivated", k8s.field_evidence(sched.gate_ref(a), "spec.active", "active: false"), object.get(a, "createdAt", "")] if {
	some a in sched.gates
	a.kind == "Workload"
	object.get(a, "active", true) == false
}

# Kueue suspends the jobs it queues: that is waiting, not a pause.
_queued if {
	some a in sched.gates
	sched.kueue_waiting(a)
}

_queued if {
	object.get(object.get(input, "labels", {}), "kueue.x-k8s.io/queue-name", "") != ""
	count([a | some a in sched.gates; a.kind == "Workload"]) == 0
}

# A job that finished or failed is not held by a pause.
_finished if object.get(input, "phase", "") in {"Succeeded", "Failed"}

findings contains f if {
	count(_signals) > 0
	not _queued
	not _finished
	vias := sort({s[0] | some s in _signals})
	times := sort([s[2] | some s in _signals; s[2] != ""])
	f := {
		"subject": {"kind": input.kind, "name": input.name},
		"params": {"via": concat(", ", vias)},
		"evidence": [s[1] | some s in _signals],
		"time": _first(times),
	}
}

_first(ts) := t if {
	count(ts) > 0
	t := ts[0]
} else := ""
