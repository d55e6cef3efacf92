# METADATA
# title: A Ray worker or actor died
# description: |
#   A Ray actor, task worker or node died unexpectedly (RayActorError,
#   ActorDiedError, WorkerCrashedError, NodeDiedError, RaySystemError, "Worker
#   exit type: SYSTEM_ERROR"). The death message is a symptom: the worker was
#   killed (memory, node loss, preemption) or crashed; look at the worker's
#   own log and the node.
# custom:
#   severity: error
#   owner: platform
#   explains: [job.backoff-exceeded]
#   message:
#     en: "A Ray {{.what}} died unexpectedly."
#     zh: "Ray {{.what}} 意外终止。"
#   remediation:
#     en: |
#       - Find the dead worker's own log (`ray logs worker-<id>*` or the pod of the node it ran on) and look for its last error, a CUDA OOM or a segfault.
#       - Check the node: was the worker pod OOMKilled, evicted, preempted, or its node lost? `kubectl get pods -o wide` and events around the time.
#       - Raise memory for the worker group or set `memory=` on actors, and configure Ray Train `FailureConfig(max_failures=...)` to retry on node loss.
#     zh: |
#       - 找到死亡 worker 自己的日志（`ray logs worker-<id>*`，或它所在节点的 Pod），查看最后的错误、CUDA OOM 或段错误。
#       - 检查节点：worker Pod 是否被 OOMKilled、驱逐、抢占，或节点丢失？查看 `kubectl get pods -o wide` 及当时的事件。
#       - 为 worker 组增加内存或给 actor 设置 `memory=`，并配置 Ray Train 的 `FailureConfig(max_failures=...)` 以在节点丢失时重试。
#   zh:
#     title: Ray worker 或 actor 终止
#     description: |
#       Ray actor、任务 worker 或节点意外终止（RayActorError、ActorDiedError、WorkerCrashedError、NodeDiedError、RaySystemError、"Worker exit type: SYSTEM_ERROR"）。这条消息只是症状：worker 被杀死（内存、节点丢失、抢占）或崩溃；请查看 worker 自己的日志和节点。
package traindoc.rules.exec.ray_actor_died

import data.traindoc.lib.exec
import data.traindoc.lib.k8s

signatures contains {
	"id": "exec.ray-actor-died",
	"pattern": `RayActorError|ActorDiedError|ActorUnavailableError|WorkerCrashedError|NodeDiedError|RaySystemError|The actor died unexpectedly before finishing this task|The actor is dead because|Worker exit type: (?:SYSTEM_ERROR|UNEXPECTED_SYSTEM_EXIT|NODE_DIED)|A worker died or was killed while executing a task by an unexpected system error`,
}

_what(t) := "node" if {
	regex.match(`NodeDiedError|NODE_DIED`, t)
} else := "worker" if {
	regex.match(`WorkerCrashedError|A worker died`, t)
} else := "actor"

findings contains f if {
	some pod in input.pods
	some c in k8s.containers(pod)
	hs := exec.hits(pod, c, {"exec.ray-actor-died"})
	count(hs) > 0
	f := {
		"subject": exec.subject(pod, c),
		"params": {"what": _what(exec.sample_text(hs[0]))},
		"evidence": exec.evidence(pod, c, hs),
		"time": exec.hit_time(c, hs[0]),
	}
}
