package traindoc.rules.spec.no_shm_test

import data.traindoc.rules.spec.no_shm

_group(t, gpus, shm) := {
	"type": t, "expected": 2,
	"template": {"gpuLimit": gpus, "shmMemory": shm, "containers": [{"name": "pytorch", "image": "pytorch/pytorch:2.3.0-cuda12.1-cudnn8-runtime"}]},
}

_job(kind, groups) := {"kind": kind, "name": "resnet", "namespace": "vision", "phase": "Failed", "createdAt": "2026-03-01T10:00:00Z", "replicas": groups, "spec": {}}

test_fires_gpu_workers_without_shm if {
	fs := no_shm.findings with input as _job("PyTorchJob", [_group("Master", 8, true), _group("Worker", 8, false)])
	count(fs) == 1
	some f in fs
	f.params.groups == "Worker"
	f.subject == {"kind": "PyTorchJob", "name": "resnet"}
	count(f.evidence) == 1
}

test_quiet_shm_mounted_silent if {
	fs := no_shm.findings with input as _job("PyTorchJob", [_group("Master", 8, true), _group("Worker", 8, true)])
	count(fs) == 0
}

test_quiet_host_ipc_silent if {
	g := _group("worker", 4, false)
	g2 := object.union(g, {"template": object.union(g.template, {"hostIPC": true})})
	fs := no_shm.findings with input as _job("PyTorchTrainingJob", [g2])
	count(fs) == 0
}

test_quiet_cpu_pods_and_ray_silent if {
	count(no_shm.findings) == 0 with input as _job("PyTorchJob", [_group("Worker", 0, false)])
	count(no_shm.findings) == 0 with input as _job("RayJob", [_group("gpu-group", 8, false)])
}

test_quiet_succeeded_job_silent if {
	j := object.union(_job("PyTorchJob", [_group("Worker", 8, false)]), {"phase": "Succeeded"})
	count(no_shm.findings) == 0 with input as j
}

_cmd_group(gpus, command) := {
	"type": "Worker", "expected": 1,
	"template": {"gpuLimit": gpus, "shmMemory": false, "containers": [{"name": "pytorch", "command": command}]},
}

# One process on one GPU, with no DataLoader workers asked for, hardly
# uses /dev/shm.
test_quiet_single_process_single_gpu if {
	count(no_shm.findings) == 0 with input as _job("PyTorchJob", [_cmd_group(1, ["python", "train.py", "--epochs", "3"])])
	count(no_shm.findings) == 0 with input as _job("PyTorchJob", [_cmd_group(1, ["python", "train.py", "--num_workers=0"])])
	count(no_shm.findings) == 0 with input as _job("PyTorchJob", [_cmd_group(0, ["python", "train.py"])])
}

test_fires_single_gpu_with_loader_workers if {
	fs := no_shm.findings with input as _job("PyTorchJob", [_cmd_group(1, ["python", "train.py", "--num_workers", "4"])])
	some f in fs
	f.params.groups == "Worker"
	endswith(f.evidence[0].text, "; --num_workers=4")
}

test_fires_cpu_pods_with_loader_workers if {
	fs := no_shm.findings with input as _job("PyTorchJob", [_cmd_group(0, ["accelerate", "launch", "train.py", "--dataloader_num_workers=8"])])
	count(fs) == 1
}

test_fires_several_processes_per_pod if {
	count(no_shm.findings) == 1 with input as _job("PyTorchJob", [_cmd_group(0, ["torchrun", "--nproc_per_node=4", "train.py"])])
	j := object.union(_job("PyTorchJob", [_cmd_group(1, ["python", "train.py"])]), {"spec": {"procsPerNodeCount": 2}})
	fs := no_shm.findings with input as j
	some f in fs
	endswith(f.evidence[0].text, "; nprocPerNode=2")
}

test_fires_several_gpus_names_them if {
	fs := no_shm.findings with input as _job("PyTorchJob", [_cmd_group(8, ["torchrun", "--nproc_per_node=8", "train.py", "--workers", "6"])])
	some f in fs
	endswith(f.evidence[0].text, "; nvidia.com/gpu limit=8, --nproc_per_node=8, --workers=6")
}

# The pods have GPUs the template does not show: a runtime completed the
# pod spec, /dev/shm included for all the rule can tell.
test_quiet_when_pods_differ_from_template if {
	j := object.union(_job("TrainJob", [_cmd_group(0, ["torchrun", "--nproc_per_node=8", "train.py"])]), {"pods": [{
		"name": "resnet-node-0-0", "replicaType": "Worker",
		"containers": [{"name": "node", "limits": {"nvidia.com/gpu": "8"}}],
	}]})
	count(no_shm.findings) == 0 with input as j
}
