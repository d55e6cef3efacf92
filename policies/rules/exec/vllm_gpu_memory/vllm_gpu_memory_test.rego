package traindoc.rules.exec.vllm_gpu_memory_test

import data.traindoc.rules.exec.vllm_gpu_memory

# Not lib/testing's pod: a Ray head pod whose log carries progress: the
# rule reads where vLLM runs.
_pod(matches, progress) := {
	"name": "rl-head", "namespace": "rl", "phase": "Running", "nodeName": "gpu-1", "conditions": [], "replicaType": "head",
	"containers": [{
		"name": "ray-head", "restartCount": 0, "state": {"state": "terminated", "exitCode": 1, "finishedAt": "2026-03-01T10:00:00Z"}, "lastState": {},
		"logs": [{"file": "logs/rl-head/ray-head.log", "previous": false, "lines": 800, "matches": matches, "tail": [], "progress": progress}],
	}],
}

_m(text) := {"count": 1, "firstLine": 700, "lastLine": 700, "samples": [{"line": 700, "text": text}]}

_re(id) := [s.pattern | some s in vllm_gpu_memory.signatures; s.id == id][0]

test_fires_on_a_kv_cache_too_small if {
	line := "(WorkerDict pid=3117, ip=10.244.5.31) ValueError: The model's max seq len (32768) is larger than the maximum number of tokens that can be stored in KV cache (20432). Try increasing `gpu_memory_utilization` or decreasing `max_model_len` when initializing the engine."
	fs := vllm_gpu_memory.findings with input as {"kind": "RayJob", "phase": "Failed", "pods": [_pod({"exec.vllm-oom.kv-cache": _m(line)}, {})]}
	some f in fs
	startswith(f.params.problem, "the KV cache")
}

# Memory profiling lines name gpu_memory_utilization in every healthy start.
test_quiet_on_memory_profiling_lines if {
	not regex.match(_re("exec.vllm-oom.kv-cache"), "INFO 03-01 10:00:02 [gpu_worker.py:227] Available KV cache memory: 18.78 GiB")
	not regex.match(_re("exec.vllm-oom.startup"), "INFO 03-01 10:00:01 [worker.py:267] Memory profiling takes 4.21 seconds. the current vLLM instance can use total_gpu_memory (79.15GiB) x gpu_memory_utilization (0.60) = 47.49GiB")
	count(vllm_gpu_memory.findings) == 0 with input as {"kind": "RayJob", "phase": "Running", "pods": [_pod({}, {})]}
}

test_fires_on_free_memory_below_utilization if {
	regex.match(_re("exec.vllm-oom.startup"), "ValueError: Free memory on device cuda:1 (19.77/22.05 GiB) on startup is less than desired GPU memory utilization (0.9, 19.84 GiB). Decrease GPU memory utilization or reduce GPU memory used by other processes.")
	regex.match(_re("exec.vllm-oom.startup"), "ValueError: Free memory on device (7.34/139.72 GiB) on startup is less than desired GPU memory utilization (0.9, 125.75 GiB).")
}

# SGLang, verl's other rollout engine, refuses to start the same way.
test_fires_on_sglang_not_enough_memory if {
	line := "(WorkerDict pid=5120, ip=10.244.5.31) RuntimeError: Not enough memory. Please try to increase --mem-fraction-static."
	fs := vllm_gpu_memory.findings with input as {"kind": "RayJob", "phase": "Failed", "pods": [_pod({"exec.vllm-oom.sglang": _m(line)}, {})]}
	some f in fs
	startswith(f.params.problem, "SGLang's KV cache pool")
}

test_quiet_on_sglang_kv_cache_allocation if {
	not regex.match(_re("exec.vllm-oom.sglang"), "KV Cache is allocated. #tokens: 367404, K size: 8.23 GB, V size: 8.23 GB")
	not regex.match(_re("exec.vllm-oom.sglang"), "server_args=ServerArgs(model_path='Qwen/Qwen2.5-7B', mem_fraction_static=0.88, tp_size=1)")
}
