package traindoc.rules.node.mpi_collective_test

import data.traindoc.rules.node.mpi_collective

# Not lib/testing's pod: the MPI launcher's pod, whose log carries its
# ranks' lines.
_pod(matches) := {
	"name": "hvd-launcher", "namespace": "ml", "phase": "Failed", "conditions": [],
	"containers": [{
		"name": "mpi-launcher", "restartCount": 0,
		"state": {"state": "terminated", "exitCode": 1, "finishedAt": "2026-03-01T10:00:05Z"}, "lastState": {},
		"logs": [{"file": "logs/hvd-launcher/mpi-launcher.log", "previous": false, "lines": 120, "matches": matches, "tail": []}],
	}],
}

_m(text) := {"count": 1, "firstLine": 90, "lastLine": 90, "samples": [{"line": 90, "text": text}]}

test_fires_on_horovod_internal_error if {
	line := "[1,5]<stderr>:horovod.common.exceptions.HorovodInternalError: ncclAllReduce failed: unhandled cuda error"
	fs := mpi_collective.findings with input as {"phase": "Failed", "kind": "MPIJob", "pods": [_pod({"exec.mpi-collective.horovod": _m(line)})]}
	some f in fs
	f.params.error == "ncclAllReduce failed: unhandled cuda error"
	f.subject.rank == 5
}

test_quiet_on_elastic_hosts_update if {
	re := [s.pattern | some s in mpi_collective.signatures][_]
	not regex.match(re, "horovod.common.exceptions.HostsUpdatedInterrupt: hosts updated")
}

test_quiet_when_training_survived if {
	pod := object.union(_pod({"exec.mpi-collective.horovod": _m("HorovodInternalError: Broadcast is not supported with Join at this time.")}), {})
	running := object.union(pod, {"phase": "Running", "containers": [object.union(pod.containers[0], {"state": {"state": "running"}, "logs": [object.union(pod.containers[0].logs[0], {"progress": {"lastStepLine": 400}})]})]})
	count(mpi_collective.findings) == 0 with input as {"phase": "Running", "pods": [running]}
}
