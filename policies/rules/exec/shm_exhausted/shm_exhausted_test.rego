package traindoc.rules.exec.shm_exhausted_test

import data.traindoc.lib.testing
import data.traindoc.rules.exec.shm_exhausted

test_fires_on_bus_error if {
	pod := testing.pod(testing.failed, {"exec.shm-exhausted.bus": testing.match("RuntimeError: DataLoader worker (pid 4123) is killed by signal: Bus error. It is possible that dataloader's workers are out of shared memory. Please try to raise your shared memory limit.")}, {})
	fs := shm_exhausted.findings with input as {"phase": "Failed", "pods": [pod], "replicas": [{"type": "worker", "template": {"shmMemory": false}}]}
	some f in fs
	f.params.detail.en == "a process died with a bus error while using shared memory"
	f.params.shm == {"en": "no memory-backed /dev/shm (64Mi default)", "zh": "没有基于内存的 /dev/shm（默认 64Mi）"}
	f.params.shmSize == ""
}

# A memory-backed /dev/shm that still ran out: its size limit is the
# cluster's, a parameter of its own.
test_fires_with_sized_memory_shm if {
	pod := testing.pod(testing.failed, {"exec.shm-exhausted.write": testing.match("RuntimeError: unable to write to file </torch_1234_5678_0>: No space left on device (28)")}, {})
	fs := shm_exhausted.findings with input as {"phase": "Failed", "pods": [pod], "replicas": [{"type": "worker", "template": {"shmMemory": true, "shmSizeLimit": "16Gi"}}]}
	some f in fs
	f.params.detail == {"en": "writing to /dev/shm failed for lack of space", "zh": "/dev/shm 空间不足，写入失败"}
	f.params.shm == {"en": "/dev/shm is a memory emptyDir of 16Gi", "zh": "/dev/shm 是大小为 16Gi 的内存 emptyDir"}
	f.params.shmSize == "16Gi"
}

# Ray's warning about a small /dev/shm is not a failure.
test_quiet_on_ray_object_store_warning if {
	pod := testing.pod(testing.running, {}, {})
	count(shm_exhausted.findings) == 0 with input as {"phase": "Running", "pods": [pod], "replicas": []}
	not regex.match(testing.pattern(shm_exhausted.signatures, "exec.shm-exhausted.write"), "WARNING: The object store is using /tmp instead of /dev/shm because /dev/shm has only 67108864 bytes available.")
}

test_fires_signatures if {
	regex.match(testing.pattern(shm_exhausted.signatures, "exec.shm-exhausted.bus"), "ERROR: Unexpected bus error encountered in worker. This might be caused by insufficient shared memory (shm).")
	regex.match(testing.pattern(shm_exhausted.signatures, "exec.shm-exhausted.write"), "RuntimeError: unable to write to file </torch_1234_5678_0>: No space left on device (28)")
	regex.match(testing.pattern(shm_exhausted.signatures, "exec.shm-exhausted.write"), "node-1:77:77 [0] include/shm.h:28 NCCL WARN Call to posix_fallocate failed : No space left on device")
	regex.match(testing.pattern(shm_exhausted.signatures, "exec.shm-exhausted.write"), "NCCL WARN Error: failed to extend /dev/shm/nccl-Xa4b to 9637892 bytes")
}

# Out of file descriptors, not of /dev/shm space.
test_quiet_on_too_many_open_files if {
	pod := testing.pod(testing.failed, {"exec.shm-exhausted.write": testing.match("RuntimeError: unable to open shared memory object </torch_74354_3738061832_2008> in read-write mode: Too many open files (24)")}, {})
	count(shm_exhausted.findings) == 0 with input as {"phase": "Failed", "pods": [pod], "replicas": []}
}

# NCCL could not create its segment because /dev/shm refused access: that
# is exec.permission-denied, not a full /dev/shm.
test_quiet_on_shm_open_permission_denied if {
	pod := testing.pod(
		testing.failed, {
			"ctx.shm-exhausted.denied": testing.match("node08:27106:27302 [0] include/shm.h:27 NCCL WARN Call to shm_open failed : Permission denied"),
			"exec.shm-exhausted.write": testing.match("node08:27106:27302 [0] include/shm.h:48 NCCL WARN Error while creating shared memory segment nccl-shm-recv-b7948f403864987a-0-3-0 (size 4460544)"),
		},
		{},
	)
	count(shm_exhausted.findings) == 0 with input as {"phase": "Failed", "pods": [pod], "replicas": []}
}

test_fires_on_segment_error_without_denial if {
	pod := testing.pod(testing.failed, {"exec.shm-exhausted.write": testing.match("Error while creating shared memory segment /dev/shm/nccl-EoOvZr (size 7340384)")}, {})
	count(shm_exhausted.findings) == 1 with input as {"phase": "Failed", "pods": [pod], "replicas": []}
}
