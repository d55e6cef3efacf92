# METADATA
# title: The container cannot be created from its configuration
# description: |
#   The kubelet or the container runtime cannot create or start the
#   container: a Secret or ConfigMap (or one of its keys) it refers to is
#   missing, a volume cannot be mounted or attached, or the command does not
#   exist in the image.
# custom:
#   severity: error
#   owner: user
#   message:
#     en: "Container cannot be created ({{if eq .problem \"secret\"}}missing secret{{else if eq .problem \"configmap\"}}missing configmap{{else if eq .problem \"key\"}}missing key{{else if eq .problem \"token\"}}missing service account token{{else if eq .problem \"command\"}}command not found{{else if eq .problem \"attach\"}}volume attach{{else if eq .problem \"mount\"}}volume mount{{else if eq .problem \"sandbox\"}}pod sandbox{{else if eq .problem \"runtime\"}}container runtime{{else if eq .problem \"config\"}}container config{{end}}): {{.detail}}"
#     zh: "容器无法创建（{{if eq .problem \"secret\"}}缺少 Secret{{else if eq .problem \"configmap\"}}缺少 ConfigMap{{else if eq .problem \"key\"}}缺少键{{else if eq .problem \"token\"}}缺少 ServiceAccount 令牌{{else if eq .problem \"command\"}}找不到命令{{else if eq .problem \"attach\"}}卷挂接失败{{else if eq .problem \"mount\"}}卷挂载失败{{else if eq .problem \"sandbox\"}}Pod 沙箱创建失败{{else if eq .problem \"runtime\"}}容器运行时错误{{else if eq .problem \"config\"}}容器配置错误{{end}}）：{{.detail}}"
#   remediation:
#     en: |
#       - Missing Secret or ConfigMap: `kubectl get secret,configmap -n <namespace>`; create it in the job's namespace or fix the name in `env`, `envFrom` or `volumes`.
#       - Missing key: `kubectl get configmap <name> -o yaml` and fix the key in `valueFrom.configMapKeyRef` / `secretKeyRef`, or mark the reference `optional: true`.
#       - Command not found: the image lacks the executable (`torchrun`, `python`, `deepspeed`); use an image that has it, or call it by its full path (`python -m torch.distributed.run`).
#       - Mount or attach timeouts: `kubectl describe pod <pod>` and `kubectl get pvc,volumeattachment`; a ReadWriteOnce volume still attached to another node must be released first; otherwise ask the platform team to check the CSI driver.
#     zh: |
#       - 缺少 Secret 或 ConfigMap：执行 `kubectl get secret,configmap -n <namespace>`；在作业所在命名空间创建它，或修正 `env`、`envFrom`、`volumes` 中的名称。
#       - 缺少键：执行 `kubectl get configmap <name> -o yaml`，修正 `valueFrom.configMapKeyRef` / `secretKeyRef` 中的键，或把该引用设为 `optional: true`。
#       - 找不到命令：镜像中没有该可执行文件（`torchrun`、`python`、`deepspeed`）；请换用包含它的镜像，或使用完整路径调用（`python -m torch.distributed.run`）。
#       - 挂载或挂接超时：执行 `kubectl describe pod <pod>` 和 `kubectl get pvc,volumeattachment`；仍挂接在其他节点上的 ReadWriteOnce 卷需要先释放；否则请平台团队检查 CSI 驱动。
#   zh:
#     title: 无法按配置创建容器
#     description: |
#       kubelet 或容器运行时无法创建或启动容器：引用的 Secret、ConfigMap 或其中的键不存在，卷无法挂载或挂接，或者镜像中不存在要执行的命令。
package traindoc.rules.pod.config_error

import data.traindoc.lib.k8s

_waiting_reasons := {"CreateContainerConfigError", "CreateContainerError", "RunContainerError"}

_terminated_reasons := {"StartError", "ContainerCannotRun"}

# What went wrong, from the message; first match wins. The owner is who
# fixes it: the job's spec, or the platform's storage.
_problems := [
	["sandbox", "platform", `(?i)sandbox|failed to setup network|CNI`],
	["secret", "user", `secret "[^"]+" not found|secrets? "[^"]+" not found`],
	["configmap", "user", `configmaps? "[^"]+" not found`],
	# Kubernetes before 1.10 wrote "Couldn't find key".
	["key", "user", `(?i)couldn't find key [^\s]+ in (ConfigMap|Secret)`],
	["token", "platform", `serviceaccounts? "[^"]+" not found|kube-root-ca\.crt`],
	# runc failing to set up the container's cgroups or a runtime hook
	# (the NVIDIA hook) is the node's, not the image's; it comes before
	# "command" because a cgroup file can be "no such file or directory".
	["runtime", "platform", `(?i)setting cgroup config|unable to freeze|error running hook|unable to retrieve OCI runtime error`],
	["command", "user", `executable file not found|no such file or directory|exec format error|permission denied`],
	# Mount before attach: "Unable to attach or mount volumes: unmounted
	# volumes=[...]" names the volume that did not mount.
	["mount", "platform", `(?i)MountVolume|mount failed|MountDevice|failed to mount|unmounted volumes|unable to mount volumes`],
	["attach", "platform", `AttachVolume|Attach timeout|Multi-Attach error|unattached volumes|timed out waiting for the condition|context deadline exceeded`],
]

_problem(text) := [p[0], p[1]] if {
	hits := [p | some p in _problems; regex.match(p[2], text)]
	p := hits[0]
} else := ["config", "user"]

# The core of a message: the part after the runtime's preamble.
_detail(msg) := trim_space(trim_suffix(x, ": unknown")) if {
	m := regex.find_all_string_submatch_n(`(exec: "[^"]+": [^:]+(?:: [^:]+)?)`, msg, 1)
	count(m) > 0
	x := m[0][1]
} else := trim_space(trim_prefix(msg, "Error: "))

# Containers stuck before or at start.
findings contains f if {
	some pod in k8s.list(input.pods)
	some c in k8s.containers(pod)
	some which in ["state", "lastState"]
	s := c[which]
	_stuck(s)
	not _newer_ok(c, which)
	msg := object.get(s, "message", s.reason)
	p := _problem(msg)
	f := {
		"subject": k8s.container_subject(pod, c),
		"params": {"problem": p[0], "detail": _detail(msg)},
		"evidence": [k8s.state_evidence(pod, c, which, s)],
		"time": object.get(s, "finishedAt", object.get(s, "startedAt", object.get(pod, "startTime", object.get(pod, "createdAt", "")))),
		"owner": p[1],
	}
}

_stuck(s) if {
	s.state == "waiting"
	s.reason in _waiting_reasons
}

_stuck(s) if {
	s.state == "terminated"
	s.reason in _terminated_reasons
}

# A last state that failed to start, followed by a running container, was
# fixed (a Secret created late): not a finding.
_newer_ok(c, "lastState") if c.state.state == "running"

# The same failure as a previous state is reported once, from the current
# state, unless only the previous one says what went wrong: a container
# waiting in RunContainerError with a bare back-off message after a
# StartError that names the missing executable.
_newer_ok(c, "lastState") if {
	_stuck(c.state)
	_informative(c.state)
}

_newer_ok(c, "lastState") if {
	_stuck(c.state)
	not _informative(c.lastState)
}

_newer_ok(c, "state") if {
	_stuck(c.lastState)
	_informative(c.lastState)
	not _informative(c.state)
}

_informative(s) if _problem(object.get(s, "message", s.reason))[0] != "config"

# Mount and attach failures and config errors from events, on pods that
# never started.
findings contains f if {
	some e in k8s.list(input.events)
	e.type == "Warning"
	e.object.kind == "Pod"
	_config_event(e)
	not _started(e.object.name)
	not _has_state_finding(e.object.name)
	p := _problem(e.message)
	f := {
		"subject": {"kind": "Pod", "name": e.object.name},
		"params": {"problem": p[0], "detail": _detail(e.message)},
		"evidence": [k8s.event_evidence(e)],
		"time": k8s.event_time(e),
		"owner": p[1],
	}
}

_config_event(e) if e.reason in {"FailedMount", "FailedAttachVolume", "FailedCreatePodSandBox", "FailedMapVolume"}

_config_event(e) if {
	e.reason == "Failed"
	startswith(e.message, "Error: ")
	not regex.match(`(?i)ErrImagePull|ImagePullBackOff|ErrImageNeverPull|InvalidImageName|pull`, e.message)
}

_started(name) if {
	some pod in k8s.list(input.pods)
	pod.name == name
	some c in pod.containers
	c.state.state in {"running", "terminated"}
	not object.get(c.state, "reason", "") in _terminated_reasons
}

_has_state_finding(name) if {
	some pod in k8s.list(input.pods)
	pod.name == name
	some c in k8s.containers(pod)
	_stuck(c.state)
}
