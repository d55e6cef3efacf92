package traindoc.rules.progress.gpu_idle_test

import data.traindoc.rules.progress.gpu_idle

_job(exec) := {
	"kind": "RayCluster", "name": "verl", "namespace": "ml", "phase": "Running", "now": "2026-03-01T12:00:00Z",
	"progress": {"known": false},
	"pods": [{"name": "verl-head", "namespace": "ml", "phase": "Running", "containers": [], "conditions": [], "exec": exec}],
}

test_fires_on_ray_zero_gpus if {
	fs := gpu_idle.findings with input as _job({"rayStatus": {"file": "exec/verl-head/ray-status.txt", "gpusUsed": 0, "gpusTotal": 32, "cpusUsed": 1, "cpusTotal": 384}})
	some f in fs
	f.params.signal == {"en": "ray status: 0 GPUs in use", "zh": "ray status 显示 0 个 GPU 在用"}
	f.params.where.zh == "Ray 集群中"
	f.severity == "error"
}

test_fires_on_nvidia_smi_idle if {
	smi := {"file": "exec/verl-head/nvidia-smi.txt", "gpus": [{"index": 0, "utilization": 0}, {"index": 1, "utilization": 0}], "avgUtilization": 0, "processes": 0}
	fs := gpu_idle.findings with input as _job({"nvidiaSmi": smi})
	count(fs) == 1
}

test_quiet_when_busy if {
	smi := {"file": "exec/verl-head/nvidia-smi.txt", "gpus": [{"index": 0, "utilization": 97}], "avgUtilization": 97, "processes": 1}
	count(gpu_idle.findings) == 0 with input as _job({"nvidiaSmi": smi, "rayStatus": {"gpusUsed": 8, "gpusTotal": 8}})
}
