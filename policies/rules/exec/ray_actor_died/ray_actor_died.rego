# METADATA
# title: A Ray worker or actor died
# description: |
#   A Ray actor, task worker or node died unexpectedly (RayActorError,
#   ActorDiedError, WorkerCrashedError, NodeDiedError, OwnerDiedError, "Worker
#   exit type: SYSTEM_ERROR", a node marked dead after missed heartbeats). The
#   death message is a symptom: the worker was killed (memory, node loss,
#   preemption) or crashed. Ray's own list of possible causes ("killed by
#   SIGKILL by OOM killer", "may have exceeded K8s pod memory limits") is a
#   guess, not evidence: only the pod's OOMKilled state, an OOM event or Ray's
#   memory monitor say memory, and those findings then explain this one.
# custom:
#   severity: error
#   owner: platform
#   explains: [job.backoff-exceeded, exec.nonzero-exit, exec.python-error, exec.nccl-error, exec.nccl-timeout, exec.killed, progress.stalled, progress.gpu-idle, progress.throughput-drop, progress.checkpoint-stale]
#   message:
#     en: "A Ray {{.what}} died unexpectedly{{if .detail}}: {{.detail}}{{end}}."
#     zh: "Ray {{.what_zh}}意外终止{{if .detail_zh}}：{{.detail_zh}}{{end}}。"
#   remediation:
#     en: |
#       - Find the dead worker's own log (`ray logs worker-<id>*` or the pod of the node it ran on) and look for its last error, a CUDA OOM or a segfault.
#       - Check the pod and node: was the worker pod OOMKilled, evicted, preempted, or its node lost? `kubectl get pods -o wide` and events around the time. Ray's "may have exceeded K8s pod memory limits" is only a guess.
#       - Raise memory for the worker group or set `memory=` on actors, and configure Ray Train `FailureConfig(max_failures=...)` or actor `max_restarts` to survive node loss.
#     zh: |
#       - 找到死亡 worker 自己的日志（`ray logs worker-<id>*`，或它所在节点的 Pod），查看最后的错误、CUDA OOM 或段错误。
#       - 检查 Pod 和节点：worker Pod 是否被 OOMKilled、驱逐、抢占，或节点丢失？查看 `kubectl get pods -o wide` 及当时的事件。Ray 提示的 "may have exceeded K8s pod memory limits" 只是猜测。
#       - 为 worker 组增加内存或给 actor 设置 `memory=`，并配置 Ray Train 的 `FailureConfig(max_failures=...)` 或 actor 的 `max_restarts`，以便在节点丢失后继续运行。
#   zh:
#     title: Ray worker 或 actor 终止
#     description: |
#       Ray actor、任务 worker 或节点意外终止（RayActorError、ActorDiedError、WorkerCrashedError、NodeDiedError、OwnerDiedError、"Worker exit type: SYSTEM_ERROR"、因心跳丢失被标记为死亡的节点）。这条消息只是症状：worker 被杀死（内存、节点丢失、抢占）或崩溃。Ray 列出的可能原因（"killed by SIGKILL by OOM killer"、"may have exceeded K8s pod memory limits"）只是推测而非证据：只有 Pod 的 OOMKilled 状态、OOM 事件或 Ray 内存监控才能说明是内存问题，此时由那些发现解释本发现。
package traindoc.rules.exec.ray_actor_died

import data.traindoc.lib.exec
import data.traindoc.lib.k8s
import data.traindoc.lib.ray

# An actor that died: Ray 1.x-2.x RayActorError, 2.2x+ ActorDiedError and
# ActorUnavailableError, and the lines of their message.
signatures contains {
	"id": "exec.ray-actor-died.actor",
	"pattern": `\b(?:RayActorError|ActorDiedError|ActorUnavailableError)\b|The actor died unexpectedly before finishing this task|The actor is dead because its (?:worker process|owner) has died|The actor died because of an error raised in its creation task`,
	"context": 6,
}

# A task's worker process that died (Ray 0.7 named the task: "A worker died
# or was killed while executing task 5d1777e4ba9affffffff04000000.").
signatures contains {
	"id": "exec.ray-actor-died.worker",
	"pattern": `\b(?:WorkerCrashedError|OwnerDiedError)\b|The worker died unexpectedly while executing this task|A worker died or was killed while executing (?:(?:a|the) task by an unexpected system error|task [0-9a-f]{16,}\b)|Worker exit type: (?:SYSTEM_ERROR|UNEXPECTED_SYSTEM_EXIT)|The object's owner has exited`,
	"context": 4,
}

# A node that died: NodeDiedError, the node death info of Ray ≥ 2.30, the
# GCS (the monitor before Ray 1.0) marking a node dead after missed
# heartbeats, the raylet told it was marked dead, Ray ≥ 2.52's task error.
signatures contains {
	"id": "exec.ray-actor-died.node",
	"pattern": `\bNodeDiedError\b|The actor died because its node has died|has been marked dead because the (?:detector|monitor) has missed too many heartbeats|health check failed due to missing too many heartbeats|Worker exit type: NODE_DIED|node manager has mistakenly been marked (?:as )?dead|This node has bee[mn] marked as dead|Task failed because the node it was running on is dead or unavailable`,
	"context": 4,
}

_ids := {"exec.ray-actor-died.actor", "exec.ray-actor-died.worker", "exec.ray-actor-died.node"}

_patterns := {s.id: s.pattern | some s in signatures}

# What died, from the most telling words of every sample and its context.
_what(texts) := ["node", "节点"] if {
	some t in texts
	regex.match(`NodeDiedError|its node has died|NODE_DIED|marked dead because|missing too many heartbeats|marked (?:as )?dead|node it was running on is dead`, t)
} else := ["object's owner (the worker that created it)", "对象的所有者（创建它的 worker）"] if {
	some t in texts
	regex.match(`OwnerDiedError|The object's owner has exited`, t)
} else := ["actor owner", "actor 的所有者"] if {
	some t in texts
	contains(t, "its owner has died")
} else := ["actor (its constructor raised)", "actor（其构造函数抛出异常）"] if {
	some t in texts
	contains(t, "error raised in its creation task")
} else := ["worker process", "worker 进程"] if {
	some t in texts
	regex.match(`worker process has died|WorkerCrashedError|The worker died|A worker died|Worker exit type`, t)
} else := ["actor", "actor "]

_detail(texts) := ["its node was preempted", "它所在的节点被抢占"] if {
	some t in texts
	regex.match(`node was preempted|DRAIN_NODE_REASON_PREEMPTION`, t)
} else := ["its node stopped answering health checks", "它所在的节点不再响应健康检查"] if {
	some t in texts
	regex.match(`missed too many heartbeats|missing too many heartbeats`, t)
} else := ["Ray names memory as a possible cause, but no OOM kill is recorded", "Ray 把内存列为可能的原因，但没有记录到 OOM 杀死"] if {
	some t in texts
	regex.match(`may have exceeded K8s pod memory limits|killed by SIGKILL by OOM killer|killed by the OOM killer`, t)
} else := ["", ""]

_params(texts) := {"what": w[0], "what_zh": w[1], "detail": d[0], "detail_zh": d[1]} if {
	w := _what(texts)
	d := _detail(texts)
}

# The hit that names the dead actor or node: a "RayTaskError(ActorDiedError):
# ray::TaskRunner.run() (pid=1, ip=...)" header names the task that saw the
# death, not the actor that died, so other hits come first.
_subject_hit(hs) := xs[0] if {
	xs := [h | some h in hs; not contains(exec.sample_text(h), "RayTaskError(")]
	count(xs) > 0
} else := hs[0]

_hit_texts(hs) := [t |
	some h in hs
	some s in object.get(h.m, "samples", [])
	some t in array.concat(array.concat([s.text], object.get(s, "before", [])), object.get(s, "after", []))
]

findings contains f if {
	some pod in input.pods
	some c in k8s.containers(pod)
	hs := exec.hits(pod, c, _ids)
	count(hs) > 0
	texts := _hit_texts(hs)
	f := {
		"subject": exec.hit_subject(pod, c, _subject_hit(hs)),
		"params": _params(texts),
		"evidence": exec.evidence(pod, c, hs),
		"time": exec.hit_time(c, hs[0]),
	}
}

# The same words in outputs no scanner read (a driver log copied from the
# head, a notebook, a RayJob's status message).
findings contains f if {
	hs := ray.text_hits(_patterns)
	count(hs) > 0
	some subj in {ray.text_subject(h) | some h in hs}
	mine := [h | some h in hs; ray.text_subject(h) == subj]
	texts := [t | some h in mine; some t in array.concat(array.concat([h.text], h.before), h.after)]
	f := {
		"subject": subj,
		"params": _params(texts),
		"evidence": [ray.text_evidence(h) | some i, h in mine; i < 3],
		"time": "",
	}
}
