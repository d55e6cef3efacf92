package traindoc.rules.sched.quota_exceeded_test

import data.traindoc.rules.sched.quota_exceeded

_event(kind, name, msg) := {
	"type": "Warning", "reason": "FailedCreatePod", "count": 14,
	"message": msg,
	"object": {"kind": kind, "name": name, "namespace": "team-a"},
	"firstTime": "2026-03-01T10:00:00Z", "lastTime": "2026-03-01T10:30:00Z",
}

test_fires_operator_event if {
	msg := `Error creating: pods "llm-worker-3" is forbidden: exceeded quota: team-a-gpu, requested: requests.nvidia.com/gpu=8, used: requests.nvidia.com/gpu=24, limited: requests.nvidia.com/gpu=24`
	fs := quota_exceeded.findings with input as {"kind": "PyTorchJob", "name": "llm", "events": [_event("PyTorchJob", "llm", msg)]}
	count(fs) == 1
	some f in fs
	f.params == {"quota": {"en": "ResourceQuota team-a-gpu", "zh": "ResourceQuota team-a-gpu"}, "resources": "requests.nvidia.com/gpu", "why": {"en": "limited: requests.nvidia.com/gpu=24", "zh": "上限：requests.nvidia.com/gpu=24"}}
	f.subject == {"kind": "PyTorchJob", "name": "llm"}
}

test_fires_failed_quota_must_specify if {
	msg := `Error creating: pods "trainer-node-0-0-x7k2p" is forbidden: failed quota: compute: must specify limits.cpu,limits.memory`
	fs := quota_exceeded.findings with input as {"kind": "TrainJob", "name": "t", "events": [object.union(_event("Job", "t-node-0", msg), {"reason": "FailedCreate"})]}
	some f in fs
	f.params.detail == "must specify limits.cpu,limits.memory"
	f.params.resources == "limits.cpu, limits.memory"
}

test_fires_kueue_max_capacity if {
	c := {
		"type": "QuotaReserved", "status": "False", "reason": "Pending",
		"message": "couldn't assign flavors to pod set master: insufficient unused quota for nvidia.com/gpu in flavor h100, 8 more needed; couldn't assign flavors to pod set worker: insufficient quota for nvidia.com/gpu in flavor h100, request > maximum capacity (24 > 16)",
		"lastTransitionTime": "2026-03-01T10:00:05Z",
	}
	a := {"kind": "Workload", "name": "pytorchjob-llm-3f2a1", "namespace": "team-a", "queue": "team-a-queue", "conditions": [c]}
	fs := quota_exceeded.findings with input as {"kind": "PyTorchJob", "name": "llm", "phase": "Suspended", "events": [], "admission": [a]}
	count(fs) == 1
	some f in fs
	f.params.quota == {"en": "Kueue queue team-a-queue", "zh": "Kueue 队列 team-a-queue"}
	f.params.resources == "nvidia.com/gpu"
	f.params.detail == "worker: insufficient quota for nvidia.com/gpu in flavor h100, request > maximum capacity (24 > 16)"
}

test_quiet_kueue_unused_quota_silent if {
	c := {
		"type": "QuotaReserved", "status": "False", "reason": "Pending",
		"message": "couldn't assign flavors to pod set main: insufficient unused quota for nvidia.com/gpu in flavor default-flavor, 4 more needed",
	}
	a := {"kind": "Workload", "name": "job-x", "queue": "q", "conditions": [c]}
	fs := quota_exceeded.findings with input as {"kind": "PyTorchJob", "name": "x", "phase": "Suspended", "events": [], "admission": [a]}
	count(fs) == 0
}

test_fires_resourcequota_hard_below_need if {
	g := {"type": "Worker", "expected": 4, "template": {"containers": [{"name": "pytorch", "requests": {"nvidia.com/gpu": "8", "cpu": "32"}, "limits": {"nvidia.com/gpu": "8"}}]}}
	q := {"name": "gpu-quota", "hard": {"requests.nvidia.com/gpu": "16", "requests.cpu": "256"}, "used": {"requests.nvidia.com/gpu": "0"}}
	fs := quota_exceeded.findings with input as {"kind": "PyTorchJob", "name": "x", "namespace": "team-a", "phase": "Pending", "events": [], "replicas": [g], "quotas": [q]}
	count(fs) == 1
	some f in fs
	f.params.why.en == "hard requests.nvidia.com/gpu=16 < 32"
}

test_quiet_quota_large_enough_silent if {
	g := {"type": "Worker", "expected": 2, "template": {"containers": [{"name": "pytorch", "limits": {"nvidia.com/gpu": "8", "memory": "200Gi"}}]}}
	q := {"name": "gpu-quota", "hard": {"requests.nvidia.com/gpu": "16", "limits.memory": "1Ti", "pods": "10"}}
	fs := quota_exceeded.findings with input as {"kind": "PyTorchJob", "name": "x", "phase": "Pending", "events": [], "replicas": [g], "quotas": [q]}
	count(fs) == 0
}

test_fires_limits_memory_below_need if {
	g := {"type": "Worker", "expected": 2, "template": {"containers": [{"name": "pytorch", "limits": {"memory": "200Gi"}}]}}
	q := {"name": "mem", "hard": {"limits.memory": "300Gi", "requests.memory": "500Gi"}}
	fs := quota_exceeded.findings with input as {"kind": "PyTorchJob", "name": "x", "phase": "Pending", "events": [], "replicas": [g], "quotas": [q]}
	count(fs) == 1
	some f in fs
	f.params.why.en == "hard limits.memory=300Gi < 400Gi"
}

_gpu_group(n, per_pod) := {"type": "Worker", "expected": n, "template": {"containers": [{"name": "pytorch", "limits": {"nvidia.com/gpu": per_pod}}]}}

test_fires_volcano_queue_closed if {
	q := {"kind": "Queue", "apiVersion": "scheduling.volcano.sh/v1beta1", "name": "research", "state": "Closed"}
	fs := quota_exceeded.findings with input as {"kind": "PyTorchJob", "name": "llm", "phase": "Pending", "events": [], "queues": [q]}
	count(fs) == 1
	some f in fs
	f.params == {"quota": {"en": "Volcano queue research", "zh": "Volcano 队列 research"}, "resources": "", "why": {"en": "the queue is closed", "zh": "队列已关闭"}}
}

test_fires_queue_capability_below_need if {
	q := {"kind": "Queue", "apiVersion": "scheduling.volcano.sh/v1beta1", "name": "research", "state": "Open", "quota": {"nvidia.com/gpu": "16"}}
	fs := quota_exceeded.findings with input as {"kind": "PyTorchJob", "name": "llm", "phase": "Pending", "events": [], "queues": [q], "replicas": [_gpu_group(4, "8")]}
	some f in fs
	f.params.why == {"en": "nvidia.com/gpu 16 < 32 the job needs", "zh": "nvidia.com/gpu 16 < 作业所需的 32"}
}

test_fires_t9k_queue_quota_below_need if {
	q := {"kind": "Queue", "apiVersion": "scheduler.tensorstack.dev/v1beta1", "name": "a100", "quota": {"requests.nvidia.com/gpu": "8"}}
	fs := quota_exceeded.findings with input as {"kind": "PyTorchTrainingJob", "name": "sft", "phase": "Pending", "events": [], "queues": [q], "replicas": [_gpu_group(2, "8")]}
	some f in fs
	f.params.quota.en == "TensorStack queue a100"
}

test_quiet_cohort_may_borrow if {
	q := {"kind": "ClusterQueue", "apiVersion": "kueue.x-k8s.io/v1beta1", "name": "team-a-cq", "quota": {"nvidia.com/gpu": "16"}, "borrowing": ["nvidia.com/gpu"]}
	fs := quota_exceeded.findings with input as {"kind": "PyTorchJob", "name": "llm", "phase": "Suspended", "events": [], "queues": [q], "replicas": [_gpu_group(4, "8")]}
	count(fs) == 0
}

test_quiet_closed_queue_job_running if {
	q := {"kind": "Queue", "apiVersion": "scheduling.volcano.sh/v1beta1", "name": "research", "state": "Closing"}
	fs := quota_exceeded.findings with input as {"kind": "PyTorchJob", "name": "llm", "phase": "Running", "events": [], "queues": [q]}
	count(fs) == 0
}

test_fires_kueue_in_clusterqueue_wording if {
	c := {
		"type": "QuotaReserved", "status": "False", "reason": "Pending",
		"message": "couldn't assign flavors to pod set main: insufficient quota for nvidia.com/gpu in flavor a100 in ClusterQueue",
	}
	a := {"kind": "Workload", "name": "w", "queue": "q", "conditions": [c]}
	fs := quota_exceeded.findings with input as {"kind": "PyTorchJob", "name": "x", "phase": "Suspended", "events": [], "admission": [a]}
	some f in fs
	f.params.resources == "nvidia.com/gpu"
}

test_fires_queue_closed_event if {
	e := {"type": "Warning", "reason": "Unschedulable", "count": 3, "message": "Queue <research> is closed", "object": {"kind": "PodGroup", "name": "llm"}, "firstTime": "2026-03-01T10:00:00Z"}
	fs := quota_exceeded.findings with input as {"kind": "PyTorchJob", "name": "llm", "phase": "Pending", "events": [e]}
	some f in fs
	f.params.quota == {"en": "Queue research", "zh": "队列 research"}
}

# A refusal the controller's retry got past: every pod exists and runs.
test_quiet_refusal_answered if {
	msg := `Error creating: pods "llm-worker-3" is forbidden: exceeded quota: team-a-gpu, requested: requests.nvidia.com/gpu=8, used: requests.nvidia.com/gpu=24, limited: requests.nvidia.com/gpu=24`
	pods := [{"name": sprintf("llm-worker-%d", [i]), "phase": "Running"} | some i in numbers.range(0, 3)]
	inp := {"kind": "PyTorchJob", "name": "llm", "phase": "Running", "replicas": [{"type": "Worker", "expected": 4}], "pods": pods, "events": [_event("PyTorchJob", "llm", msg)]}
	count(quota_exceeded.findings) == 0 with input as inp

	# One pod short: the refusal still holds.
	count(quota_exceeded.findings) == 1 with input as object.union(inp, {"pods": array.slice(pods, 0, 3)})
}

test_fires_kueue_namespace_selector if {
	c := {"type": "QuotaReserved", "status": "False", "reason": "Inadmissible", "message": "Workload namespace doesn't match ClusterQueue selector", "lastTransitionTime": "2026-03-01T10:00:00Z"}
	wl := {"kind": "Workload", "name": "pytorchjob-llm-1a2b3", "queue": "team-a", "conditions": [c]}
	fs := quota_exceeded.findings with input as {"kind": "PyTorchJob", "name": "llm", "admission": [wl], "events": []}
	some f in fs
	f.params.quota.en == "Kueue queue team-a"
}

test_fires_volcano_queue_missing if {
	msg := `admission webhook "validatepodgroup.volcano.sh" denied the request: failed to get queue: queues.scheduling.volcano.sh "research" not found`
	fs := quota_exceeded.findings with input as {"kind": "PyTorchJob", "name": "llm", "events": [object.union(_event("PyTorchJob", "llm", msg), {"reason": "FailedCreatePodGroup"})]}
	some f in fs
	f.params.quota.en == "Volcano queue research"
}

test_fires_elastic_quota_prefilter if {
	pod := {"name": "llm-worker-0", "namespace": "quota1", "phase": "Pending", "containers": [], "conditions": [{
		"type": "PodScheduled", "status": "False", "reason": "Unschedulable",
		"message": "0/10 nodes are available: 10 Pod quota1/llm-worker-0 is rejected in Prefilter because ElasticQuota quota1 is more than Max.",
		"lastTransitionTime": "2026-03-01T10:00:00Z",
	}]}
	fs := quota_exceeded.findings with input as {"kind": "PyTorchJob", "name": "llm", "pods": [pod], "events": []}
	some f in fs
	f.params.quota.en == "ElasticQuota quota1"
	f.subject.name == "llm-worker-0"
}
