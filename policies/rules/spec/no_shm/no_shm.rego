# METADATA
# title: GPU training pods without a memory-backed /dev/shm
# description: |
#   PyTorch data loader workers pass batches to the training process through
#   shared memory. A container's /dev/shm is 64 MiB unless the pod mounts a
#   memory-backed emptyDir there (or shares the host's IPC namespace), so
#   multi-worker data loading fails with "Bus error" or "DataLoader worker
#   ... killed" once batches grow. This is a risk until it bites: the
#   shared-memory failure itself is reported by another rule.
# custom:
#   severity: warning
#   owner: user
#   message:
#     en: "The {{.groups}} pods use GPUs but mount no memory-backed volume at /dev/shm (64 MiB by default)."
#     zh: "{{.groups}} 的 Pod 使用 GPU，但没有在 /dev/shm 挂载内存卷（默认只有 64 MiB）。"
#   remediation:
#     en: |
#       - Add a memory-backed emptyDir and mount it at /dev/shm in the training container:
#         `volumes: [{name: dshm, emptyDir: {medium: Memory, sizeLimit: 32Gi}}]` and `volumeMounts: [{name: dshm, mountPath: /dev/shm}]`.
#       - Size it for `num_workers x prefetch_factor x batch size`; it counts against the pod's memory limit.
#       - If you cannot change the pod, set `num_workers=0` in the DataLoader (slower, but no shared memory).
#     zh: |
#       - 添加一个内存型 emptyDir 并挂载到训练容器的 /dev/shm：
#         `volumes: [{name: dshm, emptyDir: {medium: Memory, sizeLimit: 32Gi}}]` 以及 `volumeMounts: [{name: dshm, mountPath: /dev/shm}]`。
#       - 按 `num_workers x prefetch_factor x batch size` 估算大小；这部分内存计入 Pod 的内存 limit。
#       - 如果无法修改 Pod，可在 DataLoader 中设置 `num_workers=0`（变慢，但不再使用共享内存）。
#   zh:
#     title: GPU 训练 Pod 没有内存型 /dev/shm
#     description: |
#       PyTorch 的 DataLoader worker 通过共享内存把数据批次传给训练进程。除非 Pod 在 /dev/shm 挂载了内存型 emptyDir（或共享宿主机的 IPC 命名空间），容器的 /dev/shm 只有 64 MiB，批次一大，多 worker 数据加载就会报 "Bus error" 或 "DataLoader worker ... killed"。在真正出错之前这只是风险；共享内存耗尽的故障本身由另一条规则报告。
package traindoc.rules.spec.no_shm

import data.traindoc.lib.k8s

# Kinds whose pods run PyTorch data loading. KubeRay mounts a memory-backed
# /dev/shm itself, and MPIJob and TFJob usually run other frameworks.
_pytorch_kinds := {"PyTorchJob", "PyTorchTrainingJob", "TrainJob"}

# The risk matters for jobs that run or failed; a job that succeeded
# showed it did not bite, and one that never started has other problems.
_bare contains g if {
	input.kind in _pytorch_kinds
	object.get(input, "phase", "") in {"Running", "Failed"}
	some g in input.replicas
	t := g.template
	object.get(t, "gpuLimit", 0) > 0
	count(object.get(t, "containers", [])) > 0
	not t.shmMemory
	not t.hostIPC
}

findings contains f if {
	count(_bare) > 0
	names := sort({g.type | some g in _bare})
	f := {
		"subject": {"kind": input.kind, "name": input.name},
		"params": {"groups": concat(", ", names)},
		"evidence": [e |
			some name in names
			some g in _bare
			g.type == name
			e := k8s.field_evidence(k8s.job_ref, sprintf("replicas[%s].template.volumes", [name]), sprintf("no emptyDir with medium Memory mounted at /dev/shm, hostIPC not set, nvidia.com/gpu limit=%d", [g.template.gpuLimit]))
		],
		"time": object.get(input, "createdAt", ""),
	}
}
