package traindoc.rules.progress.ray_no_gpus_test

import data.traindoc.rules.progress.ray_no_gpus

_head(matches, exec) := {
	"name": "rc-head-a1", "namespace": "rl", "phase": "Running", "nodeName": "cpu-1", "conditions": [], "replicaType": "head",
	"containers": [{
		"name": "ray-head", "restartCount": 0, "state": {"state": "running"}, "lastState": {},
		"limits": {"cpu": "8", "memory": "32Gi"},
		"logs": [{"file": "logs/rc-head-a1/ray-head.log", "previous": false, "lines": 300, "matches": matches, "tail": [], "progress": _progress}],
	}],
	"exec": exec,
}

_groups := [
	{"type": "head", "expected": 1, "template": {"gpuLimit": 0}},
	{"type": "gpu-group", "expected": 1, "template": {"gpuLimit": 8}},
]

_line := "(TaskRunner pid=9121) WARNING: torch.cuda.is_available() is False in this process (CUDA_VISIBLE_DEVICES=''); rollout and actor workers will be scheduled with num_gpus=0"

_m := {"count": 1, "firstLine": 40, "lastLine": 40, "samples": [{"line": 40, "text": _line}]}

# Training goes on after the warning, on the CPU.
_progress := {"lastStepLine": 290}

_input(head) := {"kind": "RayCluster", "phase": "Running", "replicas": _groups, "pods": [head], "progress": {}, "now": "2026-04-02T04:12:30Z"}

test_fires_when_the_driver_on_the_head_sees_no_gpu if {
	fs := ray_no_gpus.findings with input as _input(_head({"ctx.ray-driver-no-gpu": _m}, {}))
	some f in fs
	f.params.gpus == 8
	f.params.signal == "torch.cuda.is_available() is False"
}

test_fires_from_a_copied_job_log if {
	other := {"other": [{"name": "ray-job-logs", "file": "exec/rc-head-a1/ray-job-logs.txt", "text": concat("\n", ["INFO worker.py:1832 -- Connected to Ray cluster.", _line, "(TaskRunner pid=9121) step:1 - actor/pg_loss:0.0139", "(TaskRunner pid=9121) step:2 - actor/pg_loss:-0.0098"])}]}
	fs := ray_no_gpus.findings with input as _input(_head({}, other))
	some f in fs
	f.evidence[0].file == "exec/rc-head-a1/ray-job-logs.txt"
}

# ray status already shows the idle GPUs: the GPU-idle rule reports them.
test_quiet_when_ray_status_shows_the_idle_gpus if {
	rs := {"rayStatus": {"gpusUsed": 0, "gpusTotal": 8, "demands": []}}
	count(ray_no_gpus.findings) == 0 with input as _input(_head({"ctx.ray-driver-no-gpu": _m}, rs))
}

test_quiet_when_the_head_has_gpus if {
	h := object.union(_head({"ctx.ray-driver-no-gpu": _m}, {}), {"containers": [object.union(_head({"ctx.ray-driver-no-gpu": _m}, {}).containers[0], {"limits": {"nvidia.com/gpu": "8"}})]})
	count(ray_no_gpus.findings) == 0 with input as _input(h)
}
