package traindoc.rules.spec.nproc_exceeds_gpus_test

import data.traindoc.rules.spec.nproc_exceeds_gpus

_group(t, gpus, args) := {
	"type": t, "expected": 1,
	"template": {"gpuLimit": gpus, "containers": [{"name": "pytorch", "command": ["bash", "-c"], "args": args}]},
}

_job(spec, groups) := {"kind": "PyTorchJob", "name": "llama", "namespace": "ml", "createdAt": "2026-03-01T10:00:00Z", "spec": spec, "replicas": groups}

test_fires_spec_nproc_over_gpus if {
	j := _job({"procsPerNode": "8", "procsPerNodeCount": 8}, [_group("Master", 4, []), _group("Worker", 4, [])])
	fs := nproc_exceeds_gpus.findings with input as j
	count(fs) == 1
	some f in fs
	f.params == {"nproc": 8, "gpus": 4, "groups": "Master, Worker", "source": "nprocPerNode"}
}

test_fires_command_line_nproc if {
	args := ["torchrun --nnodes=2 --nproc_per_node=8 train.py"]
	fs := nproc_exceeds_gpus.findings with input as _job({"procsPerNodeCount": 0}, [_group("Worker", 2, args)])
	some f in fs
	f.params.nproc == 8
	f.params.gpus == 2
	f.params.source == "--nproc_per_node"
}

test_fires_t9k_torchrun if {
	j := object.union(_job({"torchrun": {"enabled": true, "procPerNode": "4"}}, [_group("worker", 1, [])]), {"kind": "PyTorchTrainingJob"})
	fs := nproc_exceeds_gpus.findings with input as j
	some f in fs
	f.params.source == "torchrunConfig.procPerNode"
}

test_quiet_matching_counts_silent if {
	args := ["torchrun --nproc-per-node 8 train.py"]
	fs := nproc_exceeds_gpus.findings with input as _job({"procsPerNode": "auto", "procsPerNodeCount": 0}, [_group("Master", 8, args)])
	count(fs) == 0
}

test_quiet_cpu_only_group_silent if {
	fs := nproc_exceeds_gpus.findings with input as _job({"procsPerNodeCount": 8}, [_group("Worker", 0, [])])
	count(fs) == 0
}
