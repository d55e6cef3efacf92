# METADATA
# title: The job has been pending too long
# description: |
#   The job has stayed Pending longer than the threshold
#   (thresholds.pending_seconds) and no rule found a more specific cause
#   (scheduling, quota, image, configuration or creation errors): nothing in
#   the snapshot explains the wait.
# custom:
#   severity: warning
#   owner: platform
#   message:
#     en: "The job has been pending for {{.age}} (threshold {{.threshold}})."
#     zh: "作业已处于 Pending 状态 {{.age}}（阈值为 {{.threshold}}）。"
#   remediation:
#     en: |
#       - Look at the pods: `kubectl get pods -l <job label> -o wide` and `kubectl describe pod <pod>`; a pod with no events and no PodScheduled condition was never looked at by its scheduler.
#       - Check that the scheduler the pods name (`schedulerName`) is installed and running, and that the operator is running (`kubectl get pods -n <operator namespace>`).
#       - If pods do not exist, look at the operator's logs and the job's events for creation errors.
#       - If the cluster is just busy, the job will start once resources free up.
#     zh: |
#       - 查看 Pod：`kubectl get pods -l <作业标签> -o wide` 和 `kubectl describe pod <pod>`；没有任何事件、也没有 PodScheduled 状况的 Pod 说明调度器从未处理过它。
#       - 确认 Pod 指定的调度器（`schedulerName`）已安装且在运行，Operator 也在运行（`kubectl get pods -n <operator 命名空间>`）。
#       - 如果 Pod 不存在，请查看 Operator 日志和作业事件中的创建错误。
#       - 如果只是集群繁忙，资源释放后作业就会启动。
#   zh:
#     title: 作业 Pending 时间过长
#     description: |
#       作业处于 Pending 的时间超过了阈值（thresholds.pending_seconds），且没有规则找到更具体的原因（调度、配额、镜像、配置或创建错误）：快照中没有任何信息能解释这段等待。
package traindoc.rules.job.pending_too_long

import data.traindoc.lib.config
import data.traindoc.lib.k8s

findings contains f if {
	input.phase == "Pending"
	created := input.createdAt
	age := k8s.age_seconds(created)
	limit := config.thresholds.pending_seconds
	age > limit
	f := {
		"subject": {"kind": input.kind, "name": input.name},
		"params": {"age": _duration(age), "threshold": _duration(limit)},
		"evidence": [object.union(
			k8s.field_evidence(k8s.job_ref, "metadata.creationTimestamp", sprintf("created %s, still Pending at %s", [created, input.now])),
			{"time": created},
		)],
		# The finding starts when the wait became too long, so that a
		# scheduling or creation error seen before then explains it; the
		# taxonomy marks this category as a fallback, and the engine drops
		# it when something explains it.
		"time": time.format(time.parse_rfc3339_ns(created) + (limit * 1000000000)),
	}
}

# 5h32m, 45m, 90s
_duration(s) := sprintf("%dh%02dm", [h, m]) if {
	h := floor(s / 3600)
	h > 0
	m := floor((s - (h * 3600)) / 60)
} else := sprintf("%dm", [floor(s / 60)]) if {
	s >= 60
} else := sprintf("%ds", [floor(s)])
