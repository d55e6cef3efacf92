# METADATA
# title: The operator could not create the job's workload
# description: |
#   The training operator or the controllers beneath it could not build or
#   create the objects the job needs: a TrainJob whose Created condition is
#   False (JobsBuildFailed, JobsCreationFailed), controller errors while
#   creating the JobSet, Jobs or pods, or pod creation refused by an
#   admission webhook or Pod Security. No replica runs until the cause is
#   fixed. Quota refusals are reported by their own rule.
# custom:
#   severity: error
#   owner: user
#   message:
#     en: "{{.controller}} could not create the job's {{.what}}: {{.detail}}"
#     zh: "{{.controller}} 无法创建作业的 {{.what}}：{{.detail}}"
#   remediation:
#     en: |
#       - Read the full error: `kubectl describe <kind> <name>` and `kubectl get events --field-selector involvedObject.name=<name>`.
#       - "admission webhook ... denied the request": the cluster's policy (Gatekeeper, Kyverno, Volcano, Kueue) rejects the object; add what the policy asks for (labels, annotations, resource limits) to the job or its runtime template.
#       - "forbidden: violates PodSecurity": remove hostIPC, hostNetwork, hostPath or privileged settings, or run in a namespace whose Pod Security level allows them.
#       - JobsBuildFailed: the TrainJob and its runtime do not fit together (missing runtime, invalid override); fix the TrainJob or the ClusterTrainingRuntime.
#       - The operator retries on its own once the object is fixed; otherwise delete and resubmit the job.
#     zh: |
#       - 查看完整错误：`kubectl describe <kind> <name>` 和 `kubectl get events --field-selector involvedObject.name=<name>`。
#       - "admission webhook ... denied the request"：集群策略（Gatekeeper、Kyverno、Volcano、Kueue）拒绝了该对象；按策略要求在作业或其运行时模板中补充标签、注解或资源限制。
#       - "forbidden: violates PodSecurity"：去掉 hostIPC、hostNetwork、hostPath 或 privileged 设置，或者在 Pod 安全级别允许这些设置的命名空间中运行。
#       - JobsBuildFailed：TrainJob 与其运行时不匹配（运行时不存在、覆盖项无效）；请修正 TrainJob 或 ClusterTrainingRuntime。
#       - 对象修正后 Operator 会自动重试；否则请删除并重新提交作业。
#   zh:
#     title: Operator 无法创建作业的工作负载
#     description: |
#       训练 Operator 或其下层控制器无法构建或创建作业所需的对象：TrainJob 的 Created 状况为 False（JobsBuildFailed、JobsCreationFailed）、控制器在创建 JobSet、Job 或 Pod 时出错，或者 Pod 的创建被准入 Webhook 或 Pod 安全策略拒绝。问题修复之前不会有任何副本运行。配额拒绝由单独的规则报告。
package traindoc.rules.job.creation_failed

import data.traindoc.lib.k8s

_conditions := k8s.list(object.get(object.get(input, "status", {}), "conditions", []))

_quota := `exceeded quota|failed quota`

# Races a controller retries on its next sync: an update conflict, a pod
# the previous sync already created, an API server that was briefly slow.
# They do not keep a job from starting.
_transient := `(?i)the object has been modified|already exists|is being deleted|etcdserver: (?:request timed out|leader changed)|the server was unable to return a response in the time allotted|Too many requests, please try again later`

# Event reasons of creation failures across controllers: training-operator
# FailedCreatePod/FailedCreateService/FailedCreatePodGroup, Job and
# ReplicaSet FailedCreate, Trainer TrainJobResourcesCreationFailed, JobSet
# and KubeRay FailedCreate*/FailedToCreate*.
_reason := `^(FailedCreate\w*|FailedToCreate\w*|\w*CreationFailed|\w*BuildFailed|ErrCreate\w*|CreateFailed)$`

_what(e) := "Pod" if {
	regex.match(`(?i)pod`, e.reason)
} else := "Pod" if {
	regex.match(`pods "[^"]+" is forbidden|Error creating: pods`, e.message)
} else := "PodGroup" if {
	regex.match(`(?i)podgroup`, e.reason)
} else := "Service" if {
	regex.match(`(?i)service`, e.reason)
} else := "JobSet/Job"

_controller(e) := "trainer-controller-manager" if {
	e.object.kind == "TrainJob"
} else := "jobset-controller" if {
	e.object.kind == "JobSet"
} else := "job-controller" if {
	e.object.kind == "Job"
} else := "replicaset-controller" if {
	e.object.kind == "ReplicaSet"
} else := "kuberay-operator" if {
	e.object.kind in {"RayCluster", "RayJob"}
} else := "tensorstack-operator" if {
	e.object.kind == "PyTorchTrainingJob"
} else := "training-operator"

_short(msg) := trim_space(x) if {
	parts := split(msg, "Error creating: ")
	count(parts) > 1
	x := parts[1]
} else := trim_space(msg)

# Nothing runs: no pods at all, or fewer created than expected, and the job
# is not finished well.
_blocked if {
	not object.get(input, "phase", "") in {"Succeeded", "Suspended"}
	_missing_replicas
}

_missing_replicas if count(k8s.list(object.get(input, "pods", []))) == 0

_missing_replicas if {
	some g in k8s.list(object.get(input, "replicas", []))
	g.created < g.expected
}

# A TrainJob whose Created condition is False.
findings contains f if {
	some c in _conditions
	c.type == "Created"
	c.status == "False"
	object.get(c, "reason", "") in {"JobsBuildFailed", "JobsCreationFailed"}
	f := {
		"subject": {"kind": input.kind, "name": input.name},
		"params": {"controller": "trainer-controller-manager", "what": "JobSet", "detail": trim_space(sprintf("%s: %s", [c.reason, object.get(c, "message", "")]))},
		"evidence": [k8s.condition_evidence(k8s.job_ref, "status.conditions[Created]", c)],
		"time": object.get(c, "lastTransitionTime", ""),
	}
}

# Creation errors reported as Warning events (not quota).
findings contains f if {
	_blocked
	not _created_false
	some e in k8s.list(object.get(input, "events", []))
	e.type == "Warning"
	regex.match(_reason, e.reason)
	not regex.match(_quota, e.message)
	not regex.match(_transient, e.message)
	f := {
		"subject": {"kind": e.object.kind, "name": e.object.name},
		"params": {"controller": _controller(e), "what": _what(e), "detail": _detail(e)},
		"evidence": [k8s.event_evidence(e)],
		"time": k8s.event_time(e),
	}
}

# Pod names differ from event to event; the cause does not.
_detail(e) := regex.replace(_short(e.message), `pods "[^"]+" is forbidden`, `pods "…" are forbidden`)

_created_false if {
	some c in _conditions
	c.type == "Created"
	c.status == "False"
}

# A TrainJob with no conditions, no children and no pods, and Warning
# events on itself: the controller failed before it could report.
findings contains f if {
	input.kind == "TrainJob"
	count(_conditions) == 0
	count(k8s.list(object.get(input, "children", []))) == 0
	count(k8s.list(object.get(input, "pods", []))) == 0
	some e in k8s.list(object.get(input, "events", []))
	e.type == "Warning"
	e.object.kind == "TrainJob"
	not regex.match(_reason, e.reason)
	not regex.match(_quota, e.message)
	f := {
		"subject": {"kind": "TrainJob", "name": e.object.name},
		"params": {"controller": "trainer-controller-manager", "what": "JobSet", "detail": trim_space(e.message)},
		"evidence": [k8s.event_evidence(e)],
		"time": k8s.event_time(e),
	}
}
