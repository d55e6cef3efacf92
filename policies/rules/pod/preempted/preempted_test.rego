package traindoc.rules.pod.preempted_test

import data.traindoc.rules.pod.preempted

# Not lib/testing's pod: pods by name with the conditions each case sets,
# without containers.
_pod(name, conds) := {"name": name, "namespace": "ml", "phase": "Failed", "conditions": conds, "containers": []}

test_fires_scheduler_preemption if {
	c := {
		"type": "DisruptionTarget", "status": "True", "reason": "PreemptionByScheduler",
		"message": "default-scheduler: preempting to accommodate a higher priority pod",
		"lastTransitionTime": "2026-03-01T12:00:00Z",
	}
	e := {
		"type": "Normal", "reason": "Preempted", "count": 1,
		"message": "Preempted by pod 6c1f0b7e-2d9a-4f5e-9a51-0c0e8c2f1a11 on node gpu-node-7",
		"object": {"kind": "Pod", "name": "bert-worker-1"}, "firstTime": "2026-03-01T12:00:00Z",
	}
	fs := preempted.findings with input as {"kind": "PyTorchJob", "name": "bert", "pods": [_pod("bert-worker-1", [c])], "events": [e]}
	count(fs) == 1
	some f in fs
	f.params.by == "kube-scheduler"
	f.subject == {"kind": "Pod", "name": "bert-worker-1"}
	count(f.evidence) == 2
}

test_fires_kueue_workload_evicted if {
	c := {
		"type": "Evicted", "status": "True", "reason": "Preempted",
		"message": "Preempted to accommodate a workload (UID: 0d3c, JobUID: 77af) due to prioritization in the ClusterQueue",
		"lastTransitionTime": "2026-03-01T12:00:00Z",
	}
	a := {"kind": "Workload", "name": "pytorchjob-bert-9ac1", "conditions": [c]}
	fs := preempted.findings with input as {"kind": "PyTorchJob", "name": "bert", "pods": [], "events": [], "admission": [a]}
	some f in fs
	f.params.by == "Kueue"
}

test_fires_old_kube_scheduler_reason if {
	c := {"type": "DisruptionTarget", "status": "True", "reason": "PreemptionByKubeScheduler", "message": "Kube-scheduler: preempting"}
	fs := preempted.findings with input as {"kind": "PyTorchJob", "name": "bert", "pods": [_pod("w-0", [c])], "events": []}
	count(fs) == 1
}

test_quiet_eviction_api_silent if {
	c := {"type": "DisruptionTarget", "status": "True", "reason": "EvictionByEvictionAPI", "message": "Eviction API: evicting"}
	a := {"kind": "Workload", "name": "w", "conditions": [{"type": "Evicted", "status": "True", "reason": "PodsReadyTimeout", "message": "Exceeded the PodsReady timeout ml/w"}]}
	fs := preempted.findings with input as {"kind": "PyTorchJob", "name": "bert", "pods": [_pod("w-0", [c])], "events": [], "admission": [a]}
	count(fs) == 0
}

test_fires_disruption_target_message if {
	pod := {"name": "w-1", "namespace": "ml", "phase": "Failed", "containers": [], "conditions": [{
		"type": "DisruptionTarget", "status": "True", "reason": "PreemptionByScheduler",
		"message": "default-scheduler: preempting to accommodate a higher priority pod", "lastTransitionTime": "2026-03-01T10:00:00Z",
	}]}
	fs := preempted.findings with input as {"kind": "PyTorchJob", "name": "j", "pods": [pod], "events": []}
	some f in fs
	f.params.by == "kube-scheduler"
}

test_fires_volcano_evict_condition if {
	pod := {"name": "w-1", "namespace": "ml", "phase": "Running", "containers": [], "conditions": [{
		"type": "Ready", "status": "False", "reason": "Evict",
		"message": "Pod is evicted, because of reclaim", "lastTransitionTime": "2026-03-01T10:00:00Z",
	}]}
	fs := preempted.findings with input as {"kind": "PyTorchJob", "name": "j", "pods": [pod], "events": []}
	some f in fs
	f.params.by == "Volcano"
}

test_quiet_kueue_preempted_false if {
	a := {"kind": "Workload", "name": "w", "conditions": [{
		"type": "Preempted", "status": "False", "reason": "InClusterQueue",
		"message": "Preempted to accommodate a workload (UID: 1c0f) in the ClusterQueue",
	}]}
	fs := preempted.findings with input as {"kind": "PyTorchJob", "name": "j", "pods": [], "events": [], "admission": [a]}
	count(fs) == 0
}

# Kueue's event on a Workload that waits to be admitted again holds; once
# it is admitted again the preemption is history.
test_fires_kueue_workload_event_until_readmitted if {
	e := {
		"type": "Normal", "reason": "EvictedDueToPreempted", "count": 1,
		"message": "Preempted to accommodate a workload (UID: a1, JobUID: b2) due to reclamation within the cohort; preemptor path: /c/cq-high; preemptee path: /c/cq-low",
		"object": {"kind": "Workload", "name": "pytorchjob-llm-1a2b3"},
		"firstTime": "2026-03-01T10:00:00Z",
	}
	waiting := {"kind": "Workload", "name": "pytorchjob-llm-1a2b3", "conditions": [{"type": "QuotaReserved", "status": "False", "reason": "Pending"}]}
	fs := preempted.findings with input as {"pods": [], "events": [e], "admission": [waiting]}
	count(fs) == 1
	admitted := object.union(waiting, {"conditions": [{"type": "Admitted", "status": "True", "reason": "Admitted"}]})
	count(preempted.findings) == 0 with input as {"pods": [], "events": [e], "admission": [admitted]}
}
