# METADATA
# title: The RayJob has no RayCluster to run on
# description: |
#   KubeRay could not get the RayCluster the RayJob should run on: a
#   clusterSelector names a RayCluster that does not exist ("RayCluster
#   ml/shared set in the clusterSelector is not found. It must be created
#   manually", event RayClusterNotFound), or the operator failed to get or
#   create it (jobDeploymentStatus FailedToGetOrCreateRayCluster in KubeRay
#   before 1.1, with the API error in the status message). Nothing runs.
# custom:
#   category: job.creation-failed
#   severity: error
#   owner: user
#   message:
#     en: "RayJob {{.job}} has no RayCluster: {{.detail}}"
#     zh: "RayJob {{.job}} 没有可用的 RayCluster：{{.detail}}"
#   remediation:
#     en: |
#       - With `spec.clusterSelector`, create the RayCluster first (same namespace, the `ray.io/cluster` label value the selector names) or remove the selector so the RayJob creates its own cluster from `rayClusterSpec`.
#       - Otherwise read the kuberay-operator log for the API error (RBAC, admission webhooks, quota) and fix it; `kubectl describe rayjob` shows the events.
#     zh: |
#       - 使用 `spec.clusterSelector` 时，先创建 RayCluster（同一命名空间，且带有选择器指定的 `ray.io/cluster` 标签值），或删除选择器，让 RayJob 根据 `rayClusterSpec` 创建自己的集群。
#       - 否则查看 kuberay-operator 日志中的 API 错误（RBAC、准入 webhook、配额）并修复；`kubectl describe rayjob` 会显示相关事件。
#   zh:
#     title: RayJob 没有可运行的 RayCluster
#     description: |
#       KubeRay 无法获得 RayJob 应该运行的 RayCluster：clusterSelector 指向一个不存在的 RayCluster（"RayCluster ml/shared set in the clusterSelector is not found. It must be created manually"，事件 RayClusterNotFound），或者 operator 获取或创建它失败（KubeRay 1.1 之前的 jobDeploymentStatus FailedToGetOrCreateRayCluster，状态消息中有 API 错误）。作业没有任何部分在运行。
package traindoc.rules.job.rayjob_cluster_missing

import data.traindoc.lib.k8s

_status := object.get(input, "status", {})

_missing_text := `(?i)RayCluster\S* .*(?:is not found|not found|does not exist)`

findings contains f if {
	input.kind == "RayJob"
	not input.phase in {"Succeeded", "Suspended"}
	some e in input.events
	e.object.kind == "RayJob"
	e.reason == "RayClusterNotFound"
	f := {
		"subject": {"kind": "RayJob", "name": input.name},
		"params": {"job": input.name, "detail": e.message},
		"evidence": [k8s.event_evidence(e)],
		"time": k8s.event_time(e),
	}
}

findings contains f if {
	input.kind == "RayJob"
	not input.phase in {"Succeeded", "Suspended"}
	not _event
	_cluster_status
	detail := trim_space(sprintf("%s %s", [object.get(_status, "deploymentStatus", ""), object.get(_status, "message", "")]))
	f := {
		"subject": {"kind": "RayJob", "name": input.name},
		"params": {"job": input.name, "detail": detail},
		"evidence": [k8s.field_evidence(k8s.job_ref, "status", detail)],
		"time": object.get(input, "createdAt", ""),
	}
}

_event if {
	some e in input.events
	e.reason == "RayClusterNotFound"
}

_cluster_status if object.get(_status, "deploymentStatus", "") == "FailedToGetOrCreateRayCluster"

_cluster_status if {
	count(input.pods) == 0
	regex.match(_missing_text, object.get(_status, "message", ""))
}
