# METADATA
# title: Ray killed a worker for lack of node memory
# description: |
#   Ray's memory monitor killed a task or actor because the node's host
#   memory passed its threshold (ray.exceptions.OutOfMemoryError, "Task was
#   killed due to the node running low on memory", "N Workers (tasks /
#   actors) killed due to memory pressure (OOM)"), or the kernel OOM killer
#   killed a Ray worker process on one of the job's nodes (a SystemOOM or
#   OOMKilling event naming a ray:: process). In KubeRay a node is a pod, so
#   the pod whose IP the message names is the one that ran out of memory.
# custom:
#   category: exec.oom-killed
#   severity: error
#   owner: user
#   message:
#     en: "{{.how}} on {{.where}}{{if .usage}} ({{.usage}}){{end}}."
#     zh: "{{.how_zh}}，位置：{{.where_zh}}{{if .usage}}（{{.usage}}）{{end}}。"
#   remediation:
#     en: |
#       - Give the worker group more memory (the pod's memory limit is the Ray node's memory), or run fewer tasks and actors per node: request `memory=` or more CPUs per task so Ray packs fewer of them.
#       - For Ray Data, lower the batch size and `concurrency` of map operators; for Ray Train, lower data loader workers and prefetching per worker.
#       - See which process grew: the message lists the top memory users; `ray logs raylet.out -ip <node IP>` on the head shows every kill.
#       - Only as a last resort raise `RAY_memory_usage_threshold` (default 0.95): the kernel OOM killer then kills the whole pod instead.
#     zh: |
#       - 为 worker 组增加内存（Pod 的内存上限就是 Ray 节点的内存），或减少每个节点上的任务和 actor：为任务声明 `memory=` 或更多 CPU，让 Ray 在一个节点上放置更少的任务。
#       - 使用 Ray Data 时减小 map 算子的批大小和 `concurrency`；使用 Ray Train 时减少每个 worker 的数据加载进程和预取。
#       - 查看是哪个进程在增长：消息中列出了内存占用最多的进程；在 head 上执行 `ray logs raylet.out -ip <节点 IP>` 可以看到每一次杀死。
#       - 最后才考虑提高 `RAY_memory_usage_threshold`（默认 0.95）：否则内核 OOM killer 会直接杀死整个 Pod。
#   zh:
#     title: Ray 因节点内存不足杀死了 worker
#     description: |
#       Ray 的内存监控因节点主机内存超过阈值而杀死了任务或 actor（ray.exceptions.OutOfMemoryError、"Task was killed due to the node running low on memory"、"N Workers (tasks / actors) killed due to memory pressure (OOM)"），或者内核 OOM killer 在作业所在节点上杀死了 Ray worker 进程（SystemOOM 或 OOMKilling 事件中出现 ray:: 进程）。在 KubeRay 中一个节点就是一个 Pod，消息中 IP 对应的 Pod 就是内存耗尽的那个。
package traindoc.rules.exec.ray_memory_monitor

import data.traindoc.lib.exec
import data.traindoc.lib.k8s
import data.traindoc.lib.ray

# The memory monitor's kill, across versions: the exception (Ray ≥ 2.2),
# its "Memory on the node ... exceeds the memory usage threshold" detail,
# the per-lease wording of Ray ≥ 2.4x, the retry notice, the exit type the
# GCS records, the raylet's kill notice of Ray 2.1 ("System memory low at
# node with IP ... killing latest task") and Ray 0.6-1.x's
# RayOutOfMemoryError. Tune's "***LOW MEMORY***" status is a warning only.
signatures contains {
	"id": "exec.ray-oom.kill",
	"pattern": `Task was killed due to the node running low on memory|\d+ worker\(s\) (?:were|was) killed due to the node running low on memory|which exceeds the memory usage threshold of|\bray\.exceptions\.OutOfMemoryError\b|\bRayOutOfMemoryError\b|exit_type = NODE_OUT_OF_MEMORY|Worker exit type: NODE_OUT_OF_MEMORY|failed due to oom\. There are (?:infinite|\d+) oom retries remaining|System memory low at node with IP [\d.]+\. .* killing latest task`,
}

# The raylet's periodic summary; "0 Workers ... killed" is not a kill.
signatures contains {
	"id": "exec.ray-oom.summary",
	"pattern": `\b[1-9]\d* Workers \(tasks / actors\) killed due to memory pressure \(OOM\)`,
	"hint": "killed due to memory pressure (OOM)",
}

_ids := {"exec.ray-oom.kill", "exec.ray-oom.summary"}

_patterns := {s.id: s.pattern | some s in signatures}

_how := "Ray's memory monitor killed a worker for lack of node memory"

_how_zh := "Ray 内存监控因节点内存不足杀死了 worker"

# oom_killed reads the same Ray wordings in a driver's log (signature
# exec.oom-killed.ray) without placing them on the worker's pod; where it
# did, this rule stays quiet so that one kill is one finding.
_covered(pod, c) if {
	some lf in exec.scanned(c)
	m := lf.matches["exec.oom-killed.ray"]
	exec.relevant(pod, c, lf, m)
}

_usage(t) := m[0][1] if {
	m := regex.find_all_string_submatch_n(`was (\d[\d.]*GB / \d[\d.]*GB \([\d.]+\))`, t, 1)
	count(m) > 0
} else := ""

_usage_of(texts) := us[0] if {
	us := [u | some t in texts; u := _usage(t); u != ""]
	count(us) > 0
} else := ""

_where(subject, ip) := [sprintf("pod %s (node IP %s)", [subject.name, ip]), sprintf("Pod %s（节点 IP %s）", [subject.name, ip])] if {
	subject.kind == "Pod"
	ip != ""
} else := [sprintf("pod %s", [subject.name]), sprintf("Pod %s", [subject.name])] if {
	subject.kind == "Pod"
} else := [sprintf("node IP %s", [ip]), sprintf("节点 IP %s", [ip])] if {
	ip != ""
} else := ["a Ray node", "一个 Ray 节点"]

_params(subject, texts) := {"how": _how, "how_zh": _how_zh, "where": w[0], "where_zh": w[1], "usage": _usage_of(texts)} if {
	w := _where(subject, _first_ip(texts))
}

_sample_texts(hs) := [t |
	some h in hs
	some s in object.get(h.m, "samples", [])
	some t in array.concat([s.text], object.get(s, "after", []))
]

_first_ip(texts) := ips[0] if {
	ips := [ip | some t in texts; ip := ray.line_ip(t)]
	count(ips) > 0
} else := ""

findings contains f if {
	some pod in input.pods
	some c in k8s.containers(pod)
	not _covered(pod, c)
	hs := exec.hits(pod, c, _ids)
	count(hs) > 0
	subject := exec.hit_subject(pod, c, hs[0])
	texts := _sample_texts(hs)
	f := {
		"subject": subject,
		"params": _params(subject, texts),
		"evidence": exec.evidence(pod, c, hs),
		"time": exec.hit_time(c, hs[0]),
	}
}

findings contains f if {
	hs := ray.text_hits(_patterns)
	count(hs) > 0
	some subj in {ray.text_subject(h) | some h in hs}
	mine := [h | some h in hs; ray.text_subject(h) == subj]
	texts := [t | some h in mine; some t in array.concat([h.text], h.after)]
	f := {
		"subject": subj,
		"params": _params(subj, texts),
		"evidence": [ray.text_evidence(h) | some i, h in mine; i < 3],
		"time": "",
	}
}

# The kernel killed a Ray worker process on a node the job's pods ran on:
# the kubelet's SystemOOM event or node-problem-detector's OOMKilling event
# names the victim. This is the evidence that turns Ray's guess ("may have
# exceeded K8s pod memory limits") into a fact.
_oom_events contains e if {
	ray.is_ray
	input.phase != "Succeeded"
	some e in input.events
	e.object.kind == "Node"
	e.reason in {"SystemOOM", "OOMKilling"}
	regex.match(`ray::|raylet|gcs_server|victim process: python`, e.message)
	some pod in input.pods
	pod.nodeName == e.object.name
	not _pod_oomkilled_on(e.object.name)
}

# A pod on that node whose container the kubelet marked OOMKilled is
# oom_killed's finding already.
_pod_oomkilled_on(node) if {
	some pod in input.pods
	pod.nodeName == node
	some c in k8s.containers(pod)
	"OOMKilled" in {object.get(c.state, "reason", ""), object.get(c.lastState, "reason", "")}
}

findings contains f if {
	some e in _oom_events
	pods := sort([p.name | some p in input.pods; p.nodeName == e.object.name])
	f := {
		"subject": {"kind": "Node", "name": e.object.name},
		"params": {
			"how": "the kernel OOM killer killed a Ray worker process",
			"how_zh": "内核 OOM killer 杀死了 Ray worker 进程",
			"where": sprintf("node %s (pods %s)", [e.object.name, concat(", ", pods)]),
			"where_zh": sprintf("节点 %s（Pod %s）", [e.object.name, concat(", ", pods)]),
			"usage": "",
		},
		"evidence": [k8s.event_evidence(e)],
		"time": k8s.event_time(e),
	}
}
