package traindoc.rules.job.creation_failed_test

import data.traindoc.rules.job.creation_failed

_event(kind, name, reason, msg) := {
	"type": "Warning", "reason": reason, "count": 26, "message": msg,
	"object": {"kind": kind, "name": name, "namespace": "ml"},
	"firstTime": "2026-01-14T09:30:01Z", "lastTime": "2026-01-14T09:59:55Z",
}

test_fires_trainjob_created_false if {
	c := {"type": "Created", "status": "False", "reason": "JobsBuildFailed", "message": `ClusterTrainingRuntime.trainer.kubeflow.org "torch-distributed-v2" not found`, "lastTransitionTime": "2026-01-14T09:30:01Z"}
	j := {"kind": "TrainJob", "name": "dpo", "namespace": "ml", "phase": "Pending", "status": {"conditions": [c]}, "pods": [], "events": [], "replicas": []}
	fs := creation_failed.findings with input as j
	count(fs) == 1
	some f in fs
	f.params.what == "JobSet"
	startswith(f.params.detail, "JobsBuildFailed: ")
	f.time == "2026-01-14T09:30:01Z"
}

test_fires_trainjob_without_conditions if {
	e := _event("TrainJob", "dpo", "TrainJobResourcesCreationFailed", `TrainJob resources reconciliation failed: admission webhook "validation.gatekeeper.sh" denied the request: [jobset-must-have-cost-center] you must provide labels: {"cost-center"}`)
	j := {"kind": "TrainJob", "name": "dpo", "phase": "Pending", "status": {"conditions": []}, "pods": [], "events": [e], "replicas": []}
	fs := creation_failed.findings with input as j
	count(fs) == 1
	some f in fs
	f.params.controller == "trainer-controller-manager"
	f.subject == {"kind": "TrainJob", "name": "dpo"}
}

test_fires_pod_security_forbidden if {
	msg := `Error creating: pods "bert-worker-0" is forbidden: violates PodSecurity "baseline:latest": host namespaces (hostIPC=true), hostPath volumes (volume "nvme")`
	e := _event("PyTorchJob", "bert", "FailedCreatePod", msg)
	e2 := object.union(e, {"message": replace(msg, "bert-worker-0", "bert-master-0")})
	g := {"type": "Worker", "expected": 2, "created": 0}
	j := {"kind": "PyTorchJob", "name": "bert", "phase": "Pending", "status": {"conditions": []}, "pods": [], "events": [e, e2], "replicas": [g]}
	fs := creation_failed.findings with input as j
	count({f.params | some f in fs}) == 1
	some f in fs
	f.params.what == "Pod"
	f.params.controller == "training-operator"
	startswith(f.params.detail, `pods "…" are forbidden: violates PodSecurity`)
}

test_quiet_quota_refusal_and_running_job_silent if {
	q := _event("PyTorchJob", "bert", "FailedCreatePod", `Error creating: pods "bert-worker-1" is forbidden: exceeded quota: gpu, requested: requests.nvidia.com/gpu=8, used: requests.nvidia.com/gpu=8, limited: requests.nvidia.com/gpu=8`)
	j := {"kind": "PyTorchJob", "name": "bert", "phase": "Pending", "status": {"conditions": []}, "pods": [], "events": [q], "replicas": []}
	count(creation_failed.findings) == 0 with input as j
	blip := _event("PyTorchJob", "bert", "FailedCreatePod", `Error creating: Operation cannot be fulfilled on pods "bert-worker-1": the object has been modified`)
	g := {"type": "Worker", "expected": 1, "created": 1}
	r := {"kind": "PyTorchJob", "name": "bert", "phase": "Running", "status": {"conditions": []}, "pods": [{"name": "bert-worker-0"}], "events": [blip], "replicas": [g]}
	count(creation_failed.findings) == 0 with input as r
}

# The batch Job controller under a JobSet: a missing service account.
test_fires_job_missing_service_account if {
	e := _event("Job", "dpo-node-0", "FailedCreate", `Error creating: pods "dpo-node-0-0-x7k2p" is forbidden: error looking up service account ml/trainer: serviceaccount "trainer" not found`)
	j := {"kind": "TrainJob", "name": "dpo", "phase": "Pending", "status": {"conditions": []}, "pods": [], "events": [e], "replicas": [], "children": [{"kind": "Job", "name": "dpo-node-0", "conditions": []}]}
	fs := creation_failed.findings with input as j
	some f in fs
	f.params.controller == "job-controller"
	f.params.what == "Pod"
	contains(f.params.detail, `serviceaccount "trainer" not found`)
}

# A policy webhook that denies the pods (Gatekeeper's wording).
test_fires_gatekeeper_denial if {
	e := _event("PyTorchJob", "bert", "FailedCreatePod", `Error creating: admission webhook "validation.gatekeeper.sh" denied the request: [no-privileged-containers] Privileged container is not allowed: pytorch, securityContext: {"privileged": true}`)
	j := {"kind": "PyTorchJob", "name": "bert", "phase": "Pending", "status": {"conditions": []}, "pods": [], "events": [e], "replicas": []}
	fs := creation_failed.findings with input as j
	some f in fs
	startswith(f.params.detail, `admission webhook "validation.gatekeeper.sh" denied the request`)
}

# Races the controller retries are not why a job never started, even while
# its pods are still missing.
test_quiet_transient_races if {
	es := [
		_event("PyTorchJob", "bert", "FailedCreatePod", `Error creating: pods "bert-worker-0" already exists`),
		_event("PyTorchJob", "bert", "FailedCreatePod", `Error creating: Operation cannot be fulfilled on pods "bert-worker-0": the object has been modified; please apply your changes to the latest version and try again`),
		_event("Job", "dpo-node-0", "FailedCreate", "Error creating: etcdserver: request timed out"),
	]
	j := {"kind": "PyTorchJob", "name": "bert", "phase": "Pending", "status": {"conditions": []}, "pods": [], "events": es, "replicas": []}
	count(creation_failed.findings) == 0 with input as j
}
