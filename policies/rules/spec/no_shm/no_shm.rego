# METADATA
# title: Pods whose processes share memory without a memory-backed /dev/shm
# description: |
#   PyTorch DataLoader workers pass batches to the training process through
#   shared memory, and the ranks a launcher starts in one pod (torchrun
#   --nproc_per_node, one process per GPU) exchange tensors and NCCL
#   buffers through it. A container's /dev/shm is 64 MiB unless the pod
#   mounts a memory-backed emptyDir there (or shares the host's IPC
#   namespace), so these fail with "Bus error" or "DataLoader worker ...
#   killed" once batches grow. The rule speaks only when the pod plausibly
#   runs several such processes: more than one GPU per pod, more than one
#   process per pod (nprocPerNode, --nproc_per_node, PET_NPROC_PER_NODE),
#   or DataLoader workers on the command line (--num_workers,
#   --dataloader_num_workers, --workers); a single process on one GPU or on
#   CPUs, with no such hint, hardly uses /dev/shm. This is a risk until it
#   bites: the shared-memory failure itself is reported by another rule.
# custom:
#   severity: warning
#   owner: user
#   message:
#     en: "The {{.groups}} pods run several processes that share memory but mount no memory-backed volume at /dev/shm (64 MiB by default)."
#     zh: "{{.groups}} 的 Pod 运行多个共享内存的进程，但没有在 /dev/shm 挂载内存卷（默认只有 64 MiB）。"
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
#     title: 进程共享内存的 Pod 没有内存型 /dev/shm
#     description: |
#       PyTorch 的 DataLoader worker 通过共享内存把数据批次传给训练进程，启动器在同一个 Pod 中启动的各个 rank（torchrun --nproc_per_node，每块 GPU 一个进程）也通过它交换张量和 NCCL 缓冲区。除非 Pod 在 /dev/shm 挂载了内存型 emptyDir（或共享宿主机的 IPC 命名空间），容器的 /dev/shm 只有 64 MiB，批次一大就会报 "Bus error" 或 "DataLoader worker ... killed"。只有当 Pod 很可能运行多个这样的进程时本规则才会报告：每个 Pod 多于一块 GPU、每个 Pod 多于一个进程（nprocPerNode、--nproc_per_node、PET_NPROC_PER_NODE），或命令行中指定了 DataLoader worker（--num_workers、--dataloader_num_workers、--workers）；单块 GPU 或只用 CPU 的单进程 Pod 在没有这些迹象时几乎不使用 /dev/shm。在真正出错之前这只是风险；共享内存耗尽的故障本身由另一条规则报告。
package traindoc.rules.spec.no_shm

import data.traindoc.lib.k8s
import data.traindoc.lib.launch

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
	count(object.get(t, "containers", [])) > 0
	not t.shmMemory
	not t.hostIPC
	count(_sharing(g)) > 0
	not _template_incomplete(g)
}

# A template without GPUs whose pods have them is not the whole pod spec:
# a training runtime or a webhook added to it (Kubeflow Trainer's runtimes
# add resources and volumes to the JobSet's pods), so a /dev/shm missing
# from it says nothing about the pods.
_template_incomplete(g) if {
	object.get(g.template, "gpuLimit", 0) == 0
	some pod in input.pods
	object.get(pod, "replicaType", "") == g.type
	some c in object.get(pod, "containers", [])
	some k in ["nvidia.com/gpu", "amd.com/gpu"]
	to_number(object.get(c, ["limits", k], "0")) > 0
}

# _sharing(g) is why a replica's pods plausibly run several processes that
# share memory, as "setting=value" texts; empty for a single process.
_sharing(g) := array.concat(array.concat(_gpus(g), _procs(g)), _workers(g))

# One process per GPU is how every launcher runs data-parallel training.
_gpus(g) := [sprintf("nvidia.com/gpu limit=%d", [n])] if {
	n := object.get(g.template, "gpuLimit", 0)
	n > 1
} else := []

_procs(g) := [sprintf("%s=%d", [x[1], x[0]])] if {
	x := launch.nproc(g)
	x[0] > 1
} else := []

_workers(g) := [sprintf("%s=%d", [x[1], x[0]])] if {
	x := launch.loader_workers(g)
} else := []

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
			e := k8s.field_evidence(k8s.job_ref, sprintf("replicas[%s].template.volumes", [name]), sprintf("no emptyDir with medium Memory mounted at /dev/shm, hostIPC not set; %s", [concat(", ", _sharing(g))]))
		],
		"time": object.get(input, "createdAt", ""),
	}
}
