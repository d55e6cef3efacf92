# Helpers for host memory and storage, shared by the rules that must agree
# on them: a container killed for host memory is exec.oom-killed and never
# also exec.killed; a "No space left on device" is about /dev/shm
# (exec.shm-exhausted) or about a disk (exec.disk-full), never both.
# This package emits no findings.
package traindoc.lib.resources

import data.traindoc.lib.exec
import data.traindoc.lib.k8s

# --- Host memory -----------------------------------------------------------

# Kernel log lines, when a dmesg dump or a sidecar ends up in a log.
signatures contains {
	"id": "exec.oom-killed.kernel",
	"pattern": `Out of memory: Kill(?:ed)? process \d+|Memory cgroup out of memory: Kill(?:ed)? process|oom-kill:constraint=|oom_reaper: reaped process \d+`,
}

# Ray's memory monitor and its periodic summary. (Not the worker-death
# message that lists the OOM killer as one possible cause among others.)
signatures contains {
	"id": "exec.oom-killed.ray",
	"pattern": `ray\.exceptions\.OutOfMemoryError|RayTaskError\(OutOfMemoryError\)|Task was killed due to the node running low on memory|[1-9]\d* Workers \(tasks / actors\) killed due to memory pressure \(OOM\)`,
}

# A DataLoader worker SIGKILLed: the kernel OOM killer picks the biggest
# process of the cgroup, often a worker holding decoded samples.
signatures contains {
	"id": "exec.oom-killed.dataloader",
	"pattern": `DataLoader worker \(pids?\(?s?\)?[\d, ]+\) is killed by signal: Killed`,
}

# log_oom_ids are the log signatures that say the kernel or Ray killed a
# process for lack of host memory.
log_oom_ids := {"exec.oom-killed.kernel", "exec.oom-killed.ray", "exec.oom-killed.dataloader"}

# Kernel wordings, in node events (node-problem-detector's OOMKilling, the
# kubelet's SystemOOM) and in dmesg dumps collected from a pod.
_kernel_oom := `(?:Memory cgroup out of memory|Out of memory): Kill(?:ed)? process \d+|oom-kill:constraint=|System OOM encountered|oom_reaper: reaped process|invoked oom-killer`

_oom_reasons := {"OOMKilling", "SystemOOM", "CgroupOOM", "OOMKill"}

# oom_state is the terminated state of a container with reason OOMKilled.
oom_state(c) := c.state if c.state.reason == "OOMKilled"

else := c.lastState if c.lastState.reason == "OOMKilled"

# terminations are a container's terminated states that ended badly.
terminations(c) := [s |
	some which in ["state", "lastState"]
	s := c[which]
	s.state == "terminated"
	k8s.exit_code(s) != 0
]

# event_oom(pod, c) are OOM-kill events that concern the container: about
# the pod itself, or about its node, first seen within ten minutes before
# and two minutes after one of its bad terminations, and not naming
# another pod's cgroup.
event_oom(pod, c) := [e |
	some e in _oom_events
	_event_scope(pod, e)
	not _other_pod_cgroup(pod, e.message)
	some s in terminations(c)
	_near(e, object.get(s, "finishedAt", ""))
]

# _oom_events are the job's OOM-kill events in input order, found once per
# evaluation instead of once per container.
_oom_events := [e | some e in input.events; _oom_event(e)]

_oom_event(e) if e.reason in _oom_reasons

_oom_event(e) if regex.match(_kernel_oom, object.get(e, "message", ""))

_event_scope(pod, e) if {
	e.object.kind == "Pod"
	e.object.name == pod.name
}

_event_scope(pod, e) if {
	e.object.kind == "Node"
	e.object.name == object.get(pod, "nodeName", "")
}

# The kernel's cgroup path names the pod: "kubepods-burstable-pod<uid>.slice"
# (systemd driver, dashes as underscores) or "/kubepods/burstable/pod<uid>".
_other_pod_cgroup(pod, msg) if {
	some m in regex.find_all_string_submatch_n(`pod([0-9a-f]{8}[-_][0-9a-f]{4}[-_][0-9a-f]{4}[-_][0-9a-f]{4}[-_][0-9a-f]{12})`, msg, -1)
	replace(m[1], "_", "-") != object.get(pod, "uid", "")
}

_near(e, finished) if {
	finished != ""
	f := time.parse_rfc3339_ns(finished)
	first := time.parse_rfc3339_ns(k8s.event_time(e))
	last := time.parse_rfc3339_ns(object.get(e, "lastTime", k8s.event_time(e)))
	last >= f - (600 * 1000000000)
	first <= f + (120 * 1000000000)
}

# exec_oom(pod) are lines of the pod's collected command outputs that show
# an OOM kill: a dmesg dump's kernel lines about a training process or
# this pod's cgroup, or a cgroup counter (memory.events "oom_kill 2").
exec_oom(pod) := [[o, line] |
	some o in object.get(pod, ["exec", "other"], [])
	some line in split(o.text, "\n")
	_exec_oom_line(pod, line)
]

_exec_oom_line(pod, line) if {
	regex.match(_kernel_oom, line)
	not _other_pod_cgroup(pod, line)
	_ours(pod, line)
}

_exec_oom_line(_, line) if regex.match(`^\s*oom_kill\s+[1-9]\d*\s*$`, line)

_ours(pod, line) if contains(line, object.get(pod, "uid", "-no-uid-"))

_ours(_, line) if regex.match(`(?:process \d+|task=)[ (]*(?:python[\d.]*|pt_main_thread|pt_data_worker|pt_autograd_\d+|torchrun|deepspeed|accelerate|ray::[\w.]+|raylet|java|tritonserver)\b`, line)

# hit_ours holds for a log hit that speaks about this pod: any hit in the
# container's own logs, and in a command output collected from the pod (a
# dmesg dump holds the whole node's kernel log) only a line exec_oom
# would count.
hit_ours(_, h) if not h.log.exec

hit_ours(pod, h) if {
	h.log.exec
	some s in object.get(h.m, "samples", [])
	_exec_oom_line(pod, s.text)
}

# host_oom holds when there is evidence that the kernel (or Ray) killed a
# process of the container for lack of host memory.
host_oom(pod, c) if oom_state(c)

host_oom(pod, c) if exec.has_hit(pod, c, log_oom_ids)

host_oom(pod, c) if count(event_oom(pod, c)) > 0

host_oom(pod, c) if {
	count(terminations(c)) > 0
	count(exec_oom(pod)) > 0
}

# --- Storage ---------------------------------------------------------------

# Every "No space left on device" (ENOSPC, [Errno 28], a disk quota), with
# the lines before it: whether it is /dev/shm or a disk is decided from the
# path, the call that failed and the pod's df output.
signatures contains {
	"id": "exec.enospc",
	"pattern": `(?i:no space left on device)|\bENOSPC\b|\[Errno 28\]|StorageFull|Disk quota exceeded|\[Errno 122\]|\bEDQUOT\b`,
	"context": 8,
}

# Lines that put the write on shared memory.
_shm_line := `/dev/shm|</torch_|\btorch_\d+_\d+|nccl-[A-Za-z0-9]{6}\b|shm_open|posix_fallocate|[Ss]hared memory|SemLock|_multiprocessing`

# Calls before it that only write to shared memory: multiprocessing
# semaphores and queues, torch's tensor sharing, NCCL's segments.
_shm_context := `SemLock|_multiprocessing\.|multiprocessing[/\\](?:synchronize|queues|heap|shared_memory|reduction)\.py|torch[/\\]multiprocessing[/\\]reductions\.py|_share_(?:fd|filename)_|/dev/shm|shm_open|shmutils`

# A path of the failed write that is not /dev/shm.
_disk_path(text) := p if {
	some m in regex.find_all_string_submatch_n(`(?:'|")(/[^'"]+)(?:'|")|\s(/(?:checkpoints?|ckpt|mnt|data|output|outputs|workspace|home|root|scratch|models|cache|tmp|var|opt)[^\s:'",)]*)`, text, -1)
	p := concat("", [m[1], m[2]])
	not startswith(p, "/dev/shm")
}

# enospc_on_shm holds when a "No space left on device" sample is about
# /dev/shm: the line says so, or it names no disk path and the calls
# before it are shared-memory ones, or the pod's df shows /dev/shm full
# and no other mount full.
enospc_on_shm(_, s) if regex.match(_shm_line, s.text)

enospc_on_shm(_, s) if {
	not _disk_path(s.text)
	some b in object.get(s, "before", [])
	regex.match(_shm_context, b)
}

enospc_on_shm(pod, s) if {
	not _disk_path(s.text)
	not _disk_context(s)
	full := full_mounts(pod)
	"/dev/shm" in full
	count(full) == 1
}

_disk_context(s) if {
	some b in object.get(s, "before", [])
	regex.match(`torch[/\\]serialization\.py|write_record|save_pretrained|safetensors|save_checkpoint|checkpoint|shutil|\.save\(`, b)
}

# full_mounts are the mount points a pod's df output (exec/<pod>/df.txt)
# shows at 99% or more.
full_mounts(pod) := {m[2] |
	some o in object.get(pod, ["exec", "other"], [])
	regex.match(`^df`, o.name)
	some line in split(o.text, "\n")
	m := regex.find_all_string_submatch_n(`^\S+(?:\s+\S+){3}\s+(\d+)%\s+(/\S*)\s*$`, line, 1)[0]
	to_number(m[1]) >= 99
}

# enospc_path is the directory a disk-full sample wrote to, else a full
# mount the df output shows, else "".
enospc_path(pod, s) := p if {
	p := _disk_path(s.text)
} else := p if {
	some p in full_mounts(pod)
	p != "/dev/shm"
} else := ""

# df_evidence is the df line of a full mount, as evidence.
df_evidence(pod, mount) := [{
	"kind": "exec",
	"source": sprintf("pod %s %s", [pod.name, o.name]),
	"object": k8s.pod_ref(pod),
	"file": o.file,
	"text": line,
} |
	some o in object.get(pod, ["exec", "other"], [])
	regex.match(`^df`, o.name)
	some line in split(o.text, "\n")
	endswith(trim_space(line), sprintf(" %s", [mount]))
]
