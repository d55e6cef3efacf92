package traindoc.rules.pod.evicted_test

import data.traindoc.rules.pod.evicted

# Not lib/testing's pod: pods by name with the reason, message and
# conditions of an eviction, without containers.
_pod(name, reason, msg, conds) := {
	"name": name, "namespace": "ml", "phase": "Failed", "reason": reason, "message": msg,
	"conditions": conds, "containers": [], "startTime": "2026-03-01T08:00:00Z",
}

test_fires_memory_pressure if {
	msg := "The node was low on resource: memory. Threshold quantity: 100Mi, available: 81240Ki. Container pytorch was using 61203180Ki, request is 32Gi, has larger consumption of memory."
	fs := evicted.findings with input as {"pods": [_pod("gpt-worker-2", "Evicted", msg, [])], "events": []}
	count(fs) == 1
	some f in fs
	f.params == {"cause": "pressure", "resource": "memory"}
	f.subject == {"kind": "Pod", "name": "gpt-worker-2"}
	f.owner == "platform"
}

test_fires_own_ephemeral_limit_is_user if {
	msg := "Pod ephemeral local storage usage exceeds the total limit of containers 20Gi. "
	fs := evicted.findings with input as {"pods": [_pod("w-0", "Evicted", msg, [])], "events": []}
	some f in fs
	f.params.resource == "ephemeral-storage"
	f.owner == "user"
}

test_fires_gpu_admission_rejected if {
	msg := "Pod was rejected: Allocate failed due to requested number of devices unavailable for nvidia.com/gpu. Requested: 8, Available: 7, which is unexpected"
	fs := evicted.findings with input as {"pods": [_pod("w-0", "UnexpectedAdmissionError", msg, [])], "events": []}
	some f in fs
	f.params == {"cause": "admission", "resource": "nvidia.com/gpu"}
}

test_fires_drain_condition if {
	c := {"type": "DisruptionTarget", "status": "True", "reason": "EvictionByEvictionAPI", "message": "Eviction API: evicting", "lastTransitionTime": "2026-03-01T09:00:00Z"}
	pod := object.union(_pod("w-0", "", "", [c]), {"phase": "Running"})
	fs := evicted.findings with input as {"pods": [pod], "events": []}
	some f in fs
	f.params.cause == "drain"
	f.time == "2026-03-01T09:00:00Z"
}

test_quiet_preemption_and_plain_failure_silent if {
	c := {"type": "DisruptionTarget", "status": "True", "reason": "PreemptionByScheduler", "message": "default-scheduler: preempting to accommodate a higher priority pod"}
	fs := evicted.findings with input as {"pods": [_pod("w-0", "", "", [c]), _pod("w-1", "Error", "", [])], "events": []}
	count(fs) == 0
}

# Kubernetes 1.26+ marks a graceful node shutdown with the same reason as a
# pressure eviction (kubernetes/kubernetes#104798 for the message).
test_fires_shutdown_condition_is_shutdown if {
	c := {"type": "DisruptionTarget", "status": "True", "reason": "TerminationByKubelet", "message": "Pod was terminated in response to imminent node shutdown.", "lastTransitionTime": "2026-03-01T09:00:00Z"}
	fs := evicted.findings with input as {"pods": [_pod("w-0", "", "", [c])], "events": []}
	count(fs) == 1
	some f in fs
	f.params.cause == "shutdown"
	f.time == "2026-03-01T09:00:00Z"
}

test_fires_pressure_condition_is_pressure if {
	c := {"type": "DisruptionTarget", "status": "True", "reason": "TerminationByKubelet", "message": "The node was low on resource: ephemeral-storage. Threshold quantity: 10Gi, available: 9Gi."}
	fs := evicted.findings with input as {"pods": [_pod("w-0", "", "", [c])], "events": []}
	some f in fs
	f.params == {"cause": "pressure", "resource": "ephemeral-storage"}
}

# Admission under a pressure condition names no resource but the condition
# does (paritytech/Nomidot#306).
test_fires_disk_pressure_condition_names_disk if {
	fs := evicted.findings with input as {"pods": [_pod("w-0", "Evicted", "The node had condition: [DiskPressure]. ", [])], "events": []}
	some f in fs
	f.params.resource == "ephemeral-storage"
	f.owner == "platform"
}

# An emptyDir the pod filled past its own sizeLimit is the job's.
test_fires_emptydir_limit_is_user if {
	e := {
		"type": "Warning", "reason": "Evicted", "count": 1,
		"message": `Usage of EmptyDir volume "dshm" exceeds the limit "64Gi". `,
		"object": {"kind": "Pod", "name": "w-0"}, "firstTime": "2026-03-01T10:00:00Z",
	}
	fs := evicted.findings with input as {"pods": [], "events": [e]}
	some f in fs
	f.owner == "user"
	f.params.resource == "ephemeral-storage"
}

# The device plugin lost a GPU the scheduler counted; only the event is
# left (kubernetes/kubernetes#130145 for the wording).
test_fires_unexpected_admission_event if {
	e := {
		"type": "Warning", "reason": "UnexpectedAdmissionError", "count": 1,
		"message": "Allocate failed due to requested number of devices unavailable for nvidia.com/gpu. Requested: 8, Available: 7, which is unexpected",
		"object": {"kind": "Pod", "name": "w-3"}, "firstTime": "2026-03-01T10:00:00Z",
	}
	fs := evicted.findings with input as {"pods": [], "events": [e]}
	some f in fs
	f.params == {"cause": "admission", "resource": "nvidia.com/gpu"}
}

test_quiet_other_kubelet_warning if {
	e := {
		"type": "Warning", "reason": "FailedPreStopHook", "count": 1, "message": "PreStopHook failed",
		"object": {"kind": "Pod", "name": "w-3"}, "firstTime": "2026-03-01T10:00:00Z",
	}
	count(evicted.findings) == 0 with input as {"pods": [], "events": [e]}
}
