# METADATA
# title: Shared memory (/dev/shm) exhausted
# description: |
#   DataLoader workers or NCCL ran out of shared memory: "Bus error",
#   "DataLoader worker ... is killed by signal: Bus error", "unable to write
#   to file </torch_...>", "No space left on device" under /dev/shm (also
#   a bare "[Errno 28]" raised while multiprocessing creates a semaphore or
#   queue, or one the pod's df shows /dev/shm full for), or NCCL failing to
#   extend /dev/shm segments. Containers get a 64 MiB /dev/shm unless a
#   memory-backed emptyDir is mounted there.
# custom:
#   severity: error
#   owner: user
#   message:
#     en: "Shared memory ran out: {{.detail.en}} ({{.shm.en}})."
#     zh: "共享内存耗尽：{{.detail.zh}}（{{.shm.zh}}）。"
#   remediation:
#     en: |
#       - Mount a memory-backed emptyDir at /dev/shm in every training container: `volumes: [{name: dshm, emptyDir: {medium: Memory, sizeLimit: 16Gi}}]` and `volumeMounts: [{name: dshm, mountPath: /dev/shm}]`; count it against the memory limit.
#       - Lower DataLoader `num_workers`, `prefetch_factor` and batch size if the size cannot grow.
#       - As a last resort, `torch.multiprocessing.set_sharing_strategy('file_system')`.
#     zh: |
#       - 在每个训练容器的 /dev/shm 挂载基于内存的 emptyDir：`volumes: [{name: dshm, emptyDir: {medium: Memory, sizeLimit: 16Gi}}]` 与 `volumeMounts: [{name: dshm, mountPath: /dev/shm}]`；它计入内存上限。
#       - 如果无法增大，降低 DataLoader 的 `num_workers`、`prefetch_factor` 和 batch size。
#       - 最后手段：`torch.multiprocessing.set_sharing_strategy('file_system')`。
#   zh:
#     title: 共享内存（/dev/shm）耗尽
#     description: |
#       DataLoader worker 或 NCCL 耗尽了共享内存："Bus error"、"DataLoader worker ... is killed by signal: Bus error"、"unable to write to file </torch_...>"、/dev/shm 下的 "No space left on device"（也包括 multiprocessing 创建信号量或队列时抛出的 "[Errno 28]"，或 Pod 的 df 显示 /dev/shm 已满时的同类错误），或 NCCL 无法扩展 /dev/shm 段。除非在 /dev/shm 挂载了基于内存的 emptyDir，容器只有 64 MiB 的 /dev/shm。
package traindoc.rules.exec.shm_exhausted

import data.traindoc.lib.exec
import data.traindoc.lib.k8s
import data.traindoc.lib.python
import data.traindoc.lib.resources

# PyTorch 0.4-2.x DataLoader wordings and a shell's "Bus error (core dumped)".
signatures contains {
	"id": "exec.shm-exhausted.bus",
	"pattern": `Bus error|killed by signal: Bus error|Unexpected bus error encountered in worker|insufficient shared memory \(shm\)|out of shared memory`,
}

# Writes to /dev/shm that failed: torch's shared tensors, NCCL's segments.
signatures contains {
	"id": "exec.shm-exhausted.write",
	"pattern": `unable to (?:write to file|open shared memory object|mmap \d+ bytes from file) </torch_|/dev/shm[^\n]*No space left on device|No space left on device[^\n]*/dev/shm|failed to extend /dev/shm|Error while creating shared memory segment|posix_fallocate failed ?: ?No space left`,
}

_no_space := {"en": "writing to /dev/shm failed for lack of space", "zh": "/dev/shm 空间不足，写入失败"}

_detail := {
	"exec.shm-exhausted.bus": {
		"en": "a process died with a bus error while using shared memory",
		"zh": "一个进程在使用共享内存时因总线错误（Bus error）终止",
	},
	"exec.shm-exhausted.write": _no_space,
	"exec.enospc": _no_space,
	"launcher.sigbus": {"en": "a training process died of SIGBUS", "zh": "一个训练进程死于 SIGBUS"},
}

# The size limits of the memory emptyDirs at /dev/shm, by replica ("" for
# none).
_shm_limits := [object.get(r, ["template", "shmSizeLimit"], "") |
	some r in input.replicas
	object.get(r, ["template", "shmMemory"], false)
]

# The size limit is the cluster's words: a parameter of its own (shmSize)
# as well as part of the phrase.
_shm_size := _shm_limits[0] if count(_shm_limits) > 0

else := ""

# What /dev/shm is, in both languages of the message.
_shm := {
	"en": sprintf("/dev/shm is a memory emptyDir of %s", [_shm_size]),
	"zh": sprintf("/dev/shm 是大小为 %s 的内存 emptyDir", [_shm_size]),
} if {
	_shm_size != ""
} else := {
	"en": "/dev/shm is a memory emptyDir of unlimited size",
	"zh": "/dev/shm 是不限大小的内存 emptyDir",
} if {
	count(_shm_limits) > 0
} else := {
	"en": "no memory-backed /dev/shm (64Mi default)",
	"zh": "没有基于内存的 /dev/shm（默认 64Mi）",
}

_shm_params := {"shm": _shm, "shmSize": _shm_size}

# A "No space left on device" counts here only when it is about /dev/shm
# (see resources.enospc_on_shm); it is then reduced to those samples.
_hits(pod, c) := [h |
	some h0 in exec.hits(pod, c, object.keys(_detail))
	h := _shm_only(pod, c, h0)
]

_shm_only(_, _, h) := h if not h.id in {"exec.enospc", "exec.shm-exhausted.write"}

# torch cannot open a shared tensor's file because the process ran out of
# file descriptors ("...in read-write mode: Too many open files (24)"):
# that is the open-files limit, not /dev/shm space.
_shm_only(pod, c, h) := object.union(h, {"m": object.union(h.m, {"samples": ss})}) if {
	h.id == "exec.shm-exhausted.write"
	ss := [s | some s in h.m.samples; not _not_space(pod, c, s.text)]
	count(ss) > 0
}

_not_space(_, _, text) if regex.match(`Too many open files|\[Errno 24\]`, text)

# NCCL could not create its segment because /dev/shm refused it
# ("Call to shm_open failed : Permission denied"): a permission problem,
# which exec.permission-denied reports, not a full /dev/shm.
_not_space(pod, c, text) if {
	contains(text, "Error while creating shared memory segment")
	exec.has_hit(pod, c, {"ctx.shm-exhausted.denied"})
}

signatures contains {
	"id": "ctx.shm-exhausted.denied",
	"pattern": `shm_open failed ?: ?Permission denied`,
	"hint": "shm_open failed",
}

_shm_only(pod, c, h) := object.union(h, {"m": object.union(h.m, {"samples": ss})}) if {
	h.id == "exec.enospc"
	some d in python.decisive_hits(pod, c, [h])
	ss := [s | some s in d.m.samples; resources.enospc_on_shm(pod, s)]
	count(ss) > 0
}

findings contains f if {
	some pod in input.pods
	some c in k8s.containers(pod)
	hs := _hits(pod, c)
	count(hs) > 0
	_shm_evidence(pod, c, hs)
	f := {
		"subject": exec.subject(pod, c),
		"params": object.union({"detail": _detail[hs[0].id]}, _shm_params),
		"evidence": array.concat(exec.evidence(pod, c, hs), resources.df_evidence(pod, _full_shm(pod))),
		"time": exec.hit_time(c, hs[0]),
	}
}

_full_shm(pod) := "/dev/shm" if "/dev/shm" in resources.full_mounts(pod)

else := "-"

# A SIGBUS alone counts only without any other failure signature.
_shm_evidence(_, _, hs) if {
	some h in hs
	h.id != "launcher.sigbus"
}

_shm_evidence(pod, c, _) if not exec.specific_hit(pod, c)

# Exit code 135 (128 + SIGBUS) with nothing else in the logs.
findings contains f if {
	input.phase != "Succeeded"
	some pod in input.pods
	some c in k8s.containers(pod)
	some which in ["state", "lastState"]
	s := c[which]
	s.state == "terminated"
	k8s.exit_code(s) == 135
	not exec.specific_hit(pod, c)
	f := {
		"subject": exec.subject(pod, c),
		"params": object.union({"detail": {"en": "the container exited with SIGBUS (exit code 135)", "zh": "容器因 SIGBUS 退出（退出码 135）"}}, _shm_params),
		"evidence": [k8s.state_evidence(pod, c, which, s)],
		"time": exec.state_time(c, s),
	}
}
