package traindoc.rules.sched.insufficient_resources_test

import data.traindoc.rules.sched.insufficient_resources

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

test_fires_cpu_and_memory if {
	msg := "0/8 nodes are available: 2 Insufficient cpu, 6 Insufficient memory. preemption: 0/8 nodes are available: 8 No preemption victims found for incoming pod."
	pods := [_pending_pod("bert-worker-0", msg), _pending_pod("bert-worker-1", msg)]
	fs := insufficient_resources.findings with input as {"pods": pods, "events": []}
	count(fs) == 2
	some f in fs
	f.subject.name == "bert-worker-1"
	f.params == {"pods": 2, "resources": "cpu, memory", "detail": "0/8 nodes are available: 2 Insufficient cpu, 6 Insufficient memory."}
}

test_fires_efa_from_volcano_event if {
	e := {
		"type": "Warning", "reason": "FailedScheduling", "count": 40,
		"message": "0/4 nodes are unavailable: 4 Insufficient vpc.amazonaws.com/efa.",
		"object": {"kind": "Pod", "name": "llm-worker-3", "namespace": "ml"},
		"firstTime": "2026-03-01T10:00:00Z", "lastTime": "2026-03-01T11:00:00Z",
	}
	fs := insufficient_resources.findings with input as {"pods": [], "events": [e]}
	some f in fs
	f.params.resources == "vpc.amazonaws.com/efa"
	f.params.pods == 1
}

test_fires_ports_and_hugepages if {
	msg := "0/3 nodes are available: 1 Too many pods, 2 node(s) didn't have free ports for the requested pod ports, 3 Insufficient hugepages-1Gi."
	fs := insufficient_resources.findings with input as {"pods": [_pending_pod("w-0", msg)], "events": []}
	some f in fs
	f.params.resources == "host ports, hugepages-1Gi, pods"
}

test_quiet_gpu_only_silent if {
	msg := "0/8 nodes are available: 8 Insufficient nvidia.com/gpu. preemption: 0/8 nodes are available: 8 No preemption victims found for incoming pod."
	fs := insufficient_resources.findings with input as {"pods": [_pending_pod("w-0", msg)], "events": []}
	count(fs) == 0
}

test_quiet_running_pod_silent if {
	pod := object.union(_pending_pod("w-0", "0/2 nodes are available: 2 Insufficient cpu."), {"phase": "Running"})
	fs := insufficient_resources.findings with input as {"pods": [pod], "events": []}
	count(fs) == 0
}

# Accelerators of every vendor are the insufficient-gpu rule's, even when
# the message names them next to CPU.
test_fires_cpu_only_beside_accelerators if {
	msg := "0/9 nodes are available: 3 Insufficient google.com/tpu, 2 Insufficient aws.amazon.com/neuroncore, 4 Insufficient cpu."
	fs := insufficient_resources.findings with input as {"pods": [_pending_pod("w-0", msg)], "events": []}
	some f in fs
	f.params.resources == "cpu"
}

# kube-scheduler before 1.9 listed predicates with counts in brackets.
test_fires_old_predicate_list if {
	msg := "No nodes are available that match all of the predicates: Insufficient ephemeral-storage (2), PodToleratesNodeTaints (3)."
	fs := insufficient_resources.findings with input as {"pods": [_pending_pod("w-0", msg)], "events": []}
	some f in fs
	f.params.resources == "ephemeral-storage"
}
