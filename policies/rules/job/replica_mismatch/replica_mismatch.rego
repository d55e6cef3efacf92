# METADATA
# title: Fewer replicas exist or run than the job expects
# description: |
#   The number of replicas the job asks for and the number of pods that
#   exist or run disagree: some replica pods were never created, or the
#   controller reports replicas still being created, deleted or in an
#   unknown state long after the job started. The job may run, but not in
#   the shape it was submitted with.
# custom:
#   severity: error
#   owner: platform
#   message:
#     en: "{{.group}}: {{.expected}} replica(s) expected, {{.created}} created, {{.running}} running{{if .controller}} (controller reports {{.controller}}){{end}}."
#     zh: "{{.group}}：期望 {{.expected}} 个副本，已创建 {{.created}} 个，运行中 {{.running}} 个{{if .controller}}（控制器报告 {{.controller}}）{{end}}。"
#   remediation:
#     en: |
#       - Compare the job's status with its pods: `kubectl get <kind> <name> -o yaml` (replicaStatuses / aggregate) and `kubectl get pods -l <job label>`.
#       - Look for the reason the missing replicas were not created: the job's events (FailedCreate, quota, admission webhooks) and the operator's logs.
#       - For elastic jobs running below the expected size, check that the nodes for the missing replicas can be scheduled, and whether the job should wait for them or run smaller.
#       - If the controller's counts are stale (pods exist but are not counted), restart the operator and report it to the platform team.
#     zh: |
#       - 对比作业状态与其 Pod：`kubectl get <kind> <name> -o yaml`（replicaStatuses / aggregate）和 `kubectl get pods -l <作业标签>`。
#       - 查找缺失副本未被创建的原因：作业的事件（FailedCreate、配额、准入 Webhook）以及 Operator 日志。
#       - 对于规模低于期望值的弹性作业，检查缺失副本所需的节点能否调度，并决定是等待它们还是以较小规模运行。
#       - 如果控制器的计数已过时（Pod 存在但未被计入），请重启 Operator 并报告给平台团队。
#   zh:
#     title: 实际存在或运行的副本少于作业期望
#     description: |
#       作业要求的副本数与实际存在或运行的 Pod 数不一致：部分副本 Pod 从未创建，或者作业启动很久之后控制器仍报告有副本处于创建中、已删除或未知状态。作业也许在运行，但规模与提交时不同。
package traindoc.rules.job.replica_mismatch

import data.traindoc.lib.k8s

# Jobs just created are still making their pods.
_grace_seconds := 300

_settled if k8s.age_seconds(input.createdAt) > _grace_seconds

# Only jobs that should be running or starting; finished jobs may have
# their pods cleaned up, suspended ones have none on purpose.
_active if input.phase in {"Running", "Pending"}

# Ray groups scale between their bounds; other kinds must reach the count
# they ask for.
_wanted(g) := g.minReplicas if {
	input.kind in {"RayJob", "RayCluster"}
	g.minReplicas
} else := g.expected

_group_hits contains [g, detail] if {
	_active
	_settled
	some g in k8s.list(input.replicas)
	g.created < _wanted(g)
	detail := ""
}

# All pods exist, but fewer run than expected while the job says Running.
_group_hits contains [g, detail] if {
	input.phase == "Running"
	_settled
	some g in k8s.list(input.replicas)
	g.created >= _wanted(g)
	g.running + g.succeeded < _wanted(g)
	detail := ""
}

findings contains f if {
	some h in _group_hits
	[g, detail] := h
	f := {
		"subject": {"kind": input.kind, "name": input.name},
		"params": {"group": g.type, "expected": _wanted(g), "created": g.created, "running": g.running, "controller": detail},
		"evidence": [k8s.field_evidence(k8s.job_ref, sprintf("replicas[%s]", [g.type]), sprintf("expected=%d created=%d pending=%d running=%d succeeded=%d failed=%d", [g.expected, g.created, object.get(g, "pending", 0), g.running, object.get(g, "succeeded", 0), object.get(g, "failed", 0)]))],
		"time": input.now,
	}
}

# Aggregate counts of the controller (T9k aggregate, ...) that show tasks
# stuck in creation, deleted or unknown while the job should run.
_counts := object.get(object.get(input, "status", {}), "counts", {})

_stuck := {k: n |
	some k in {"creating", "deleted", "unknown"}
	n := object.get(_counts, k, 0)
	n > 0
}

findings contains f if {
	_active
	_settled
	count(_group_hits) == 0
	count(_stuck) > 0
	expected := sum([g.expected | some g in k8s.list(input.replicas)])
	created := count(k8s.list(object.get(input, "pods", [])))
	running := object.get(_counts, "running", 0)
	detail := concat(", ", [sprintf("%s=%d", [k, _stuck[k]]) | some k in sort(object.keys(_stuck))])
	f := {
		"subject": {"kind": input.kind, "name": input.name},
		"params": {"group": "all replicas", "expected": expected, "created": created, "running": running, "controller": detail},
		"evidence": [k8s.field_evidence(k8s.job_ref, "status.aggregate", concat(", ", [sprintf("%s=%d", [k, _counts[k]]) | some k in sort(object.keys(_counts))]))],
		"time": input.now,
	}
}
