package traindoc.rules.node.failure_test

import data.traindoc.rules.node.failure

_node(name, status) := {
	"name": name, "ready": status,
	"conditions": [{
		"type": "Ready", "status": status, "reason": "NodeStatusUnknown",
		"message": "Kubelet stopped posting node status.",
		"lastTransitionTime": "2026-03-01T11:20:00Z",
	}],
	"taints": [{"key": "node.kubernetes.io/unreachable", "effect": "NoExecute", "timeAdded": "2026-03-01T11:20:05Z"}],
}

_pod(name, node, phase) := {"name": name, "namespace": "ml", "nodeName": node, "phase": phase, "conditions": [], "containers": []}

test_node_unknown_and_pod_unknown if {
	inp := {
		"phase": "Running",
		"nodes": [_node("gpu-node-12", "Unknown"), object.union(_node("gpu-node-13", "True"), {"conditions": [], "taints": []})],
		"pods": [_pod("llm-worker-5", "gpu-node-12", "Unknown"), _pod("llm-worker-6", "gpu-node-13", "Running")],
		"events": [],
	}
	fs := failure.findings with input as inp
	count(fs) == 2
	some f in fs
	f.subject == {"kind": "Node", "name": "gpu-node-12"}
	f.params.nodes == "gpu-node-12"
	f.time == "2026-03-01T11:20:00Z"
}

test_pod_gc_after_node_deleted if {
	c := {"type": "DisruptionTarget", "status": "True", "reason": "DeletionByPodGC", "message": "PodGC: node no longer exists", "lastTransitionTime": "2026-03-01T11:30:00Z"}
	pod := object.union(_pod("llm-worker-2", "gpu-node-4", "Failed"), {"conditions": [c]})
	fs := failure.findings with input as {"phase": "Failed", "nodes": [], "pods": [pod], "events": []}
	some f in fs
	f.params.nodes == "gpu-node-4"
	f.subject.name == "llm-worker-2"
}

test_not_ready_blip_survived_silent if {
	e := {
		"type": "Warning", "reason": "NodeNotReady", "count": 1, "message": "Node is not ready",
		"object": {"kind": "Pod", "name": "llm-worker-1"}, "firstTime": "2026-03-01T09:00:00Z",
	}
	n := object.union(_node("gpu-node-1", "True"), {"conditions": [{"type": "Ready", "status": "True"}], "taints": []})
	fs := failure.findings with input as {"phase": "Running", "nodes": [n], "pods": [_pod("llm-worker-1", "gpu-node-1", "Running")], "events": [e]}
	count(fs) == 0
}

test_succeeded_job_silent if {
	fs := failure.findings with input as {"phase": "Succeeded", "nodes": [_node("gpu-node-12", "Unknown")], "pods": [], "events": []}
	count(fs) == 0
}
