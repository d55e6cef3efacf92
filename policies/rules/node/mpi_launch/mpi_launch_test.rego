package traindoc.rules.node.mpi_launch_test

import data.traindoc.lib.testing
import data.traindoc.rules.node.mpi_launch

_launcher(matches) := {
	"name": "nccl-tests-launcher", "namespace": "default", "phase": "Failed", "nodeName": "cpu-3", "conditions": [],
	"containers": [{
		"name": "mpi-launcher", "restartCount": 0,
		"state": {"state": "terminated", "exitCode": 1, "finishedAt": "2026-03-01T10:00:05Z"}, "lastState": {},
		"logs": [{"file": "logs/nccl-tests-launcher/mpi-launcher.log", "previous": false, "lines": 30, "matches": matches, "tail": []}],
	}],
}

_m(text, after) := {"count": 1, "firstLine": 4, "lastLine": 4, "samples": [{"line": 4, "text": text, "after": after}]}

test_fires_on_ssh_dns_failure if {
	ms := {
		"exec.mpi-launch.ssh": _m("ssh: Could not resolve hostname nccl-tests-worker-0.nccl-tests.default.svc: Name or service not known", []),
		"exec.mpi-launch.daemons": _m("ORTE was unable to reliably start one or more daemons.", ["This usually is caused by:"]),
	}
	fs := mpi_launch.findings with input as {"phase": "Failed", "pods": [_launcher(ms)]}
	count(fs) == 1
	some f in fs
	f.params == {"what": {"en": "ssh could not resolve the worker's name", "zh": "ssh 无法解析 worker 的主机名"}, "peer": "nccl-tests-worker-0"}
	count(f.evidence) == 2
}

test_fires_on_lost_daemon_naming_the_worker if {
	ms := {"exec.mpi-launch.daemons": _m("ORTE has lost communication with a remote daemon.", [
		"",
		"  HNP daemon   : [[43015,0],0] on node tf-bert-launcher-gdqv7",
		"  Remote daemon: [[43015,0],20] on node tf-bert-worker-19",
	])}
	fs := mpi_launch.findings with input as {"phase": "Failed", "pods": [_launcher(ms)]}
	some f in fs
	f.params.peer == "tf-bert-worker-19"
	f.params.what.en == "the launcher lost communication with a daemon on a worker"
}

test_quiet_on_known_hosts_warning if {
	line := "Warning: Permanently added 'nccl-tests-worker-0.nccl-tests.default.svc,10.244.1.7' (ECDSA) to the list of known hosts."
	not regex.match(testing.pattern(mpi_launch.signatures, "exec.mpi-launch.ssh"), line)
	not regex.match(testing.pattern(mpi_launch.signatures, "exec.mpi-launch.daemons"), line)
}

test_quiet_when_succeeded if {
	ms := {"exec.mpi-launch.ssh": _m("ssh: connect to host w-1 port 22: Connection refused", [])}
	count(mpi_launch.findings) == 0 with input as {"phase": "Succeeded", "pods": [_launcher(ms)]}
}

# The worker the launcher lost was OOM-killed: that is the finding.
test_quiet_on_lost_daemon_of_a_dead_worker if {
	ms := {"exec.mpi-launch.daemons": _m("ORTE has lost communication with a remote daemon.", [
		"",
		"  HNP daemon   : [[18212,0],0] on node hubert-mpi-launcher",
		"  Remote daemon: [[18212,0],3] on node hubert-mpi-worker-2",
	])}
	w := {
		"name": "hubert-mpi-worker-2", "replicaType": "Worker", "phase": "Failed", "conditions": [],
		"containers": [{"name": "mpi-worker", "restartCount": 0, "state": {"state": "terminated", "exitCode": 137, "reason": "OOMKilled"}, "lastState": {}}],
	}
	count(mpi_launch.findings) == 0 with input as {"phase": "Failed", "pods": [_launcher(ms), w]}
}
