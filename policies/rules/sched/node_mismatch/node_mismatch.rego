# METADATA
# title: Node selectors, affinity or taints exclude every node
# description: |
#   The scheduler rejected every node for reasons of placement, not capacity:
#   the pod's nodeSelector or node affinity matches no node, the nodes carry
#   taints the pod does not tolerate, pod (anti-)affinity or topology spread
#   rules cannot be met, the nodes are cordoned, or the pod's volumes are
#   bound to another zone.
# custom:
#   severity: error
#   owner: user
#   explains: [sched.gang-pending]
#   message:
#     en: "{{.pods}} pod(s) fit no node because of {{.constraints}}. Scheduler: {{.detail}}"
#     zh: "{{.pods}} 个 Pod 没有可匹配的节点，原因：{{.constraints_zh}}。调度器：{{.detail}}"
#   remediation:
#     en: |
#       - List the labels the pod asks for and the nodes that carry them: `kubectl get nodes -L <label>` and `kubectl get pod <pod> -o jsonpath='{.spec.nodeSelector}{.spec.affinity}'`.
#       - Correct a misspelt label or instance type in `nodeSelector` / `nodeAffinity`, or label the intended GPU nodes.
#       - For taints, compare `kubectl describe node <node> | grep Taints` with the pod's tolerations and add the missing toleration (e.g. `nvidia.com/gpu:NoSchedule`).
#       - "were unschedulable": the nodes are cordoned; ask the platform team when they return (`kubectl uncordon`).
#       - "volume node affinity conflict": the PersistentVolume lives in another zone than the free nodes; use a StorageClass with `volumeBindingMode: WaitForFirstConsumer` or pin the job to that zone.
#     zh: |
#       - 列出 Pod 要求的标签以及带有这些标签的节点：`kubectl get nodes -L <label>` 和 `kubectl get pod <pod> -o jsonpath='{.spec.nodeSelector}{.spec.affinity}'`。
#       - 修正 `nodeSelector` / `nodeAffinity` 中拼错的标签或机型，或者给目标 GPU 节点打上标签。
#       - 对于污点，对比 `kubectl describe node <node> | grep Taints` 与 Pod 的容忍，补上缺少的 toleration（例如 `nvidia.com/gpu:NoSchedule`）。
#       - "were unschedulable"：节点已被封锁（cordon），请向平台团队确认何时恢复（`kubectl uncordon`）。
#       - "volume node affinity conflict"：PersistentVolume 所在的可用区与空闲节点不同；请使用 `volumeBindingMode: WaitForFirstConsumer` 的 StorageClass，或把作业固定到该可用区。
#   zh:
#     title: 节点选择器、亲和性或污点排除了所有节点
#     description: |
#       调度器因为放置约束而不是容量拒绝了所有节点：Pod 的 nodeSelector 或节点亲和性匹配不到任何节点、节点带有 Pod 不容忍的污点、Pod 亲和/反亲和或拓扑分布约束无法满足、节点已被封锁，或者 Pod 的卷绑定在其他可用区。
package traindoc.rules.sched.node_mismatch

import data.traindoc.lib.sched

# Placement reasons in the wording of several scheduler versions: "had
# taint {k: v}, that the pod didn't tolerate" up to 1.24, "had untolerated
# taint {k: v}" since 1.25, "didn't match Pod's node affinity/selector"
# since 1.21 ("didn't match node selector" before).
_constraints := [
	["node affinity/selector", `didn't match Pod's node affinity|didn't match node selector|node\(s\) didn't match node affinity|MatchNodeSelector|didn't satisfy plugin\(s\) \[NodeAffinity\]`],
	["taints", `had untolerated taint|had taints?( \{[^}]*\})?,? that the pod didn't tolerate|PodToleratesNodeTaints`],
	["pod affinity/anti-affinity", `didn't match pod (anti-)?affinity|didn't satisfy existing pods anti-affinity|didn't match pod affinity/anti-affinity`],
	["topology spread constraints", `didn't match pod topology spread constraints`],
	["cordoned nodes", `node\(s\) were unschedulable|were unschedulable`],
	["volume node affinity", `had volume node affinity conflict`],
	["volume zone", `had no available volume zone|NoVolumeZoneConflict`],
]

# The constraints' names in Chinese, for the Chinese message.
_zh := {
	"node affinity/selector": "节点亲和性/选择器",
	"taints": "污点",
	"node condition taints": "节点状态污点",
	"pod affinity/anti-affinity": "Pod 亲和性/反亲和性",
	"topology spread constraints": "拓扑分布约束",
	"cordoned nodes": "已停止调度（cordon）的节点",
	"volume node affinity": "卷的节点亲和性",
	"volume zone": "卷所在的可用区",
}

# Capacity reasons: when present, capacity is what blocks the pod (the
# other rules say so) and placement only narrows the candidates.
_capacity := `Insufficient |didn't have free ports|PodFitsHostPorts|Too many pods|unbound immediate PersistentVolumeClaims|didn't find available persistent volumes|exceed max volume count`

_found(msg) := {_name(c[0], msg) |
	some c in _constraints
	regex.match(c[1], sched.short(msg))
}

# Taints the node lifecycle controller sets for a node's condition
# (node.kubernetes.io/not-ready, unreachable, disk-pressure,
# memory-pressure, unschedulable, ...) say the nodes are unwell, not that
# the job lacks a toleration: the platform's to fix.
_name("taints", msg) := "node condition taints" if {
	keys := [m[1] | some m in regex.find_all_string_submatch_n(`taint \{([^:}]+):`, msg, -1)]
	count(keys) > 0
	every k in keys {
		startswith(k, "node.kubernetes.io/")
	}
} else := "taints"

_name(c, _) := c if c != "taints"

_placement(msg) if {
	count(_found(msg)) > 0
	not regex.match(_capacity, msg)
}

_hits contains m if {
	some m in sched.messages
	_placement(m.text)
}

_params := {
	"pods": count({m.pod | some m in _hits}),
	"constraints": concat(", ", sort({c | some m in _hits; some c in _found(m.text)})),
	"constraints_zh": concat("、", sort({_zh[c] | some m in _hits; some c in _found(m.text)})),
	"detail": sched.short(sort([[m.time, m.text] | some m in _hits])[0][1]),
}

findings contains f if {
	some m in _hits
	f := {
		"subject": {"kind": "Pod", "name": m.pod},
		"params": _params,
		"evidence": [m.evidence],
		"time": m.time,
		"owner": _owner,
	}
}

# Cordoned or unwell nodes and volumes in the wrong zone are the
# platform's to fix; selectors, affinity and tolerations are the job's.
_owner := "platform" if {
	some m in _hits
	every c in _found(m.text) {
		c in {"cordoned nodes", "volume node affinity", "volume zone", "node condition taints"}
	}
} else := "user"
