# METADATA
# title: A disk is full
# description: |
#   A write failed because a filesystem (not /dev/shm) ran out of space or
#   quota: "No space left on device" (ENOSPC, Errno 28), "Disk quota
#   exceeded", torch.save failing with "file write failed", or a library
#   refusing to write for lack of space (Hugging Face datasets' "Not enough
#   disk space", Ray's OutOfDiskError). Whether a
#   bare "[Errno 28]" is a disk or /dev/shm is decided from the path, the
#   call that failed and the pod's df output. Usually checkpoints, caches or
#   logs filling a PVC, the container's ephemeral storage or the node disk.
# custom:
#   severity: error
#   owner: user
#   message:
#     en: "A disk ran out of space{{if .path}} ({{.path}}){{end}}."
#     zh: "磁盘空间已满{{if .path}}（{{.path}}）{{end}}。"
#   remediation:
#     en: |
#       - Find which filesystem: `df -h` in the pod; checkpoints go to the PVC, caches (`HF_HOME`, `TRITON_CACHE_DIR`, `~/.cache`) and `/tmp` to ephemeral storage.
#       - Keep fewer checkpoints (`save_total_limit`, delete old `global_step*` folders) or write them to a larger volume or object storage.
#       - Point caches and temporary files at a volume with room, and set an `ephemeral-storage` request/limit that matches.
#       - If the node's disk is full, the kubelet will also evict pods: clean the node or move to larger root volumes.
#     zh: |
#       - 先确定是哪个文件系统：在 Pod 中运行 `df -h`；检查点写入 PVC，缓存（`HF_HOME`、`TRITON_CACHE_DIR`、`~/.cache`）和 `/tmp` 写入临时存储。
#       - 保留更少的检查点（`save_total_limit`，删除旧的 `global_step*` 目录），或写到更大的卷或对象存储。
#       - 把缓存和临时文件指向有空间的卷，并设置相应的 `ephemeral-storage` request/limit。
#       - 如果是节点磁盘满了，kubelet 也会驱逐 Pod：清理节点或使用更大的根卷。
#   zh:
#     title: 磁盘已满
#     description: |
#       因文件系统（不是 /dev/shm）空间或配额耗尽而写入失败："No space left on device"（ENOSPC、Errno 28）、"Disk quota exceeded"、torch.save 报 "file write failed"，或某个库因空间不足而拒绝写入（Hugging Face datasets 的 "Not enough disk space"、Ray 的 OutOfDiskError）。不带路径的 "[Errno 28]" 是磁盘还是 /dev/shm，由路径、失败的调用和 Pod 的 df 输出判断。通常是检查点、缓存或日志写满了 PVC、容器临时存储或节点磁盘。
package traindoc.rules.exec.disk_full

import data.traindoc.lib.exec
import data.traindoc.lib.k8s
import data.traindoc.lib.python
import data.traindoc.lib.resources

# torch.save's zip writer failing mid-file: the disk filled up under it
# (the ENOSPC itself is swallowed by the C++ writer).
signatures contains {
	"id": "exec.disk-full.torch-save",
	"pattern": `PytorchStreamWriter failed writing file .*file write failed|unexpected pos \d+ vs \d+`,
}

# Libraries that check free space themselves and refuse before writing:
# Hugging Face datasets before preparing a dataset, Ray when spilling
# objects onto a disk over its capacity threshold.
signatures contains {
	"id": "exec.disk-full.reported",
	"pattern": `Not enough disk space\. Needed: |OutOfDiskError|Local disk is full`,
}

_ids := {"exec.enospc", "exec.disk-full.torch-save", "exec.disk-full.reported"}

# The decisive samples that are not about /dev/shm, as [hit, sample].
_disk(pod, c) := [[h, s] |
	some h in python.decisive_hits(pod, c, exec.hits(pod, c, _ids))
	some s in h.m.samples
	not resources.enospc_on_shm(pod, s)
]

findings contains f if {
	some pod in input.pods
	some c in k8s.containers(pod)
	ds := _disk(pod, c)
	count(ds) > 0
	first := ds[0]
	path := _dir(resources.enospc_path(pod, first[1]))
	f := {
		"subject": exec.subject(pod, c),
		"params": {"path": path},
		"evidence": array.slice(
			array.concat(
				[exec.sample_evidence(pod, c, x[0].log, x[0].m, x[1]) | some x in ds],
				resources.df_evidence(pod, _mount(pod, path)),
			),
			0, 4,
		),
		"time": exec.hit_time(c, first[0]),
	}
}

_mount(pod, path) := m if {
	some m in resources.full_mounts(pod)
	m != "/dev/shm"
	startswith(path, m)
} else := "-"

# The directory of the file, so that ranks writing different files merge;
# a mount point from df is kept as it is.
_dir("") := ""

_dir(p) := p if {
	p != ""
	some m in resources.full_mounts(input.pods[_])
	p == m
}

_dir(p) := concat("/", array.slice(parts, 0, count(parts) - 1)) if {
	p != ""
	not _is_mount(p)
	parts := split(p, "/")
	count(parts) > 2
}

_dir(p) := p if {
	p != ""
	not _is_mount(p)
	count(split(p, "/")) <= 2
}

_is_mount(p) if {
	some pod in input.pods
	p in resources.full_mounts(pod)
}
