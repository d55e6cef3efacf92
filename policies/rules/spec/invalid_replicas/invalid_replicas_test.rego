package traindoc.rules.spec.invalid_replicas_test

import data.traindoc.rules.spec.invalid_replicas

_group(t, n) := {"type": t, "expected": n, "created": 0, "template": {"gpuLimit": 0, "containers": []}}

_job(kind, groups) := {
	"kind": kind, "name": "bert", "namespace": "ml",
	"createdAt": "2026-03-01T10:00:00Z",
	"replicas": groups, "spec": {},
}

test_fires_two_masters if {
	fs := invalid_replicas.findings with input as _job("PyTorchJob", [_group("Master", 2), _group("Worker", 4)])
	count(fs) == 1
	some f in fs
	f.params.group == "Master"
	f.params.value == "replicas=2"
	f.params.allowed == "replicas=1"
	f.subject == {"kind": "PyTorchJob", "name": "bert"}
	f.evidence[0].field == "spec.pytorchReplicaSpecs[Master]"
}

test_fires_mpijob_two_launchers if {
	fs := invalid_replicas.findings with input as _job("MPIJob", [_group("Launcher", 2), _group("Worker", 2)])
	some f in fs
	f.params.group == "Launcher"
}

test_fires_t9k_lowercase_master if {
	fs := invalid_replicas.findings with input as _job("PyTorchTrainingJob", [_group("master", 0), _group("worker", 2)])
	some f in fs
	f.params.group == "master"
	f.params.value == "replicas=0"
}

test_fires_worker_zero if {
	fs := invalid_replicas.findings with input as _job("PyTorchJob", [_group("Master", 1), _group("Worker", 0)])
	some f in fs
	f.params.group == "Worker"
	f.params.allowed == "replicas>=1"
}

test_fires_elastic_min_above_max if {
	j := object.union(_job("PyTorchJob", [_group("Worker", 4)]), {"spec": {"elastic": {"enabled": true, "minReplicas": 8, "maxReplicas": 4}}})
	fs := invalid_replicas.findings with input as j
	some f in fs
	f.params.group == "elastic"
	f.params.value == "minReplicas=8, maxReplicas=4"
}

test_fires_ray_group_outside_bounds if {
	g := object.union(_group("gpu-workers", 6), {"minReplicas": 1, "maxReplicas": 4})
	fs := invalid_replicas.findings with input as _job("RayCluster", [_group("head", 1), g])
	count(fs) == 1
	some f in fs
	f.params.allowed == "1<=replicas<=4"
}

test_quiet_valid_job_silent if {
	fs := invalid_replicas.findings with input as _job("PyTorchJob", [_group("Master", 1), _group("Worker", 7)])
	count(fs) == 0
}

test_quiet_ray_zero_workers_silent if {
	g := object.union(_group("cpu-workers", 0), {"minReplicas": 0, "maxReplicas": 10})
	fs := invalid_replicas.findings with input as _job("RayJob", [_group("head", 1), g])
	count(fs) == 0
}

test_quiet_tfjob_without_chief_silent if {
	fs := invalid_replicas.findings with input as _job("TFJob", [_group("Chief", 0), _group("Worker", 2), _group("PS", 1)])
	count(fs) == 0
}
