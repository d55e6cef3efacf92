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

# The MPI library's own report of a failed collective, in Open MPI's and
# MPICH's words, and a truncated message from any call.
test_fires_mpi_library_errors if {
	re := [s.pattern | some s in mpi_collective.signatures; s.id == "exec.mpi-collective.mpi"][0]
	every line in [
		"[g32n01:32314] *** An error occurred in MPI_Allreduce",
		"Abort(2695311) (rank 11122 in comm 0): Fatal error in PMPI_Allreduce: Other MPI error, error stack:",
		"MPI_Allreduce(855)....: MPI_Allreduce(sbuf=MPI_IN_PLACE, rbuf=0x2049aaa00, count=256, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD) failed",
		"r3 | MPI_Allreduce returned error code 15: b'MPI_ERR_TRUNCATE: message truncated' - aborting",
		"[ipvs-epyc1:3260534] *** MPI_ERR_TRUNCATE: message truncated",
	] {
		regex.match(re, line)
	}

	# A point-to-point error other than truncation is not a collective's.
	not regex.match(re, "[node:1] *** An error occurred in MPI_Recv")
	not regex.match(re, "Fatal error in PMPI_Wait: Other MPI error, error stack:")
}

test_fires_mpich_fatal_error_names_the_call if {
	line := "Abort(2695311) (rank 11122 in comm 0): Fatal error in PMPI_Allreduce: Other MPI error, error stack:"
	fs := mpi_collective.findings with input as {"phase": "Failed", "kind": "MPIJob", "pods": [_pod({"exec.mpi-collective.mpi": _m(line)})]}
	some f in fs
	f.params.error == "MPI_Allreduce failed"
}
