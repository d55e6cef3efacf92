package traindoc.lib.exec_test

import data.traindoc.lib.exec

_pods := [
	{"name": "j-launcher", "replicaType": "Launcher", "nodeName": "cpu-1", "containers": [{"name": "mpi-launcher"}]},
	{"name": "j-worker-0", "replicaType": "Worker", "replicaIndex": 0, "nodeName": "gpu-1", "containers": [{"name": "mpi-worker"}]},
	{"name": "j-worker-1", "replicaType": "Worker", "replicaIndex": 1, "nodeName": "gpu-2", "containers": [{"name": "mpi-worker"}]},
]

_mpijob := {"kind": "MPIJob", "spec": {"procsPerNodeCount": 8}, "pods": _pods}

test_origin_from_the_nccl_hostname if {
	o := exec.origin(_pods[0], "[1,3]<stdout>:j-worker-1:2211:2311 [3] NCCL WARN Cuda failure 'unknown error'") with input as _mpijob
	o.name == "j-worker-1"
}

test_origin_from_the_mpirun_rank if {
	o := exec.origin(_pods[0], "[1,11]<stderr>:RuntimeError: CUDA error: unknown error") with input as _mpijob
	o.name == "j-worker-1"
	exec.node_of(_pods[0], "[1,11]<stderr>:RuntimeError: CUDA error: unknown error") == "gpu-2" with input as _mpijob
}

test_origin_is_the_pod_itself_without_a_prefix if {
	o := exec.origin(_pods[1], "RuntimeError: CUDA error: unknown error") with input as _mpijob
	o.name == "j-worker-0"
}

test_mpirun_rank_only_counts_for_mpijobs if {
	o := exec.origin(_pods[0], "[1,11]<stderr>:boom") with input as object.union(_mpijob, {"kind": "PyTorchJob"})
	o.name == "j-launcher"
}

test_line_subject_names_the_origin_and_rank if {
	s := exec.line_subject(_pods[0], _pods[0].containers[0], "[1,11]<stderr>:RuntimeError: CUDA error: unknown error") with input as _mpijob
	s == {"kind": "Pod", "name": "j-worker-1", "container": "mpi-worker", "rank": 11}
}

test_line_rank_from_pytorch_prefixes if {
	exec.line_rank("[rank13]:[E ProcessGroupNCCL.cpp:1316] boom") == 13
	exec.line_rank("[PG 0 (default_pg) Rank 7] boom") == 7
	not exec.line_rank("step 13 done")
}
