# METADATA
# title: Killed for using too much host memory
# description: |
#   The kernel OOM killer (or Ray's memory monitor) killed a process because
#   the container or node ran out of host RAM: the container was terminated
#   with reason OOMKilled; or it ended badly (often exit 137 with reason
#   Error, when a child process and not the container's first process was
#   the victim) while the node reported an OOM kill (node-problem-detector's
#   OOMKilling, the kubelet's SystemOOM), a dmesg dump or cgroup counter in
#   the pod shows one, a torchrun child died of SIGKILL, a DataLoader
#   worker was "killed by signal: Killed", or Ray reported the node running
#   low on memory.
# custom:
#   severity: error
#   owner: user
#   message:
#     en: "A process was killed for exceeding host memory: {{.how.en}} (memory limit {{if .limit}}{{.limit}}{{else}}not set{{end}})."
#     zh: "进程因超出主机内存而被杀死：{{.how.zh}}（{{if .limit}}内存上限 {{.limit}}{{else}}未设置内存上限{{end}}）。"
#   remediation:
#     en: |
#       - Raise the container's memory request and limit, or run fewer processes per pod.
#       - Lower DataLoader `num_workers` and `prefetch_factor`; avoid loading the whole dataset into each rank's RAM (use memory-mapped or streaming datasets).
#       - With DeepSpeed/FSDP CPU offload or large checkpoints, size host memory for the offloaded state plus one full checkpoint copy per rank.
#       - On Ray, give tasks and actors a `memory=` resource so the scheduler does not pack too many on one node; see the raylet log for the killed worker.
#       - Confirm with `kubectl describe pod` (Last State: OOMKilled) or the node's kernel log (`Out of memory: Killed process`).
#       - If the node itself ran out of memory (OOMKilling or SystemOOM events on the node, exit 137 with reason Error), its pods' requests were below their use: set the memory request equal to the limit (Guaranteed QoS) for training pods, and keep other memory-hungry pods off training nodes.
#     zh: |
#       - 提高容器的内存 request 和 limit，或减少每个 Pod 的进程数。
#       - 降低 DataLoader 的 `num_workers` 和 `prefetch_factor`；不要在每个 rank 的内存里加载整个数据集（使用内存映射或流式数据集）。
#       - 使用 DeepSpeed/FSDP CPU offload 或保存大检查点时，主机内存要容纳卸载的状态和每个 rank 的一份完整检查点。
#       - 在 Ray 上为任务和 actor 声明 `memory=` 资源，避免调度器在一个节点上放置过多任务；查看 raylet 日志了解被杀的 worker。
#       - 用 `kubectl describe pod`（Last State: OOMKilled）或节点内核日志（`Out of memory: Killed process`）确认。
#       - 如果是节点本身内存耗尽（节点上有 OOMKilling 或 SystemOOM 事件，退出码 137、原因 Error），说明 Pod 的 request 低于实际用量：训练 Pod 的内存 request 应等于 limit（Guaranteed QoS），并让其他耗内存的 Pod 远离训练节点。
#   zh:
#     title: 因主机内存超限被杀死
#     description: |
#       内核 OOM killer（或 Ray 的内存监控）因容器或节点主机内存耗尽而杀死了进程：容器以 OOMKilled 原因终止；或者容器异常结束（被杀的是子进程而不是容器的第一个进程时，常见为退出码 137、原因 Error），同时节点报告了 OOM 终止（node-problem-detector 的 OOMKilling、kubelet 的 SystemOOM），或 Pod 中采集的 dmesg 或 cgroup 计数显示了 OOM；也包括 torchrun 子进程死于 SIGKILL、DataLoader worker "killed by signal: Killed"，或 Ray 报告节点内存不足。
package traindoc.rules.exec.oom_killed

import data.traindoc.lib.exec
import data.traindoc.lib.k8s
import data.traindoc.lib.resources

# The kernel, Ray and DataLoader signatures live in lib/resources, which
# exec.killed also reads (a kill for memory is never reported as a kill
# from outside).

# A shell reporting its child was SIGKILLed ("bash: line 1:  25 Killed  python ...").
signatures contains {
	"id": "launcher.shell-killed",
	"pattern": `: line \d+: +\d+ Killed +\S`,
	"hint": "Killed",
}

# DeepSpeed's runner reporting a rank SIGKILLed ("... exits with return
# code = -9").
signatures contains {
	"id": "launcher.deepspeed-sigkill",
	"pattern": `exits with return code = -9\b`,
	"hint": "exits with return code = -9",
}

# torch.multiprocessing.spawn reporting a rank SIGKILLed ("process 0
# terminated with signal SIGKILL"; PyTorch 1.4 raised a bare Exception with
# the same words).
signatures contains {
	"id": "launcher.spawn-sigkill",
	"pattern": `process \d+ terminated with signal SIGKILL`,
	"hint": "terminated with signal SIGKILL",
}

# torchrun escalating to SIGKILL itself when a rank ignored its SIGTERM
# while the job was being torn down (PyTorch 1.10 onwards): the "-9" in
# its failure summary is then its own doing, not the kernel's.
signatures contains {
	"id": "launcher.forced-sigkill",
	"pattern": `Unable to shutdown process \d+ via (?:Signals\.)?SIGTERM, forcefully exiting via (?:Signals\.)?SIGKILL`,
	"hint": "forcefully exiting via",
}

# The container's memory limit, "" when it has none (the message says so
# in its own language).
_limit(c) := object.get(c, ["limits", "memory"], "")

# Candidates per container, by strength: the kubelet's own verdict first.
_cand contains x if {
	input.phase != "Succeeded"
	some pod in input.pods
	some c in k8s.containers(pod)
	s := resources.oom_state(c)
	which := {true: "state", false: "lastState"}[s == c.state]
	x := {
		"pod": pod, "c": c, "prio": 1,
		"how": {"en": "the container hit its memory limit (reason OOMKilled)", "zh": "容器达到了内存上限（原因 OOMKilled）"},
		"evidence": array.concat(
			[k8s.state_evidence(pod, c, which, s)],
			exec.evidence(pod, c, [h | some h in exec.hits(pod, c, resources.log_oom_ids); resources.hit_ours(pod, h)]),
		),
		"time": exec.state_time(c, s),
	}
}

# The node (or the kubelet) reported an OOM kill right when the container
# ended badly: the container's status often says only "Error" (exit 137
# or, under a launcher, 1) because the victim was a child process.
_cand contains x if {
	input.phase != "Succeeded"
	some pod in input.pods
	some c in k8s.containers(pod)
	not resources.oom_state(c)
	evs := resources.event_oom(pod, c)
	count(evs) > 0
	s := resources.terminations(c)[0]
	x := {
		"pod": pod, "c": c, "prio": 2,
		"how": {"en": "the node's kernel OOM killer killed a process of the container", "zh": "节点内核的 OOM killer 杀死了容器中的一个进程"},
		"evidence": array.concat([k8s.event_evidence(e) | some e in evs], [_term_evidence(pod, c, s)]),
		"time": min({k8s.event_time(e) | some e in evs}),
	}
}

# A dmesg dump or cgroup counter collected from the pod shows the kill.
_cand contains x if {
	input.phase != "Succeeded"
	some pod in input.pods
	some c in k8s.containers(pod)
	not resources.oom_state(c)
	count(resources.terminations(c)) > 0
	lines := resources.exec_oom(pod)
	count(lines) > 0
	x := {
		"pod": pod, "c": c, "prio": 3,
		"how": {"en": "the kernel OOM killer killed a process (kernel log or cgroup counters in the pod)", "zh": "内核 OOM killer 杀死了一个进程（见 Pod 中的内核日志或 cgroup 计数）"},
		"evidence": [{
			"kind": "exec",
			"source": sprintf("pod %s %s", [pod.name, l[0].name]),
			"object": k8s.pod_ref(pod),
			"file": l[0].file,
			"text": l[1],
		} |
			some l in lines
		],
		"time": exec.state_time(c, resources.terminations(c)[0]),
	}
}

_term_evidence(pod, c, s) := k8s.state_evidence(pod, c, "state", s) if s == c.state

else := k8s.state_evidence(pod, c, "lastState", s)

_how := {
	"exec.oom-killed.kernel": {"en": "the kernel OOM killer killed a process", "zh": "内核 OOM killer 杀死了一个进程"},
	"exec.oom-killed.ray": {"en": "Ray reported a worker killed for lack of node memory", "zh": "Ray 报告一个 worker 因节点内存不足被杀死"},
	"exec.oom-killed.dataloader": {"en": "a DataLoader worker was killed (SIGKILL)", "zh": "一个 DataLoader worker 被杀死（SIGKILL）"},
	"launcher.sigkill": {"en": "a training process died of SIGKILL (torchrun exitcode -9, DeepSpeed or mpirun signal 9)", "zh": "一个训练进程死于 SIGKILL（torchrun exitcode -9、DeepSpeed 或 mpirun 信号 9）"},
	"launcher.shell-killed": {"en": "the shell reported its child Killed (SIGKILL)", "zh": "shell 报告其子进程已被杀死（Killed，即 SIGKILL）"},
	"launcher.deepspeed-sigkill": {"en": "a training process died of SIGKILL (DeepSpeed launcher return code -9)", "zh": "一个训练进程死于 SIGKILL（DeepSpeed 启动器返回码 -9）"},
	"launcher.spawn-sigkill": {"en": "a training process died of SIGKILL (torch.multiprocessing.spawn)", "zh": "一个训练进程死于 SIGKILL（torch.multiprocessing.spawn）"},
}

_prio := {
	"exec.oom-killed.kernel": 2,
	"exec.oom-killed.ray": 3,
	"exec.oom-killed.dataloader": 4,
	"launcher.sigkill": 5,
	"launcher.shell-killed": 6,
	"launcher.deepspeed-sigkill": 5,
	"launcher.spawn-sigkill": 5,
}

_cand contains x if {
	some pod in input.pods
	some c in k8s.containers(pod)
	not resources.oom_state(c)
	hs := [h | some h in exec.hits(pod, c, object.keys(_prio)); resources.hit_ours(pod, h)]
	count(hs) > 0
	best := sort([[_prio[h.id], i] | some i, h in hs])[0]
	h := hs[best[1]]
	x := {
		"pod": pod, "c": c, "prio": best[0],
		"how": _how[h.id],
		"evidence": array.concat([exec.hit_evidence(pod, c, h)], [e | some e in exec.evidence(pod, c, hs); e != exec.hit_evidence(pod, c, h)]),
		"time": exec.hit_time(c, hs[0]),
	}
}

# A lone SIGKILL of a child is only host memory when nothing else killed it
# (not a liveness probe, not the launcher after a peer failed).
_weak(x) if x.prio >= 5

findings contains f if {
	some x in _cand
	not _stronger(x)
	not _weak_explained(x)
	f := {
		"subject": exec.subject(x.pod, x.c),
		"params": {"how": x.how, "limit": _limit(x.c)},
		"evidence": array.slice(x.evidence, 0, 3),
		"time": x.time,
	}
}

_stronger(x) if {
	some y in _cand
	y.pod.name == x.pod.name
	y.c.name == x.c.name
	y.prio < x.prio
}

# Two candidates of equal strength: keep one.
_stronger(x) if {
	some y in _cand
	y.pod.name == x.pod.name
	y.c.name == x.c.name
	y.prio == x.prio
	y.how.en < x.how.en
}

_weak_explained(x) if {
	_weak(x)
	exec.specific_hit(x.pod, x.c)
}

_weak_explained(x) if {
	_weak(x)
	exec.has_hit(x.pod, x.c, {"launcher.forced-sigkill"})
}
