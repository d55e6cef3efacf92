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

# Not lib/testing's pod: pods by name, node and phase, without containers:
# the rule reads where pods ran.
_pod(name, node, phase) := {"name": name, "namespace": "ml", "nodeName": node, "phase": phase, "conditions": [], "containers": []}

test_fires_node_unknown_and_pod_unknown if {
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

test_fires_pod_gc_after_node_deleted if {
	c := {"type": "DisruptionTarget", "status": "True", "reason": "DeletionByPodGC", "message": "PodGC: node no longer exists", "lastTransitionTime": "2026-03-01T11:30:00Z"}
	pod := object.union(_pod("llm-worker-2", "gpu-node-4", "Failed"), {"conditions": [c]})
	fs := failure.findings with input as {"phase": "Failed", "nodes": [], "pods": [pod], "events": []}
	some f in fs
	f.params.nodes == "gpu-node-4"
	f.subject.name == "llm-worker-2"
}

test_quiet_ready_blip_survived_silent if {
	e := {
		"type": "Warning", "reason": "NodeNotReady", "count": 1, "message": "Node is not ready",
		"object": {"kind": "Pod", "name": "llm-worker-1"}, "firstTime": "2026-03-01T09:00:00Z",
	}
	n := object.union(_node("gpu-node-1", "True"), {"conditions": [{"type": "Ready", "status": "True"}], "taints": []})
	fs := failure.findings with input as {"phase": "Running", "nodes": [n], "pods": [_pod("llm-worker-1", "gpu-node-1", "Running")], "events": [e]}
	count(fs) == 0
}

test_quiet_succeeded_job_silent if {
	fs := failure.findings with input as {"phase": "Succeeded", "nodes": [_node("gpu-node-12", "Unknown")], "pods": [], "events": []}
	count(fs) == 0
}

_ok_node(name, conds) := {"name": name, "ready": "True", "conditions": array.concat([{"type": "Ready", "status": "True"}], conds), "taints": []}

_started(pod) := object.union(pod, {"startTime": "2026-03-01T08:00:00Z"})

test_fires_on_reboot_under_running_pod if {
	e := {
		"type": "Warning", "reason": "Rebooted", "count": 1,
		"message": "Node gpu-node-3 has been rebooted, boot id: 2b1c6f0e-8d57-4b0e-9d1f-55e1c3a2b7d4",
		"object": {"kind": "Node", "name": "gpu-node-3"}, "firstTime": "2026-03-01T09:12:40Z",
	}
	inp := {"phase": "Failed", "nodes": [_ok_node("gpu-node-3", [])], "pods": [_started(_pod("llm-worker-3", "gpu-node-3", "Failed"))], "events": [e]}
	fs := failure.findings with input as inp
	count(fs) == 1
	some f in fs
	f.subject == {"kind": "Node", "name": "gpu-node-3"}
	startswith(f.params.detail, "Rebooted: Node gpu-node-3 has been rebooted")
	f.time == "2026-03-01T09:12:40Z"
}

# A reboot before the pod started is the node's history.
test_quiet_on_reboot_before_pod if {
	e := {
		"type": "Warning", "reason": "Rebooted", "count": 1, "message": "Node gpu-node-3 has been rebooted, boot id: 1",
		"object": {"kind": "Node", "name": "gpu-node-3"}, "firstTime": "2026-03-01T07:00:00Z",
	}
	inp := {"phase": "Failed", "nodes": [_ok_node("gpu-node-3", [])], "pods": [_started(_pod("llm-worker-3", "gpu-node-3", "Failed"))], "events": [e]}
	count(failure.findings) == 0 with input as inp
}

test_fires_on_npd_kernel_deadlock_where_the_job_failed if {
	c := {"type": "KernelDeadlock", "status": "True", "reason": "DockerHung", "message": "kernel: INFO: task containerd:2211 blocked for more than 120 seconds.", "lastTransitionTime": "2026-03-01T09:30:00Z"}
	inp := {"phase": "Failed", "nodes": [_ok_node("gpu-node-5", [c])], "pods": [_pod("llm-worker-5", "gpu-node-5", "Failed")], "events": []}
	fs := failure.findings with input as inp
	some f in fs
	f.severity == "error"
	f.params.detail == "KernelDeadlock=True DockerHung"
}

test_quiet_on_npd_conditions_false if {
	cs := [
		{"type": "KernelDeadlock", "status": "False", "reason": "KernelHasNoDeadlock"},
		{"type": "ReadonlyFilesystem", "status": "False", "reason": "FilesystemIsNotReadOnly"},
		{"type": "KernelReady", "status": "True", "reason": "KernelIsReady"},
	]
	inp := {"phase": "Failed", "nodes": [_ok_node("gpu-node-5", cs)], "pods": [_pod("llm-worker-5", "gpu-node-5", "Failed")], "events": []}
	count(failure.findings) == 0 with input as inp
}

# A read-only file system on a node where the job runs fine is not this
# job's failure.
test_quiet_on_node_problem_of_a_healthy_job if {
	c := {"type": "ReadonlyFilesystem", "status": "True", "reason": "FilesystemIsReadOnly"}
	inp := {"phase": "Running", "nodes": [_ok_node("gpu-node-5", [c])], "pods": [_pod("llm-worker-5", "gpu-node-5", "Running")], "events": []}
	count(failure.findings) == 0 with input as inp
}

_taint_event(pod, msg, at) := {
	"type": "Normal", "reason": "TaintManagerEviction", "count": 1, "message": msg,
	"object": {"kind": "Pod", "name": pod}, "firstTime": at,
}

# Kubernetes before 1.26: the taint manager's event on a pod of an
# unreachable node.
test_fires_taint_manager_marking_on_unreachable_node if {
	e := _taint_event("llm-worker-5", "Marking for deletion Pod ml/llm-worker-5", "2026-03-01T11:25:05Z")
	inp := {"phase": "Running", "nodes": [_node("gpu-node-12", "Unknown")], "pods": [_pod("llm-worker-5", "gpu-node-12", "Running")], "events": [e]}
	fs := failure.findings with input as inp
	some f in fs
	f.subject == {"kind": "Pod", "name": "llm-worker-5"}
	f.time == "2026-03-01T11:25:05Z"
}

# A custom NoExecute taint on a ready node is not a node failure.
test_quiet_taint_manager_marking_on_ready_node if {
	e := _taint_event("llm-worker-5", "Marking for deletion Pod ml/llm-worker-5", "2026-03-01T11:25:05Z")
	inp := {"phase": "Failed", "nodes": [_ok_node("gpu-node-12", [])], "pods": [_pod("llm-worker-5", "gpu-node-12", "Failed")], "events": [e]}
	count(failure.findings) == 0 with input as inp
}
