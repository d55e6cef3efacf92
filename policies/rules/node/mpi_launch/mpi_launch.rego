# METADATA
# title: The MPI launcher could not start or reach its processes on the workers
# description: |
#   mpirun (Open MPI's ORTE or PRRTE, MPICH and Intel MPI's Hydra), as the
#   launcher of an MPIJob or a Horovod or DeepSpeed job, could not start its
#   daemons on the workers or lost them: ssh could not resolve or reach a
#   worker ("ssh: Could not resolve hostname", "connect to host ... port
#   22: Connection refused"), "ORTE was unable to reliably start one or more
#   daemons", a daemon died while launching, or "ORTE has lost
#   communication with a remote daemon" mid-run. At start-up it is usually
#   a race with worker pods, their DNS records or sshd that are not ready
#   yet; mid-run it follows the loss of a worker (its pod, node or network).
#   An ssh key that is refused ("Permission denied (publickey)") is a
#   permission error, reported as such.
# custom:
#   category: exec.rendezvous-failure
#   severity: error
#   owner: platform
#   message:
#     en: "The MPI launcher could not start or reach its processes on the workers: {{.what.en}}{{if .peer}} (worker {{.peer}}){{end}}."
#     zh: "MPI 启动器无法在 worker 上启动或连接其进程：{{.what.zh}}{{if .peer}}（worker {{.peer}}）{{end}}。"
#   remediation:
#     en: |
#       - At start-up: make sure every worker pod is Running and its DNS name resolves before mpirun starts (mpi-operator v2 waits for workers with `launcherCreationPolicy: WaitForWorkersReady`; in older setups add an init container that waits for `getent hosts <worker>.<service>`), and that sshd is running in the worker image.
#       - Check the hostfile (`/etc/mpi/hostfile`) names the workers' `<pod>.<service>.<namespace>.svc` names and that the headless service exists.
#       - Mid-run ("lost communication with a remote daemon"): look at the worker it names: its pod may have been OOM-killed, evicted or lost with its node; that finding is the cause.
#       - Network policies or a service mesh sidecar can block port 22 and the ORTE ports between launcher and workers: allow them.
#     zh: |
#       - 启动阶段：确保 mpirun 启动前所有 worker Pod 都处于 Running 且其 DNS 名称可以解析（mpi-operator v2 可用 `launcherCreationPolicy: WaitForWorkersReady` 等待 worker；旧部署可加一个 init 容器执行 `getent hosts <worker>.<service>` 等待），并确认 worker 镜像中运行了 sshd。
#       - 检查 hostfile（`/etc/mpi/hostfile`）中列出的是 worker 的 `<pod>.<service>.<namespace>.svc` 名称，并确认无头服务存在。
#       - 运行中出现 "lost communication with a remote daemon"：查看其中提到的 worker：该 Pod 可能因内存不足被杀、被驱逐或随节点丢失，那条结论才是原因。
#       - 网络策略或服务网格 sidecar 可能阻断启动器与 worker 之间的 22 端口和 ORTE 端口：请放行。
#   zh:
#     title: MPI 启动器无法在 worker 上启动或连接其进程
#     description: |
#       作为 MPIJob、Horovod 或 DeepSpeed 作业启动器的 mpirun（Open MPI 的 ORTE 或 PRRTE、MPICH 与 Intel MPI 的 Hydra）无法在 worker 上启动守护进程，或与之失去联系：ssh 无法解析或连接 worker（"ssh: Could not resolve hostname"、"connect to host ... port 22: Connection refused"）、"ORTE was unable to reliably start one or more daemons"、守护进程在启动时退出，或运行中出现 "ORTE has lost communication with a remote daemon"。启动阶段通常是 worker Pod、其 DNS 记录或 sshd 尚未就绪导致的竞争；运行中则是某个 worker（其 Pod、节点或网络）丢失的后果。ssh 密钥被拒绝（"Permission denied (publickey)"）属于权限错误，另行报告。
package traindoc.rules.node.mpi_launch

import data.traindoc.lib.exec
import data.traindoc.lib.k8s

# Open MPI 4 (ORTE), Open MPI 5 (PRRTE) and Hydra wordings.
signatures contains {
	"id": "exec.mpi-launch.daemons",
	"pattern": `(?:ORTE|PRTE|PRRTE) was unable to reliably start one or more daemons|(?:ORTE|PRTE|PRRTE) has lost communication with (?:a|its) (?:remote )?daemon|ORTE does not know how to route a message to the specified daemon|An ORTE daemon has unexpectedly failed after launch|A daemon \(pid \d+\) died unexpectedly with status \d+ while attempting|HYDU_sock_connect \([^)]*\): unable to connect|HYDT_bscu_wait_for_completion \([^)]*\): one of the processes terminated badly|\[mpiexec@[^\]]+\] .*(?:unable to connect|error waiting for event)`,
	"context": 6,
}

signatures contains {
	"id": "exec.mpi-launch.ssh",
	"pattern": `ssh: Could not resolve hostname [^:\s]+|ssh: connect to host \S+ port \d+: (?:Connection refused|Connection timed out|No route to host|Network is unreachable)|kex_exchange_identification: (?:read: )?Connection (?:reset by peer|closed by remote host)`,
	"hint": "ssh",
}

_ids := {"exec.mpi-launch.daemons", "exec.mpi-launch.ssh"}

findings contains f if {
	some pod in input.pods
	some c in k8s.containers(pod)
	hs := [h | some h in exec.hits(pod, c, _ids); not _lost_dead_worker(h)]
	count(hs) > 0
	h := _best(hs)
	f := {
		"subject": exec.subject(pod, c),
		"params": {"what": _what(h), "peer": _peer(hs)},
		"evidence": exec.evidence(pod, c, array.concat([h], [x | some x in hs; x != h])),
		"time": exec.hit_time(c, hs[0]),
	}
}

# ssh names the worker it could not reach; prefer it over ORTE's summary.
_best(hs) := h if {
	some h in hs
	h.id == "exec.mpi-launch.ssh"
} else := hs[0]

# What went wrong, in both languages of the message; the worker it names
# is the peer parameter.
_what(h) := {"en": "ssh could not resolve the worker's name", "zh": "ssh 无法解析 worker 的主机名"} if {
	contains(exec.sample_text(h), "Could not resolve hostname")
} else := {"en": "ssh could not connect to the worker", "zh": "ssh 无法连接到 worker"} if {
	h.id == "exec.mpi-launch.ssh"
} else := {"en": "the launcher lost communication with a daemon on a worker", "zh": "启动器与某个 worker 上的守护进程失去了联系"} if {
	regex.match(`lost communication|unexpectedly failed after launch|terminated badly`, exec.sample_text(h))
} else := {"en": "the launcher could not start its daemons on the workers", "zh": "启动器无法在 worker 上启动其守护进程"}

# The worker named by ssh ("Could not resolve hostname w-1.svc: ...",
# "connect to host w-1 port 22") or by ORTE ("Remote daemon: [[43015,0],20]
# on node w-19").
_peer(hs) := p if {
	ps := sort({_short(m[1]) |
		some h in hs
		some s in object.get(h.m, "samples", [])
		some line in array.concat([s.text], object.get(s, "after", []))
		some m in regex.find_all_string_submatch_n(`(?:resolve hostname|connect to host|Remote daemon: \S+ on node) ([A-Za-z0-9][-A-Za-z0-9.]*[A-Za-z0-9])`, line, -1)
	})
	count(ps) > 0
	p := concat(", ", ps)
} else := ""

_short(host) := split(host, ".")[0]

# Losing a daemon mid-run is how mpirun sees a worker die: when the worker
# it names (or, unnamed, any worker) shows its own end (OOMKilled,
# terminated, evicted, lost with its node), that is the finding, and this
# line adds nothing. Only a loss with no visible cause points at the
# network between launcher and workers.
_lost_dead_worker(h) if {
	regex.match(`lost communication|unexpectedly failed after launch`, exec.sample_text(h))
	some w in input.pods
	w.name != ""
	lower(object.get(w, "replicaType", "")) == "worker"
	_named_or_any(h, w.name)
	_ended(w)
}

_named_or_any(h, name) if {
	p := _peer([h])
	p == ""
}

_named_or_any(h, name) if name in split(_peer([h]), ", ")

_ended(w) if w.phase in {"Failed", "Unknown", "Succeeded"}

_ended(w) if object.get(w, "deletedAt", "") != ""

_ended(w) if {
	some c in k8s.containers(w)
	object.get(c, "restartCount", 0) > 0
}

_ended(w) if {
	some c in k8s.containers(w)
	c.state.state == "terminated"
}
