package traindoc.rules.sched.node_mismatch_test

import data.traindoc.rules.sched.node_mismatch

_pending_pod(name, msg) := {
	"name": name,
	"namespace": "ml",
	"phase": "Pending",
	"containers": [],
	"conditions": [{
		"type": "PodScheduled",
		"status": "False",
		"reason": "Unschedulable",
		"message": msg,
		"lastTransitionTime": "2026-03-01T10:00:00Z",
	}],
}

test_fires_selector_and_taint if {
	msg := "0/6 nodes are available: 1 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }, 5 node(s) didn't match Pod's node affinity/selector. preemption: 0/6 nodes are available: 6 Preemption is not helpful for scheduling."
	fs := node_mismatch.findings with input as {"pods": [_pending_pod("gpt-worker-0", msg)], "events": []}
	count(fs) == 1
	some f in fs
	f.subject.name == "gpt-worker-0"
	f.params.pods == 1
	f.params.constraints == "node affinity/selector, taints"
	f.params.constraints_zh == "污点、节点亲和性/选择器"
	f.params.detail == "0/6 nodes are available: 1 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }, 5 node(s) didn't match Pod's node affinity/selector."
	f.owner == "user"
}

test_fires_old_wording_event if {
	e := {
		"type": "Warning", "reason": "FailedScheduling", "count": 3,
		"message": "0/3 nodes are available: 3 node(s) had taints that the pod didn't tolerate.",
		"object": {"kind": "Pod", "name": "gpt-master-0", "namespace": "ml"},
		"firstTime": "2026-03-01T10:00:00Z", "lastTime": "2026-03-01T10:05:00Z",
	}
	e2 := object.union(e, {"message": "0/3 nodes are available: 1 node(s) had taint {nvidia.com/gpu: present}, that the pod didn't tolerate, 2 node(s) didn't match node selector."})
	fs := node_mismatch.findings with input as {"pods": [], "events": [e2]}
	some f in fs
	f.params.constraints == "node affinity/selector, taints"
	fs1 := node_mismatch.findings with input as {"pods": [], "events": [e]}
	some f1 in fs1
	f1.params.constraints == "taints"
}

test_fires_cordoned_is_platform if {
	msg := "0/2 nodes are available: 2 node(s) were unschedulable."
	fs := node_mismatch.findings with input as {"pods": [_pending_pod("w-0", msg)], "events": []}
	some f in fs
	f.params.constraints == "cordoned nodes"
	f.owner == "platform"
}

test_fires_volume_zone if {
	msg := "0/4 nodes are available: 4 node(s) had volume node affinity conflict."
	fs := node_mismatch.findings with input as {"pods": [_pending_pod("w-0", msg)], "events": []}
	some f in fs
	f.params.constraints == "volume node affinity"
}

test_quiet_capacity_shortage_silent if {
	msg := "0/3 nodes are available: 1 node(s) had taint {node-role.kubernetes.io/master: }, that the pod didn't tolerate, 2 Insufficient nvidia.com/gpu."
	fs := node_mismatch.findings with input as {"pods": [_pending_pod("w-0", msg)], "events": []}
	count(fs) == 0
}

test_quiet_pod_scheduled_since if {
	e := {
		"type": "Warning", "reason": "FailedScheduling", "count": 4,
		"message": "0/3 nodes are available: 3 node(s) didn't match Pod's node affinity/selector. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.",
		"object": {"kind": "Pod", "name": "w-0"},
		"firstTime": "2026-03-01T10:00:00Z", "lastTime": "2026-03-01T10:02:00Z",
	}
	pod := {"name": "w-0", "phase": "Running", "nodeName": "gpu-9", "conditions": [], "containers": []}
	fs := node_mismatch.findings with input as {"phase": "Running", "pods": [pod], "events": [e]}
	count(fs) == 0
}

# Taints the node lifecycle controller sets for a node's condition are
# the platform's; a taint that asks for a toleration is the job's.
test_fires_node_condition_taint_is_platform if {
	msg := "0/1 nodes are available: 1 node(s) had untolerated taint {node.kubernetes.io/disk-pressure: }. preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling."
	fs := node_mismatch.findings with input as {"pods": [_pending_pod("w-0", msg)], "events": []}
	some f in fs
	f.params.constraints == "node condition taints"
	f.owner == "platform"
	mixed := "0/2 nodes are available: 1 node(s) had untolerated taint {node.kubernetes.io/not-ready: }, 1 node(s) had untolerated taint {nvidia.com/gpu: present}."
	fs2 := node_mismatch.findings with input as {"pods": [_pending_pod("w-0", mixed)], "events": []}
	some f2 in fs2
	f2.params.constraints == "taints"
	f2.owner == "user"
}

# kube-scheduler 1.7 named the volume zone predicate.
test_fires_old_volume_zone_predicate if {
	msg := "pod (w-0) failed to fit in any node\nfit failure summary on nodes : NoVolumeZoneConflict (3)"
	fs := node_mismatch.findings with input as {"pods": [_pending_pod("w-0", msg)], "events": []}
	some f in fs
	f.params.constraints == "volume zone"
	f.owner == "platform"
}

# The old host-port predicate is a capacity shortage, not placement.
test_quiet_old_host_ports_predicate if {
	msg := "No nodes are available that match all of the following predicates:: PodFitsHostPorts (1), PodToleratesNodeTaints (1)."
	fs := node_mismatch.findings with input as {"pods": [_pending_pod("w-0", msg)], "events": []}
	count(fs) == 0
}

# Every constraint has a Chinese name, or the Chinese message would drop it.
test_fires_every_constraint_named_in_chinese if {
	every c in node_mismatch._constraints {
		node_mismatch._zh[c[0]] != ""
	}
	node_mismatch._zh["node condition taints"] != ""
}
