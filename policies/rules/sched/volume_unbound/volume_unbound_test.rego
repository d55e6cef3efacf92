package traindoc.rules.sched.volume_unbound_test

import data.traindoc.rules.sched.volume_unbound

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

test_fires_unbound_immediate if {
	msg := "0/4 nodes are available: pod has unbound immediate PersistentVolumeClaims. preemption: 0/4 nodes are available: 4 Preemption is not helpful for scheduling."
	pvc_event := {
		"type": "Warning", "reason": "ProvisioningFailed", "count": 9,
		"message": `storageclass.storage.k8s.io "fast-ssd" not found`,
		"object": {"kind": "PersistentVolumeClaim", "name": "dataset"},
		"firstTime": "2026-03-01T09:59:58Z",
	}
	fs := volume_unbound.findings with input as {"now": "2026-03-01T11:00:00Z", "pods": [_pending_pod("bert-master-0", msg)], "events": [pvc_event]}
	count(fs) == 2
	some f in fs
	f.subject.name == "bert-master-0"
	f.params.claims == "dataset"
	f.params.pods == 1
	f.owner == "user"
}

test_fires_claim_not_found if {
	msg := `0/3 nodes are available: persistentvolumeclaim "ckpt-pvc" not found.`
	fs := volume_unbound.findings with input as {"now": "2026-03-01T11:00:00Z", "pods": [_pending_pod("w-0", msg)], "events": []}
	some f in fs
	f.params.claims == "ckpt-pvc"
	f.params.detail == msg
}

test_quiet_first_consumer_alone_silent if {
	e := {
		"type": "Normal", "reason": "WaitForFirstConsumer", "count": 40,
		"message": "waiting for first consumer to be created before binding",
		"object": {"kind": "PersistentVolumeClaim", "name": "scratch"},
		"firstTime": "2026-03-01T09:00:00Z", "lastTime": "2026-03-01T11:00:00Z",
	}
	msg := "0/8 nodes are available: 8 Insufficient nvidia.com/gpu."
	fs := volume_unbound.findings with input as {"now": "2026-03-01T11:00:00Z", "pods": [_pending_pod("w-0", msg)], "events": [e]}
	count(fs) == 0
}

# A claim whose volume was deleted, in the wordings before and after 1.23.
test_fires_claim_bound_to_missing_volume if {
	old := "0/2 nodes are available: 2 pvc(s) bound to non-existent pv(s)"
	new := "0/2 nodes are available: 2 node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)"
	every msg in [old, new] {
		count(volume_unbound.findings) > 0 with input as {"now": "2026-03-01T11:00:00Z", "pods": [_pending_pod("w-0", msg)], "events": []}
	}
}

# Storage capacity tracking: no node can provision the volume.
test_fires_no_free_storage if {
	msg := "0/1 nodes are available: 1 node(s) did not have enough free storage."
	fs := volume_unbound.findings with input as {"now": "2026-03-01T11:00:00Z", "pods": [_pending_pod("w-0", msg)], "events": []}
	some f in fs
	f.params.claims == "(unnamed)"
	f.owner == "platform"
}
