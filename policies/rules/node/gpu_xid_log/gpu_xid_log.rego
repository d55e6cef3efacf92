# METADATA
# title: GPU hardware fault reported in the logs or the kernel log
# description: |
#   The NVIDIA driver reported a hardware Xid (ECC double-bit, contained or
#   uncontained errors, row-remap failures, NVLink errors, GSP timeouts, a
#   GPU fallen off the bus), or CUDA, NCCL, NVML and nvidia-smi reported a
#   lost GPU, an uncorrectable ECC or NVLink error, a GPU that needs a reset
#   or an "unknown error" from the driver, in a container's log or in a
#   kernel log collected from the pod (exec/<pod>/dmesg.txt). The grade and
#   the action follow NVIDIA's Xid catalog. Application Xids (13, 31, 43,
#   45, 68) are not hardware faults and yield nothing: they follow an error
#   of the program, which its own log reports. Kernel lines older than the
#   pod, or followed by further training, are history. "Failed to
#   initialize NVML: Unknown Error" from nvidia-smi in the pod without an
#   Xid or lost GPU is the container losing its device nodes (device
#   cgroup rules dropped by a systemd reload), reported as exec.cuda-env
#   for the platform team: a new pod fixes it, the node needs no drain.
# custom:
#   category: node.gpu-hardware
#   severity: critical
#   owner: hardware
#   message:
#     en: "{{if .access}}Pod on node {{.node}} cannot use its GPUs{{else}}GPU fault on node {{.node}}{{if .gpu}} (GPU {{.gpu}}){{end}}{{end}}: {{.fault.en}}. Action: {{.action.en}}."
#     zh: "{{if .access}}节点 {{.node}} 上的 Pod 无法使用其 GPU{{else}}节点 {{.node}}{{if .gpu}}（GPU {{.gpu}}）{{end}} 上的 GPU 故障{{end}}：{{.fault.zh}}。处理：{{.action.zh}}。"
#   remediation:
#     en: |
#       - Cordon the node (`kubectl cordon <node>`) so the job is not rescheduled onto the same GPU, then restart the job from its last checkpoint.
#       - Follow the action for the Xid: restart the application (Xid 94), reset the GPU (`nvidia-smi -r`, Xid 48/62/64/95/109/119/120/140/143), reboot the node (Xid 79), check NVLink (`nvidia-smi nvlink -s`, Xid 74/144-150), check power and cooling (Xid 54).
#       - Run a health check before returning the node: `dcgmi diag -r 3`, and `nvidia-smi -q -d ECC,ROW_REMAPPER` for memory errors; replace the GPU if errors repeat.
#       - Other ranks' NCCL timeouts and crashes in the same job are consequences of this fault.
#       - "Failed to initialize NVML: Unknown Error" inside the pod with no Xid is not a GPU fault: the container lost its device cgroup rules (systemd cgroup driver and a `systemctl daemon-reload`); recreate the pod, and have the platform team create the `/dev/char` symlinks (`nvidia-ctk system create-dev-char-symlinks --create-all`) or upgrade the NVIDIA container toolkit.
#     zh: |
#       - 先封锁节点（`kubectl cordon <node>`），避免作业被重新调度到同一块 GPU 上，然后从最近的检查点重启作业。
#       - 按 Xid 对应的处理方式操作：重启应用（Xid 94）、重置 GPU（`nvidia-smi -r`，Xid 48/62/64/95/109/119/120/140/143）、重启节点（Xid 79）、检查 NVLink（`nvidia-smi nvlink -s`，Xid 74/144-150）、检查供电和散热（Xid 54）。
#       - 在节点恢复使用前做健康检查：`dcgmi diag -r 3`，内存错误用 `nvidia-smi -q -d ECC,ROW_REMAPPER` 查看；错误反复出现时更换 GPU。
#       - 同一作业中其他 rank 的 NCCL 超时和崩溃都是该故障的后果。
#       - Pod 内出现 "Failed to initialize NVML: Unknown Error" 而没有 Xid 时，并非 GPU 故障：容器丢失了设备 cgroup 规则（使用 systemd cgroup 驱动并执行了 `systemctl daemon-reload`）；重新创建该 Pod，并由平台团队创建 `/dev/char` 符号链接（`nvidia-ctk system create-dev-char-symlinks --create-all`）或升级 NVIDIA 容器工具包。
#   zh:
#     title: 日志或内核日志中报告了 GPU 硬件故障
#     description: |
#       NVIDIA 驱动报告了硬件 Xid（ECC 双比特错误、可控或不可控的内存错误、行重映射失败、NVLink 错误、GSP 超时、GPU 从总线上掉线），或者 CUDA、NCCL、NVML 与 nvidia-smi 在容器日志或从 Pod 收集的内核日志（exec/<pod>/dmesg.txt）中报告 GPU 丢失、不可纠正的 ECC 或 NVLink 错误、GPU 需要重置，或驱动返回 "unknown error"。严重程度与处理方式依据 NVIDIA 的 Xid 目录。应用触发的 Xid（13、31、43、45、68）不是硬件故障，不会产生结论：它们跟随程序自身的错误，程序日志会报告该错误。早于 Pod 启动、或之后训练仍在继续的内核日志行属于历史记录。Pod 内的 nvidia-smi 报告 "Failed to initialize NVML: Unknown Error" 而没有 Xid 或 GPU 丢失时，是容器失去了设备节点（systemd 重新加载后设备 cgroup 规则被删除），作为 exec.cuda-env 报告给平台团队：重建 Pod 即可恢复，节点无需排空。
package traindoc.rules.node.gpu_xid_log

import data.traindoc.lib.exec
import data.traindoc.lib.gpu
import data.traindoc.lib.k8s

# Kernel Xid lines of hardware Xids only ("NVRM: Xid (PCI:0000:3b:00): 79,
# pid=1234, name=python, GPU has fallen off the bus."), when a health
# sidecar or a kernel-log tail ends up in a container's log.
signatures contains {"id": "node.xid", "pattern": gpu.hardware_xid_pattern, "hint": "Xid ("}

signatures contains {"id": id, "pattern": p} if some id, p in gpu.other_patterns

_ids := {"node.xid"} | object.keys(gpu.other_patterns)

_xid_id := "node.xid"

# The faults a hit's samples report, each with the sample it came from.
_hit_faults(pod, c, h) := [[f, s] |
	some s in object.get(h.m, "samples", [])
	some f in _sample_faults(h.id, s.text)
]

_sample_faults(id, text) := gpu.xid_faults(text) if id == _xid_id

else := {f |
	e := gpu.other_faults[id]
	f := {"xid": "", "gpu": "", "fault": e.fault, "action": e.action, "severity": e.severity}
}

# Faults of one container, by the pod the line came from (a launcher's log
# forwards its ranks' lines: the fault belongs to the rank's pod and node).
# Command outputs scanned like logs (a dmesg) are read by the kernel-log
# rule below, which dates their lines; the container's own logs here.
_container_faults(pod, c) := [[exec.origin(pod, x[1].text).name, x[0], x[1], h] |
	some h in exec.hits(pod, c, _ids)
	not h.log.exec
	some x in _hit_faults(pod, c, h)
]

# An Xid names the fault more precisely than CUDA's or NVML's words for
# it: when a pod's lines hold one, the others are its echoes.
_precise(cf, origin) := [x | some x in cf; x[0] == origin; x[1].xid != ""]

_chosen(cf, origin) := xs if {
	xs := _precise(cf, origin)
	count(xs) > 0
} else := [x | some x in cf; x[0] == origin]

findings contains f if {
	input.phase != "Succeeded"
	some pod in input.pods
	some c in k8s.containers(pod)
	cf := _container_faults(pod, c)
	some origin in {x[0] | some x in cf}
	xs := _chosen(cf, origin)
	not _echo_of_kernel_log(origin, xs)
	w := gpu.worst({x[1] | some x in xs})
	first := [x | some x in xs; x[1] == w][0]
	text := first[2].text
	f := {
		"subject": exec.line_subject(pod, c, text),
		"params": _params(exec.node_of(pod, text), w),
		"evidence": _log_evidence(pod, c, xs, first),
		"time": _sample_time(c, first[3], first[2]),
		"severity": w.severity,
	}
}

_params(node, w) := {"node": node, "xid": w.xid, "gpu": w.gpu, "fault": w.fault, "action": w.action}

_log_evidence(pod, c, xs, first) := array.slice(
	array.concat([_sample_ev(pod, c, first)], [e |
		some t in sort({x[2].text | some x in xs; x[2].text != first[2].text})
		some x in xs
		x[2].text == t
		e := _sample_ev(pod, c, x)
	]),
	0, 3,
)

_sample_ev(pod, c, x) := exec.sample_evidence(pod, c, x[3].log, x[3].m, x[2])

_sample_time(c, h, s) := s.time if {
	object.get(s, "time", "") != ""
} else := t if {
	t := gpu.kernel_time(s.text)
	t != ""
} else := exec.hit_time(c, h)

# CUDA's or NCCL's words for a fault (no Xid) about a pod whose kernel log
# names the fault precisely: the kernel log's finding says it all.
_echo_of_kernel_log(origin, xs) if {
	every x in xs {
		x[1].xid == ""
	}
	some pod in input.pods
	pod.name == origin
	count(_kernel_faults(pod)) > 0
}

# Kernel logs collected from the pod (exec/<pod>/dmesg.txt, or any other
# command output holding kernel lines). The kernel log is the node's:
# lines from before the pod started are history, and so are lines after
# which the job kept training.
_kernel_faults(pod) := [[f, line, o] |
	some o in object.get(pod, ["exec", "other"], [])
	some line in split(o.text, "\n")
	some f in gpu.line_faults(line)
	not _stale(pod, gpu.kernel_time(line))
]

_stale(pod, t) if gpu.before(t, object.get(pod, "startTime", ""))

_stale(_, t) if {
	last := object.get(object.get(input, "progress", {}), "lastStepTime", "")
	gpu.before(t, last)
	time.parse_rfc3339_ns(last) - time.parse_rfc3339_ns(t) > 120000000000
}

_kernel_chosen(kf) := xs if {
	xs := [x | some x in kf; x[0].xid != ""]
	count(xs) > 0
} else := kf

findings contains f if {
	input.phase != "Succeeded"
	some pod in input.pods
	kf := _kernel_faults(pod)
	count(kf) > 0
	xs := _kernel_chosen(kf)
	w := gpu.worst({x[0] | some x in xs})
	first := [x | some x in xs; x[0] == w][0]
	f := {
		"subject": {"kind": "Pod", "name": pod.name},
		"params": _params(object.get(pod, "nodeName", "?"), w),
		"evidence": _kernel_evidence(pod, xs, first),
		"time": gpu.kernel_time(first[1]),
		"severity": w.severity,
	}
}

_kernel_evidence(pod, xs, first) := array.slice(
	array.concat([_exec_ev(pod, first)], [_exec_ev(pod, x) |
		some line in sort({x[1] | some x in xs; x[1] != first[1]})
		x := [y | some y in xs; y[1] == line][0]
	]),
	0, 3,
)

_exec_ev(pod, x) := {
	"kind": "exec",
	"source": sprintf("pod %s %s", [pod.name, x[2].name]),
	"object": k8s.pod_ref(pod),
	"file": x[2].file,
	"text": trim_space(x[1]),
	"time": gpu.kernel_time(x[1]),
}

# nvidia-smi itself failing on a lost GPU, unless the pod's kernel log
# already names the fault. "Failed to initialize NVML: Unknown Error" is
# not a lost GPU (see below).
findings contains f if {
	input.phase != "Succeeded"
	some pod in input.pods
	count(_kernel_faults(pod)) == 0
	smi := pod.exec.nvidiaSmi
	err := object.get(smi, "error", "")
	regex.match(`(?i)Unable to determine the device handle|GPU is lost|fallen off the bus|Unknown Error|GPU requires reset`, err)
	not regex.match(_nvml_unknown, err)
	e := gpu.other_faults["node.gpu-lost"]
	f := {
		"subject": {"kind": "Pod", "name": pod.name},
		"params": {"node": object.get(pod, "nodeName", "?"), "xid": "", "gpu": "", "fault": e.fault, "action": e.action},
		"evidence": [{
			"kind": "exec",
			"source": sprintf("pod %s nvidia-smi", [pod.name]),
			"object": k8s.pod_ref(pod),
			"file": object.get(smi, "file", ""),
			"text": err,
		}],
		"time": "",
	}
}

# "Failed to initialize NVML: Unknown Error" from nvidia-smi inside the pod
# while the node's GPUs are fine: the container lost access to its device
# nodes. With the systemd cgroup driver a `systemctl daemon-reload` (or
# anything that makes systemd re-apply the unit) rewrites the container's
# device cgroup without the NVIDIA devices (NVIDIA/nvidia-container-toolkit#48,
# #251, #1227; NVIDIA/nvidia-docker#1671). A new pod gets them back, so it
# is the platform's problem (exec.cuda-env), not a GPU to drain the node
# for. When the pod's kernel log shows an Xid or a lost GPU, that finding
# names the fault instead; a container whose log names a specific cause
# keeps it.
_nvml_unknown := `Failed to initialize NVML: Unknown Error`

_nvml_access := {
	"fault": {
		"en": "nvidia-smi in the pod fails with \"Failed to initialize NVML: Unknown Error\" (the container lost access to its GPU device nodes, typically after a systemctl daemon-reload with the systemd cgroup driver)",
		"zh": "Pod 内的 nvidia-smi 报错 \"Failed to initialize NVML: Unknown Error\"（容器失去了对 GPU 设备节点的访问权限，通常是在使用 systemd cgroup 驱动时执行了 systemctl daemon-reload）",
	},
	"action": {
		"en": "recreate the pod (it gets its devices back); platform: create the /dev/char symlinks for the NVIDIA devices (nvidia-ctk system create-dev-char-symlinks) or upgrade the NVIDIA container toolkit",
		"zh": "重新创建该 Pod（新 Pod 会重新获得设备）；平台侧：为 NVIDIA 设备创建 /dev/char 符号链接（nvidia-ctk system create-dev-char-symlinks）或升级 NVIDIA 容器工具包",
	},
}

_nvml_outputs(pod) := array.concat(object.get(pod, ["exec", "other"], []), [o |
	smi := object.get(pod, ["exec", "nvidiaSmi"], {})
	err := object.get(smi, "error", "")
	err != ""
	o := {"name": "nvidia-smi", "file": object.get(smi, "file", ""), "text": err}
])

findings contains f if {
	input.phase != "Succeeded"
	some pod in input.pods
	count(_kernel_faults(pod)) == 0
	some o in _nvml_outputs(pod)
	regex.match(_nvml_unknown, o.text)
	some c in k8s.containers(pod)
	exec.failed_container(pod, c)
	not exec.specific_hit(pod, c)
	f := {
		"subject": exec.subject(pod, c),
		"category": "exec.cuda-env",
		"owner": "platform",
		"severity": "error",
		"params": {"node": object.get(pod, "nodeName", "?"), "access": true, "xid": "", "gpu": "", "fault": _nvml_access.fault, "action": _nvml_access.action},
		"evidence": [{
			"kind": "exec",
			"source": sprintf("pod %s %s", [pod.name, o.name]),
			"object": k8s.pod_ref(pod),
			"file": o.file,
			"text": _nvml_unknown,
		}],
		"time": "",
	}
}
