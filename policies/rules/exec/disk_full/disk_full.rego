# METADATA
# title: A disk is full
# description: |
#   A write failed because a filesystem (not /dev/shm) ran out of space or
#   quota: "No space left on device" (ENOSPC, Errno 28), "Disk quota
#   exceeded", or torch.save failing with "file write failed". Usually
#   checkpoints, caches or logs filling a PVC, the container's ephemeral
#   storage or the node disk.
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
#       因文件系统（不是 /dev/shm）空间或配额耗尽而写入失败："No space left on device"（ENOSPC、Errno 28）、"Disk quota exceeded"，或 torch.save 报 "file write failed"。通常是检查点、缓存或日志写满了 PVC、容器临时存储或节点磁盘。
package traindoc.rules.exec.disk_full

import data.traindoc.lib.exec
import data.traindoc.lib.k8s

signatures contains {
	"id": "exec.disk-full",
	"pattern": `No space left on device|ENOSPC|\[Errno 28\]|Disk quota exceeded|\[Errno 122\]|PytorchStreamWriter failed writing file|unexpected pos \d+ vs \d+`,
}

# Shared memory belongs to exec.shm-exhausted.
_shm := `/dev/shm|</torch_|torch_\d+_\d+|nccl-|shared memory|posix_fallocate|unable to write to file <`

_texts(h) := [s.text | some s in object.get(h.m, "samples", []); not regex.match(_shm, s.text)]

_path(t) := m[0][1] if {
	m := regex.find_all_string_submatch_n(`(?:No space left on device|Disk quota exceeded): '([^']+)'`, t, 1)
	count(m) > 0
} else := ""

findings contains f if {
	some pod in input.pods
	some c in k8s.containers(pod)
	hs := [h | some h in exec.hits(pod, c, {"exec.disk-full"}); count(_texts(h)) > 0]
	count(hs) > 0
	t := _texts(hs[0])[0]
	f := {
		"subject": exec.subject(pod, c),
		"params": {"path": _dir(_path(t))},
		"evidence": [exec.sample_evidence(pod, c, h.log, h.m, s) |
			some h in hs
			some s in h.m.samples
			not regex.match(_shm, s.text)
		],
		"time": exec.hit_time(c, hs[0]),
	}
}

# The directory of the file, so that ranks writing different files merge.
_dir("") := ""

_dir(p) := concat("/", array.slice(parts, 0, count(parts) - 1)) if {
	p != ""
	parts := split(p, "/")
	count(parts) > 2
}

_dir(p) := p if {
	p != ""
	count(split(p, "/")) <= 2
}
