package traindoc.rules.exec.ray_task_error_test

import data.traindoc.rules.exec.ray_task_error

_head(text) := {
	"name": "rc-head", "namespace": "ml", "phase": "Running", "nodeName": "cpu-1", "replicaType": "head", "conditions": [],
	"containers": [{"name": "ray-head", "restartCount": 0, "state": {"state": "running"}, "lastState": {}, "logs": []}],
	"exec": {"other": [{"name": "notebook-output", "file": "exec/rc-head/notebook-output.txt", "text": text}]},
}

_worker(name, ip) := {
	"name": name, "namespace": "ml", "phase": "Running", "nodeName": "gpu-4", "conditions": [], "replicaType": "gpu-group",
	"containers": [{
		"name": "ray-worker", "restartCount": 0, "state": {"state": "running"}, "lastState": {},
		"logs": [{"file": "x", "previous": false, "lines": 10, "tail": [], "matches": {"ctx.ray-node-ip": {"count": 1, "firstLine": 3, "lastLine": 3, "samples": [], "groups": {"ip": ip}}}}],
	}],
}

_input(text) := {"kind": "RayCluster", "name": "rc", "namespace": "ml", "phase": "Failed", "pods": [_head(text), _worker("rc-gpu-worker-q", "10.244.5.31")]}

test_fires_with_the_wrapped_permission_error_on_the_worker if {
	text := concat("\n", [
		"Traceback (most recent call last):",
		"  File \"/home/ray/train.py\", line 61, in <module>",
		"    result = trainer.fit()",
		"ray.exceptions.RayTaskError(PermissionError): ray::_RayTrainWorker__execute.get_next() (pid=2211, ip=10.244.5.31, actor_id=7d2c, repr=<ray.train._internal.worker_group.RayTrainWorker object at 0x7f3e>)",
		"  File \"/home/ray/train.py\", line 40, in train_loop_per_worker",
		"    torch.save(state, \"/mnt/checkpoints/run-7/epoch_3.pt\")",
		"PermissionError: [Errno 13] Permission denied: '/mnt/checkpoints/run-7/epoch_3.pt'",
	])
	fs := ray_task_error.findings with input as _input(text)
	count(fs) == 1
	some f in fs
	f.category == "exec.permission-denied"
	f.subject.name == "rc-gpu-worker-q"
	f.params.wrapper == "task"
	f.evidence[1].line == 7
}

test_fires_cuda_oom_in_a_train_v2_worker_group_error if {
	text := concat("\n", [
		"ray.train.WorkerGroupError: Training failed due to worker errors:",
		"[Rank 3 Error Snippet]:",
		"  File \"/home/ray/train.py\", line 88, in train_func",
		"    loss.backward()",
		"torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.95 GiB. GPU 3 has a total capacity of 79.10 GiB of which 1.02 GiB is free.",
	])
	fs := ray_task_error.findings with input as _input(text)
	some f in fs
	f.category == "exec.cuda-oom"
	f.params.wrapper == "training run"
	f.subject.name == "rc-head"
}

test_fires_a_plain_exception_is_a_python_error if {
	text := concat("\n", [
		"2026-03-01 10:02:11,004 ERROR tune_controller.py:1331 -- Trial task failed for trial TorchTrainer_9f3e1_00000",
		"ray.exceptions.RayTaskError(KeyError): ray::_Inner.train() (pid=1201, ip=10.244.9.9, actor_id=aa01, repr=TorchTrainer)",
		"KeyError: 'input_ids'",
	])
	fs := ray_task_error.findings with input as _input(text)
	count(fs) == 1
	some f in fs
	f.category == "exec.python-error"
	f.params.error == "KeyError: 'input_ids'"
}

# An actor death is the actor rule's finding, not a python error.
test_quiet_when_the_wrapped_error_is_an_actor_death if {
	text := concat("\n", [
		"ray.exceptions.RayTaskError(ActorDiedError): ray::TaskRunner.run() (pid=1882, ip=10.244.0.12, actor_id=d818)",
		"ray.exceptions.ActorDiedError: The actor died unexpectedly before finishing this task.",
	])
	count(ray_task_error.findings) == 0 with input as _input(text)
}

# A trial that failed once and whose retry trained on.
test_quiet_when_training_went_on if {
	text := concat("\n", [
		"Trial train_fn_1b2c3_00000 errored after 3 iterations at 2026-03-01 10:00:00. Total running time: 41s",
		"FileNotFoundError: [Errno 2] No such file or directory: '/data/shard-17.parquet'",
		"Trial train_fn_1b2c3_00000 restored from checkpoint",
		"{'loss': 0.412, 'training_iteration': 4}",
	])
	count(ray_task_error.findings) == 0 with input as object.union(_input(text), {"phase": "Running"})
}

# Logs are read by the rules of the wrapped categories, not here.
test_quiet_on_texts_the_engine_scanned if {
	h := _head("ray.exceptions.RayTaskError(PermissionError): ray::f() (pid=1, ip=10.0.0.1)\nPermissionError: [Errno 13] Permission denied: '/x'")
	scanned := object.union(h, {"containers": [{"name": "ray-head", "restartCount": 0, "state": {"state": "running"}, "lastState": {}, "logs": [{"file": "exec/rc-head/notebook-output.txt", "previous": false, "matches": {}, "tail": []}]}]})
	count(ray_task_error.findings) == 0 with input as {"kind": "RayCluster", "name": "rc", "phase": "Failed", "pods": [scanned]}
}

# The driver log tail KubeRay copies into a RayJob's status is all that is
# left once the cluster was deleted (shutdownAfterJobFinishes).
test_fires_on_the_rayjob_status_message if {
	msg := concat("\n", [
		"Job entrypoint command failed with exit code 127, last available logs (truncated to 20,000 chars):",
		"/bin/bash: /examples/script/train_ppo_qwen_base_math_lv35_new_1_node.sh: No such file or directory",
	])
	fs := ray_task_error.findings with input as {"kind": "RayJob", "name": "ppo", "namespace": "rl", "phase": "Failed", "pods": [], "status": {"message": msg}}
	count(fs) == 1
	some f in fs
	f.category == "exec.file-not-found"
	f.subject == {"kind": "RayJob", "name": "ppo"}
	f.params.wrapper == "job"
}

# A log tail mentions a missing optional package long before the failure;
# the last traceback decides.
test_fires_the_last_traceback_decides if {
	msg := concat("\n", [
		"Job entrypoint command failed with exit code 1, last available logs (truncated to 20,000 chars):",
		"(WorkerDict pid=3117, ip=10.244.5.31) flash_attn not found: No module named 'flash_attn', using sdpa",
		"(TaskRunner pid=1882) step:12 - actor/pg_loss:0.0139",
		"Traceback (most recent call last):",
		"  File \"/app/main_ppo.py\", line 61, in main",
		"ray.exceptions.RayTaskError(DistBackendError): ray::WorkerDict.actor_rollout_ref_update_actor() (pid=3117, ip=10.244.5.31, actor_id=aa01)",
		"torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1970, remote process exited or there was a network error, NCCL version 2.21.5",
	])
	fs := ray_task_error.findings with input as {"kind": "RayJob", "name": "ppo", "namespace": "rl", "phase": "Failed", "pods": [], "status": {"message": msg}}
	count(fs) == 1
	some f in fs
	f.category == "exec.nccl-error"
}

# verl's TaskRunner on one worker waits for a WorkerDict on another: the
# inner header names the worker that failed.
test_fires_the_innermost_task_header_names_the_worker if {
	text := concat("\n", [
		"ray.exceptions.RayTaskError(PermissionError): ray::TaskRunner.run() (pid=1882, ip=10.244.9.9, actor_id=d818)",
		"  File \"/app/verl/trainer/ppo/ray_trainer.py\", line 1018, in fit",
		"ray.exceptions.RayTaskError(PermissionError): ray::WorkerDict.save_checkpoint() (pid=3117, ip=10.244.5.31, actor_id=52a4)",
		"PermissionError: [Errno 13] Permission denied: '/ckpt/global_step_20'",
	])
	inp := object.union(_input(text), {"pods": array.concat(_input(text).pods, [_worker("rc-gpu-worker-other", "10.244.9.9")])})
	fs := ray_task_error.findings with input as inp
	count(fs) == 1
	some f in fs
	f.subject.name == "rc-gpu-worker-q"
}

# Ray 1.x wrote the wrapper without the wrapped type; the wrapped lines
# still name the cause.
test_fires_on_a_ray_1x_wrapper_without_the_type if {
	text := concat("\n", [
		"ray.exceptions.RayTaskError: ray::deploy_ray_func() (pid=457, ip=10.244.5.31)",
		"  File \"python/ray/_raylet.pyx\", line 458, in ray._raylet.execute_task",
		"  File \"python/ray/_raylet.pyx\", line 349, in ray._raylet.raise_if_dependency_failed",
		"ray.exceptions.RaySystemError: System error: No module named 'modin'",
	])
	fs := ray_task_error.findings with input as _input(text)
	some f in fs
	f.category == "exec.missing-module"
	f.subject.name == "rc-gpu-worker-q"
}

# Ray 0.6-1.x's memory monitor raised RayOutOfMemoryError inside a task:
# the memory rule's finding, not a task error.
test_quiet_on_a_wrapped_ray_out_of_memory_error if {
	text := concat("\n", [
		"ray.exceptions.RayTaskError(RayOutOfMemoryError): ray::f() (pid=457, ip=10.244.5.31)",
		"ray.memory_monitor.RayOutOfMemoryError: More than 95% of the memory on node rc-gpu-worker-q is used (58.1 / 61.0 GB).",
	])
	count(ray_task_error.findings) == 0 with input as _input(text)
}
