# METADATA
# title: A pod of the job was evicted or rejected by its node
# description: |
#   The kubelet evicted a pod because its node ran low on memory or disk, an
#   eviction went through the Eviction API (a drain), the node was shutting
#   down, or the kubelet rejected the pod at admission because the node did
#   not have the CPU, memory or GPUs it was scheduled for.
# custom:
#   severity: error
#   owner: platform
#   message:
#     en: "Pod {{if eq .cause \"admission\"}}rejected by its node at admission{{else if eq .cause \"drain\"}}evicted through the Eviction API (drain){{else if eq .cause \"shutdown\"}}terminated by a node shutdown{{else}}evicted by the kubelet under node pressure{{end}}{{if .resource}} ({{.resource}}){{end}}."
#     zh: "Pod {{if eq .cause \"admission\"}}在准入时被节点拒绝{{else if eq .cause \"drain\"}}被 Eviction API 驱逐（节点排空）{{else if eq .cause \"shutdown\"}}因节点关机被终止{{else}}因节点资源压力被 kubelet 驱逐{{end}}{{if .resource}}（{{.resource}}）{{end}}。"
#   remediation:
#     en: |
#       - Node pressure (memory, ephemeral-storage): see what filled the node, `kubectl describe node <node>` (Conditions, Allocated resources). Give the pod requests equal to what it uses, so it is not the first chosen for eviction (Guaranteed QoS: requests = limits).
#       - Disk: write checkpoints and caches to a volume (PVC or a sized emptyDir), not to the container's writable layer; set `ephemeral-storage` requests and limits.
#       - Eviction API or node shutdown: the node was drained or restarted for maintenance; resubmit or rely on the job's restart policy, and make the job resume from its last checkpoint.
#       - Admission rejected (OutOfcpu, OutOfnvidia.com/gpu, UnexpectedAdmissionError): the node's allocatable changed under the scheduler (often a GPU marked unhealthy); report the node to the platform team.
#     zh: |
#       - 节点资源压力（内存、ephemeral-storage）：查看是什么占满了节点，`kubectl describe node <node>`（Conditions 与 Allocated resources）。让 Pod 的 requests 等于实际用量，避免它成为最先被驱逐的对象（Guaranteed QoS：requests = limits）。
#       - 磁盘：把检查点和缓存写到卷上（PVC 或设置了大小的 emptyDir），不要写入容器的可写层；设置 `ephemeral-storage` 的 requests 和 limits。
#       - Eviction API 或节点关机：节点因维护被排空或重启；请重新提交，或依靠作业的重启策略，并让作业从最近的检查点恢复。
#       - 准入被拒（OutOfcpu、OutOfnvidia.com/gpu、UnexpectedAdmissionError）：节点的可分配资源在调度之后发生了变化（常见原因是 GPU 被标记为不健康）；请把该节点报告给平台团队。
#   zh:
#     title: 作业的 Pod 被节点驱逐或拒绝
#     description: |
#       kubelet 驱逐了 Pod：节点内存或磁盘不足、通过 Eviction API 进行了驱逐（排空节点）、节点正在关机，或者节点在准入时发现没有调度时所需的 CPU、内存或 GPU 而拒绝了该 Pod。
package traindoc.rules.pod.evicted

import data.traindoc.lib.k8s

# The resource a message names: "low on resource: memory", "Node didn't
# have enough resource: nvidia.com/gpu", "ephemeral local storage usage".
_resource(msg) := m[0][1] if {
	m := regex.find_all_string_submatch_n(`(?:low on resource: |enough resource: |devices unavailable for |cannot allocate unhealthy devices )([A-Za-z0-9./_-]+[A-Za-z0-9])`, msg, 1)
	count(m) > 0
} else := "ephemeral-storage" if {
	regex.match(`(?i)ephemeral|local storage|emptyDir usage|EmptyDir volume`, msg)
} else := _pressure_resource[m[0][1]] if {
	# Admission under pressure: "The node had condition: [DiskPressure]."
	m := regex.find_all_string_submatch_n(`had condition: \[(\w+)\]`, msg, 1)
	count(m) > 0
} else := ""

_pressure_resource := {"MemoryPressure": "memory", "DiskPressure": "ephemeral-storage", "PIDPressure": "pids"}

# Pod status reason Evicted, or a rejection at kubelet admission.
findings contains f if {
	some pod in k8s.list(input.pods)
	r := object.get(pod, "reason", "")
	msg := object.get(pod, "message", "")
	cause := _pod_cause(r, msg)
	f := {
		"subject": {"kind": "Pod", "name": pod.name},
		"params": {"cause": cause, "resource": _resource(msg)},
		"evidence": [k8s.field_evidence(k8s.pod_ref(pod), "status.reason", trim_space(sprintf("%s: %s", [r, msg])))],
		"time": _pod_time(pod),
		"owner": _owner(msg),
	}
}

_pod_cause("Evicted", msg) := "pressure" if not contains(msg, "Pod was rejected")

_pod_cause(r, msg) := "admission" if {
	r != "Evicted"
	_rejected(r, msg)
}

_pod_cause(r, msg) := "shutdown" if {
	r in {"Shutdown", "NodeShutdown", "Terminated"}
	not _rejected(r, msg)
}

_rejected(r, _) if startswith(r, "OutOf")

_rejected(r, _) if r in {"UnexpectedAdmissionError", "NodeAffinity", "NodeLabelMismatch", "PodOSNotSupported"}

_rejected(_, msg) if contains(msg, "Pod was rejected")

_pod_time(pod) := t if {
	ts := sort([c.lastTransitionTime |
		some c in pod.conditions
		c.type in {"DisruptionTarget", "Ready"}
		object.get(c, "lastTransitionTime", "") != ""
	])
	t := ts[0]
} else := object.get(pod, "startTime", object.get(pod, "createdAt", ""))

# DisruptionTarget conditions for evictions, when the pod reason does not
# already say so.
findings contains f if {
	some pod in k8s.list(input.pods)
	not _pod_reason_hit(pod)
	some c in pod.conditions
	c.type == "DisruptionTarget"
	c.status == "True"
	c.reason in {"EvictionByEvictionAPI", "TerminationByKubelet"}
	cause := _condition_cause(c)
	f := {
		"subject": {"kind": "Pod", "name": pod.name},
		"params": {"cause": cause, "resource": _resource(object.get(c, "message", ""))},
		"evidence": [k8s.condition_evidence(k8s.pod_ref(pod), "status.conditions[DisruptionTarget]", c)],
		"time": object.get(c, "lastTransitionTime", ""),
		"owner": _owner(object.get(c, "message", "")),
	}
}

# The kubelet sets TerminationByKubelet both for pressure evictions and for
# a graceful node shutdown; the message tells them apart.
_condition_cause(c) := "drain" if c.reason == "EvictionByEvictionAPI"

_condition_cause(c) := "shutdown" if {
	c.reason == "TerminationByKubelet"
	_shutdown_text(object.get(c, "message", ""))
}

_condition_cause(c) := "pressure" if {
	c.reason == "TerminationByKubelet"
	not _shutdown_text(object.get(c, "message", ""))
}

_shutdown_text(msg) if regex.match(`(?i)node shutdown|node is shutting down`, msg)

_pod_reason_hit(pod) if _pod_cause(object.get(pod, "reason", ""), object.get(pod, "message", ""))

# Evicted events for pods whose status is gone or not captured.
findings contains f if {
	some e in k8s.list(input.events)
	e.object.kind == "Pod"
	cause := _event_kind(e)
	not _has_pod_finding(e.object.name)
	f := {
		"subject": {"kind": "Pod", "name": e.object.name},
		"params": {"cause": cause, "resource": _resource(e.message)},
		"evidence": [k8s.event_evidence(e)],
		"time": k8s.event_time(e),
		"owner": _owner(e.message),
	}
}

# The kubelet's admission refusals are events too: UnexpectedAdmissionError
# when the device plugin cannot hand out the GPUs the scheduler counted,
# OutOf<resource> when the node's allocatable shrank under the pod.
_event_kind(e) := _event_cause(e.message) if e.reason in {"Evicted", "Evicting"}

_event_kind(e) := "admission" if e.reason == "UnexpectedAdmissionError"

_event_kind(e) := "admission" if startswith(e.reason, "OutOf")

_event_cause(msg) := "drain" if {
	regex.match(`(?i)eviction API|drain`, msg)
} else := "shutdown" if {
	_shutdown_text(msg)
} else := "pressure"

_has_pod_finding(name) if {
	some pod in k8s.list(input.pods)
	pod.name == name
	_pod_reason_hit(pod)
}

_has_pod_finding(name) if {
	some pod in k8s.list(input.pods)
	pod.name == name
	some c in pod.conditions
	c.type == "DisruptionTarget"
	c.status == "True"
	c.reason in {"EvictionByEvictionAPI", "TerminationByKubelet"}
}

# A pod that outgrew its own ephemeral-storage or emptyDir limit was evicted
# for its own usage: the job's to fix.
_owner(msg) := "user" if {
	regex.match(`(?i)exceeds the total limit of containers|exceeded its local ephemeral storage limit|emptyDir usage exceeds|Usage of EmptyDir volume "[^"]*" exceeds the limit`, msg)
} else := "platform"
