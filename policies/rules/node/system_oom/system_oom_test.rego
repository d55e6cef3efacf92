package traindoc.rules.node.system_oom_test

import data.traindoc.rules.node.system_oom

_oom(at) := {
	"type": "Warning", "reason": "SystemOOM", "count": 1,
	"message": "System OOM encountered, victim process: python, pid: 2034521",
	"object": {"kind": "Node", "name": "gpu-node-4"}, "firstTime": at,
}

_pod(state, logs) := {
	"name": "rec-worker-1", "namespace": "ml", "phase": "Failed", "nodeName": "gpu-node-4", "startTime": "2026-03-01T08:00:00Z", "conditions": [],
	"containers": [{"name": "pytorch", "restartCount": 0, "state": state, "lastState": {}, "logs": logs}],
}

_exit137 := {"state": "terminated", "exitCode": 137, "reason": "Error", "startedAt": "2026-03-01T08:00:05Z", "finishedAt": "2026-03-01T10:00:02Z"}

test_fires_on_system_oom_during_the_run if {
	fs := system_oom.findings with input as {"phase": "Failed", "pods": [_pod(_exit137, [])], "events": [_oom("2026-03-01T09:59:58Z")]}
	count(fs) == 1
	some f in fs
	f.params == {"node": "gpu-node-4", "victim": "python", "pid": "2034521"}
}

test_quiet_when_the_kubelet_said_oomkilled if {
	s := object.union(_exit137, {"reason": "OOMKilled"})
	count(system_oom.findings) == 0 with input as {"phase": "Failed", "pods": [_pod(s, [])], "events": [_oom("2026-03-01T09:59:58Z")]}
}

test_quiet_on_an_oom_before_the_pod if {
	count(system_oom.findings) == 0 with input as {"phase": "Failed", "pods": [_pod(_exit137, [])], "events": [_oom("2026-03-01T07:00:00Z")]}
}

test_quiet_when_the_log_names_the_kill if {
	logs := [{"file": "logs/rec-worker-1/pytorch.log", "matches": {"launcher.sigkill": {"count": 1}}}]
	count(system_oom.findings) == 0 with input as {"phase": "Failed", "pods": [_pod(_exit137, logs)], "events": [_oom("2026-03-01T09:59:58Z")]}
}
