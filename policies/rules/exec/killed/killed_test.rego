package traindoc.rules.exec.killed_test

import data.traindoc.rules.exec.killed

# Not lib/testing's pod: pod w-1 with container pytorch, in the state each
# case sets, which the assertions name.
_pod(state, matches) := {
	"name": "w-1", "namespace": "ml", "phase": "Failed", "conditions": [],
	"containers": [{
		"name": "pytorch", "restartCount": 0, "state": state, "lastState": {},
		"logs": [{"file": "logs/w-1/pytorch.log", "previous": false, "lines": 10, "matches": matches, "tail": []}],
	}],
}

test_fires_on_143 if {
	pod := _pod({"state": "terminated", "reason": "Error", "exitCode": 143, "finishedAt": "2026-03-01T10:00:00Z"}, {})
	fs := killed.findings with input as {"phase": "Failed", "pods": [pod], "events": []}
	count(fs) == 1
	some f in fs
	f.params.how == {"en": "exit code 143 (SIGTERM)", "zh": "退出码 143（SIGTERM）"}
	f.subject.container == "pytorch"
}

test_fires_on_liveness if {
	pod := object.union(_pod({"state": "running"}, {}), {"phase": "Running"})
	ev := {
		"type": "Normal", "reason": "Killing", "count": 3,
		"message": "Container pytorch failed liveness probe, will be restarted",
		"object": {"kind": "Pod", "name": "w-1", "namespace": "ml"},
		"firstTime": "2026-03-01T09:00:00Z", "lastTime": "2026-03-01T10:00:00Z",
	}
	fs := killed.findings with input as {"phase": "Running", "pods": [pod], "events": [ev]}
	some f in fs
	f.severity == "error"
	f.time == "2026-03-01T09:00:00Z"
	f.retryable == false
}

test_quiet_on_oomkilled_137 if {
	pod := _pod({"state": "terminated", "reason": "OOMKilled", "exitCode": 137}, {})
	fs := killed.findings with input as {"phase": "Failed", "pods": [pod], "events": []}
	count(fs) == 0
}

# torchrun tearing down its own ranks after a peer failed is not a kill from outside.
test_quiet_on_torchrun_closing_signal if {
	pod := _pod({"state": "terminated", "reason": "Error", "exitCode": 1}, {})
	fs := killed.findings with input as {"phase": "Failed", "pods": [pod], "events": []}
	count(fs) == 0
	s := [x | some x in killed.signatures][0]
	not regex.match(s.pattern, "[2026-03-10 15:06:49,000] torch.distributed.elastic.multiprocessing.api: [WARNING] Sending process 412 closing signal SIGTERM")
	regex.match(s.pattern, "torch.distributed.elastic.multiprocessing.api.SignalException: Process 1 got signal: 15")
	regex.match(s.pattern, "[2024-01-01 10:00:00,000] torch.distributed.elastic.agent.server.api: [INFO] Received Signals.SIGTERM death signal, shutting down workers")
}

# A SIGKILL the node's OOM killer sent is exec.oom-killed, not a kill from
# outside.
test_quiet_on_137_with_node_oom_event if {
	pod := object.union(_pod({"state": "terminated", "reason": "Error", "exitCode": 137, "finishedAt": "2026-03-01T10:00:00Z"}, {}), {"nodeName": "gpu-node-3"})
	ev := {
		"type": "Warning", "reason": "OOMKilling", "count": 1,
		"message": "Memory cgroup out of memory: Killed process 31337 (python) total-vm:9kB, anon-rss:8kB, file-rss:0kB, shmem-rss:0kB",
		"object": {"kind": "Node", "name": "gpu-node-3"},
		"firstTime": "2026-03-01T09:59:59Z", "lastTime": "2026-03-01T09:59:59Z",
	}
	count(killed.findings) == 0 with input as {"phase": "Failed", "pods": [pod], "events": [ev]}
}

# Without any OOM evidence, exit 137 is a kill from outside.
test_fires_on_137_without_oom_evidence if {
	pod := object.union(_pod({"state": "terminated", "reason": "Error", "exitCode": 137, "finishedAt": "2026-03-01T10:00:00Z"}, {}), {"nodeName": "gpu-node-3"})
	fs := killed.findings with input as {"phase": "Failed", "pods": [pod], "events": []}
	some f in fs
	f.params.how.en == "exit code 137 (SIGKILL) without OOMKilled"
}

# MPICH Hydra's summary when a rank died of SIGTERM; not its SIGSEGV one.
test_fires_on_hydra_sigterm_string if {
	s := [x | some x in killed.signatures][0]
	regex.match(s.pattern, "YOUR APPLICATION TERMINATED WITH THE EXIT STRING: Terminated (signal 15)")
	not regex.match(s.pattern, "YOUR APPLICATION TERMINATED WITH THE EXIT STRING: Segmentation fault (signal 11)")
	not regex.match(s.pattern, "torch.distributed.elastic.multiprocessing.api: [WARNING] Unable to shutdown process 719448 via Signals.SIGTERM, forcefully exiting via Signals.SIGKILL")
}
