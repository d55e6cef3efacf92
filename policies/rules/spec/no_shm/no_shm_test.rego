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
