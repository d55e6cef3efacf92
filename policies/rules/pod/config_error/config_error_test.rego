package traindoc.rules.pod.config_error_test

import data.traindoc.rules.pod.config_error

# Not lib/testing's pod: a Pending pod by name whose container never
# started, in the states each case sets.
_pod(name, state, last) := {
	"name": name, "namespace": "ml", "phase": "Pending", "conditions": [],
	"containers": [{"name": "trainer", "image": "ml/trainer:1.0", "ready": false, "restartCount": 0, "state": state, "lastState": last}],
}

test_fires_missing_secret if {
	st := {"state": "waiting", "reason": "CreateContainerConfigError", "message": `secret "hf-token" not found`}
	fs := config_error.findings with input as {"pods": [_pod("llm-worker-0", st, {})], "events": []}
	count(fs) == 1
	some f in fs
	f.params == {"problem": "secret", "detail": `secret "hf-token" not found`}
	f.subject == {"kind": "Pod", "name": "llm-worker-0", "container": "trainer"}
	f.owner == "user"
}

test_fires_missing_key if {
	st := {"state": "waiting", "reason": "CreateContainerConfigError", "message": "couldn't find key NCCL_SOCKET_IFNAME in ConfigMap ml/nccl-env"}
	fs := config_error.findings with input as {"pods": [_pod("w-0", st, {})], "events": []}
	some f in fs
	f.params.problem == "key"
}

test_fires_torchrun_not_in_path if {
	st := {"state": "waiting", "reason": "CrashLoopBackOff", "message": "back-off 5m0s restarting failed container"}
	last := {
		"state": "terminated", "reason": "StartError", "exitCode": 128,
		"message": `failed to create containerd task: failed to create shim task: OCI runtime create failed: runc create failed: unable to start container process: exec: "torchrun": executable file not found in $PATH: unknown`,
		"finishedAt": "2026-03-01T10:01:00Z",
	}
	fs := config_error.findings with input as {"pods": [_pod("w-0", st, last)], "events": []}
	some f in fs
	f.params.problem == "command"
	f.params.detail == `exec: "torchrun": executable file not found in $PATH`
	f.time == "2026-03-01T10:01:00Z"
}

test_fires_failed_mount_event if {
	st := {"state": "waiting", "reason": "ContainerCreating"}
	e := {
		"type": "Warning", "reason": "FailedMount", "count": 12,
		"message": `MountVolume.SetUp failed for volume "train-config" : configmap "bert-train-config" not found`,
		"object": {"kind": "Pod", "name": "w-0"}, "firstTime": "2026-03-01T10:00:02Z",
	}
	fs := config_error.findings with input as {"pods": [_pod("w-0", st, {})], "events": [e]}
	some f in fs
	f.params.problem == "configmap"
	f.subject == {"kind": "Pod", "name": "w-0"}
}

test_quiet_transient_mount_on_running_pod_silent if {
	st := {"state": "running", "startedAt": "2026-03-01T10:02:00Z"}
	e := {
		"type": "Warning", "reason": "FailedMount", "count": 1,
		"message": `MountVolume.SetUp failed for volume "kube-api-access-x2x9z" : object "ml"/"kube-root-ca.crt" not registered`,
		"object": {"kind": "Pod", "name": "w-0"}, "firstTime": "2026-03-01T10:00:02Z",
	}
	pod := object.union(_pod("w-0", st, {}), {"phase": "Running"})
	fs := config_error.findings with input as {"pods": [pod], "events": [e]}
	count(fs) == 0
}

# runc failing on the node's cgroups is the platform's, though the
# message also holds "no such file or directory" (kubernetes/kubernetes#119403).
test_fires_cgroup_setup_is_runtime if {
	st := {"state": "waiting", "reason": "RunContainerError", "message": `failed to create containerd task: failed to create shim task: OCI runtime create failed: runc create failed: unable to start container process: error during container init: error setting cgroup config for procHooks process: open /sys/fs/cgroup/memory/kubepods.slice/memory.memsw.limit_in_bytes: no such file or directory: unknown`}
	fs := config_error.findings with input as {"pods": [_pod("w-0", st, {})], "events": []}
	some f in fs
	f.params.problem == "runtime"
	f.owner == "platform"
}

# dockershim's older wording of the same (opencontainers/runc#2142).
test_fires_cgroup_dockershim_is_runtime if {
	st := {"state": "waiting", "reason": "RunContainerError", "message": `failed to start container "a52afb440feb": Error response from daemon: OCI runtime create failed: container_linux.go:345: starting container process caused "process_linux.go:430: container init caused \"process_linux.go:396: setting cgroup config for procHooks process caused \\\"failed to write 100000 to cpu.cfs_period_us: invalid argument\\\"\"": unknown`}
	fs := config_error.findings with input as {"pods": [_pod("w-0", st, {})], "events": []}
	some f in fs
	f.params.problem == "runtime"
}

# An empty command (vdesabou/kafka-docker-playground#8515) is the job's.
test_fires_empty_command_start_error if {
	st := {"state": "waiting", "reason": "RunContainerError", "message": "back-off"}
	last := {"state": "terminated", "reason": "StartError", "exitCode": 128, "message": `failed to create containerd task: failed to create shim task: OCI runtime create failed: runc create failed: unable to start container process: error during container init: exec: "": executable file not found in $PATH`}
	fs := config_error.findings with input as {"pods": [_pod("w-0", st, last)], "events": []}
	some f in fs
	f.params.problem == "command"
	f.owner == "user"
}

# Kubernetes 1.8 capitalised the missing key (contiv/install#324).
test_fires_capitalised_missing_key if {
	st := {"state": "waiting", "reason": "CreateContainerConfigError", "message": "Couldn't find key contiv_etcd in ConfigMap kube-system/contiv-config"}
	fs := config_error.findings with input as {"pods": [_pod("w-0", st, {})], "events": []}
	some f in fs
	f.params.problem == "key"
}

# "Unable to attach or mount volumes" names the volume that did not mount.
test_fires_unmounted_volume_is_mount if {
	e := {
		"type": "Warning", "reason": "FailedMount", "count": 12,
		"message": "Unable to attach or mount volumes: unmounted volumes=[ckpt], unattached volumes=[ckpt dshm kube-api-access-x2]: timed out waiting for the condition",
		"object": {"kind": "Pod", "name": "w-0"}, "firstTime": "2026-03-01T10:00:00Z",
	}
	fs := config_error.findings with input as {"pods": [], "events": [e]}
	some f in fs
	f.params.problem == "mount"
}
