# METADATA
# title: The container image cannot be pulled
# description: |
#   The kubelet cannot pull a container image of the job, so the container
#   never starts: the image name or tag does not exist, the registry refuses
#   the credentials, or the registry cannot be reached.
# custom:
#   severity: error
#   owner: platform
#   message:
#     en: "Image {{.image}} cannot be pulled ({{.error.en}}): {{.detail}}"
#     zh: "无法拉取镜像 {{.image}}（{{.error.zh}}）：{{.detail}}"
#   remediation:
#     en: |
#       - `not found` / `invalid name`: check the repository, name and tag for typos and that the tag was pushed (`docker manifest inspect <image>` or `crane ls <repo>`).
#       - `unauthorized`: create or fix the pull secret (`kubectl create secret docker-registry ...`) and reference it in `imagePullSecrets` of the pod template or the service account; for ECR/GCR/ACR check the node role's registry permissions.
#       - `network`: test the registry from a node (`crictl pull <image>`); check DNS, proxy, firewall and TLS certificates, and registry rate limits (Docker Hub "toomanyrequests": use a mirror or authenticated pulls).
#       - `never pull`: `imagePullPolicy: Never` needs the image preloaded on every node; use `IfNotPresent` instead.
#     zh: |
#       - `not found` / `invalid name`：检查仓库、镜像名和标签是否拼写正确，该标签是否已推送（`docker manifest inspect <image>` 或 `crane ls <repo>`）。
#       - `unauthorized`：创建或修正拉取凭证（`kubectl create secret docker-registry ...`），并在 Pod 模板或 ServiceAccount 的 `imagePullSecrets` 中引用；使用 ECR/GCR/ACR 时检查节点角色的镜像仓库权限。
#       - `network`：在节点上测试拉取（`crictl pull <image>`）；检查 DNS、代理、防火墙和 TLS 证书，以及仓库限流（Docker Hub 的 "toomanyrequests"：改用镜像加速或登录后拉取）。
#       - `never pull`：`imagePullPolicy: Never` 要求每个节点都预先有该镜像；请改为 `IfNotPresent`。
#   zh:
#     title: 容器镜像无法拉取
#     description: |
#       kubelet 无法拉取作业的容器镜像，容器因此一直无法启动：镜像名或标签不存在、镜像仓库拒绝了凭证，或者无法连接镜像仓库。
package traindoc.rules.pod.image_pull

import data.traindoc.lib.k8s

_bad_reasons := {"ErrImagePull", "ImagePullBackOff", "InvalidImageName", "ErrImageNeverPull", "RegistryUnavailable", "ImageInspectError", "PullImageError", "ErrImageInspect"}

# Pull failures reported as events: kubelet "Failed" with "Failed to pull
# image", "InspectFailed", and the back-off notice.
_event_pattern := `(?i)failed to pull image|failed to pull and unpack|failed to resolve reference|ErrImageNeverPull|is not present with pull policy of Never|InvalidImageName|couldn't parse image reference|Failed to inspect image|Back-off pulling image`

# Classification of the registry's answer, first match wins.
_classes := [
	["invalid name", "user", `(?i)InvalidImageName|invalid reference format|couldn't parse image reference|repository name must be lowercase`],
	["never pull", "user", `(?i)ErrImageNeverPull|imagePullPolicy is "Never"|Never pull|pull policy of Never`],
	["not found", "user", `(?i)manifest unknown|not found|notfound|name unknown|repository does not exist|no such image|does not exist|MANIFEST_UNKNOWN|NAME_UNKNOWN`],
	# Status codes stand alone: digests in the message are hex and may hold
	# "401" or "429" by chance.
	["unauthorized", "platform", `(?i)unauthorized|authentication required|no basic auth credentials|403 forbidden|\b401\b|forbidden|access denied|pull access denied|denied|authorization failed|insufficient_scope`],
	["network", "platform", `(?i)i/o timeout|timeout|timed out|no such host|connection refused|connection reset|tls:|x509|EOF|toomanyrequests|too many requests|\b429\b|rate limit|dial tcp|context deadline exceeded|RegistryUnavailable|service unavailable|\b50[234]\b`],
]

_class(text) := [c[0], c[1]] if {
	hits := [c | some c in _classes; regex.match(c[2], text)]
	c := hits[0]
} else := ["unknown", "platform"]

# The class in both languages of the message.
_class_words := {
	"invalid name": {"en": "invalid name", "zh": "镜像名无效"},
	"never pull": {"en": "never pull", "zh": "拉取策略为 Never"},
	"not found": {"en": "not found", "zh": "镜像不存在"},
	"unauthorized": {"en": "unauthorized", "zh": "未获授权"},
	"network": {"en": "network", "zh": "网络错误"},
	"unknown": {"en": "unknown", "zh": "原因未知"},
}

_image_in(msg) := m[0][1] if {
	m := regex.find_all_string_submatch_n(`(?i)(?:pull(?:ing)? image|image reference|inspect image|Container image) "([^"]+)"`, msg, 1)
	count(m) > 0
}

# The registry error in an event or state message: drop the kubelet's
# preamble, keep the reason.
_detail(msg) := trim_space(x) if {
	parts := split(msg, "desc = ")
	count(parts) > 1
	x := parts[count(parts) - 1]
} else := trim_space(msg)

_bad_containers contains [pod, c] if {
	some pod in k8s.list(input.pods)
	some c in k8s.containers(pod)
	c.state.state == "waiting"
	c.state.reason in _bad_reasons
}

# The best text for a pod's failure: a pull event that names the image,
# else the waiting state message, else the reason.
_text(pod, c) := e.message if {
	evs := [e |
		some e in k8s.pod_events(pod.name)
		regex.match(`(?i)failed to pull|InspectFailed|ErrImageNeverPull|pull policy of Never|InvalidImageName|couldn't parse`, e.message)
		_image_in(e.message) == object.get(c, "image", "")
	]
	count(evs) > 0
	e := evs[count(evs) - 1]
} else := sprintf("%s: %s", [c.state.reason, c.state.message]) if {
	object.get(c.state, "message", "") != ""
} else := c.state.reason

findings contains f if {
	some x in _bad_containers
	[pod, c] := x
	text := _text(pod, c)
	cls := _class(sprintf("%s %s", [c.state.reason, text]))
	es := [e |
		some e in k8s.pod_events(pod.name)
		regex.match(_event_pattern, e.message)
	]
	evs := [k8s.event_evidence(e) | some e in es]
	f := {
		"subject": k8s.container_subject(pod, c),
		"params": {"image": object.get(c, "image", _image_or(text)), "error": _class_words[cls[0]], "detail": _detail(text)},
		"evidence": array.concat([k8s.state_evidence(pod, c, "state", c.state)], evs),
		# The first failed pull, not the latest retry.
		"time": object.get(c.state, "startedAt", _first_time(es, object.get(pod, "startTime", object.get(pod, "createdAt", "")))),
		"owner": cls[1],
	}
}

_image_or(text) := x if {
	x := _image_in(text)
} else := "?"

_first_time(es, fallback) := t if {
	ts := sort([t | some e in es; t := k8s.event_time(e); t != ""])
	t := ts[0]
} else := fallback

# Pull failures seen only in events (pods gone, or no status captured).
findings contains f if {
	some e in k8s.list(input.events)
	e.type == "Warning"
	regex.match(_event_pattern, e.message)
	not regex.match(`(?i)^Back-off pulling`, e.message)
	not _has_state(e.object.name)
	image := _image_or(e.message)
	cls := _class(e.message)
	f := {
		"subject": {"kind": e.object.kind, "name": e.object.name},
		"params": {"image": image, "error": _class_words[cls[0]], "detail": _detail(e.message)},
		"evidence": [k8s.event_evidence(e)],
		"time": k8s.event_time(e),
		"owner": cls[1],
	}
}

_has_state(name) if {
	some x in _bad_containers
	x[0].name == name
}

# A pod that pulled its image after all (transient failure) is not stuck.
_has_state(name) if {
	some pod in k8s.list(input.pods)
	pod.name == name
	some c in k8s.containers(pod)
	c.state.state in {"running", "terminated"}
}
