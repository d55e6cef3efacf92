# METADATA
# title: Processes could not find each other
# description: |
#   The ranks failed to rendezvous: the c10d/TCPStore on MASTER_ADDR did not
#   resolve, refused or dropped connections, or went away; the elastic
#   rendezvous timed out or closed; or a store-based barrier timed out. The
#   cause is named from the evidence: dns (the master's name does not
#   resolve), refused (nothing listens on the port), unreachable (no route
#   to the address), timeout (connections are dropped: a NetworkPolicy or
#   firewall), store-exited (the store's host process exited),
#   ranks-missing (some ranks never joined), closed, env.
# custom:
#   severity: error
#   owner: platform
#   explains: [job.backoff-exceeded]
#   message:
#     en: "Rendezvous failed{{if .endpoint}} ({{.endpoint}}){{end}}: {{if eq .cause \"dns\"}}the master address does not resolve in DNS; the Service or pod name is wrong or not created yet{{else if eq .cause \"refused\"}}connections to the rendezvous port were refused; nothing listened there (the master had not started, had exited, or the port is wrong){{else if eq .cause \"unreachable\"}}there is no route to the master address; its pod was replaced or the address is wrong{{else if eq .cause \"timeout\"}}connections to the rendezvous port timed out with no answer; a NetworkPolicy or firewall drops the traffic, or the address is not the master's{{else if eq .cause \"store-exited\"}}the rendezvous store closed the connection; the process hosting it (rank 0 or the master's agent) exited{{else if eq .cause \"ranks-missing\"}}it timed out waiting for all ranks to join; some ranks never started or could not connect{{else if eq .cause \"closed\"}}the rendezvous was closed; another agent gave up or finished{{else if eq .cause \"env\"}}MASTER_ADDR, MASTER_PORT, RANK or WORLD_SIZE is not set{{else}}the processes could not connect to each other{{end}}."
#     zh: "Rendezvous 失败{{if .endpoint}}（{{.endpoint}}）{{end}}：{{if eq .cause \"dns\"}}master 地址在 DNS 中无法解析，Service 或 Pod 名称错误或尚未创建{{else if eq .cause \"refused\"}}到 rendezvous 端口的连接被拒绝，该端口上没有进程在监听（master 尚未启动、已经退出，或端口错误）{{else if eq .cause \"unreachable\"}}没有到 master 地址的路由，其 Pod 已被替换或地址错误{{else if eq .cause \"timeout\"}}到 rendezvous 端口的连接超时且没有任何响应，NetworkPolicy 或防火墙丢弃了流量，或该地址不是 master 的地址{{else if eq .cause \"store-exited\"}}rendezvous store 关闭了连接，承载它的进程（rank 0 或 master 上的 agent）已经退出{{else if eq .cause \"ranks-missing\"}}等待所有 rank 加入时超时，有些 rank 没有启动或无法连接{{else if eq .cause \"closed\"}}rendezvous 已被关闭，另一个 agent 放弃或已结束{{else if eq .cause \"env\"}}MASTER_ADDR、MASTER_PORT、RANK 或 WORLD_SIZE 未设置{{else}}各进程之间无法建立连接{{end}}。"
#   remediation:
#     en: |
#       - First check whether the master (rank 0) pod failed or restarted before this one: if so, its own error is the root cause.
#       - dns: use the name the operator creates (`<job>-master-0`, with its headless Service) or `--rdzv-endpoint` of an existing Service; in the pod, `getent hosts $MASTER_ADDR` must answer. Workers that start before the master's Service exists retry; raise the rendezvous timeout instead of failing fast.
#       - refused: make sure the master really listens on MASTER_PORT (same port in every replica, no second launcher in the pod), and that the master pod is Running and not restarting.
#       - timeout or unreachable: list NetworkPolicies in the namespace (`kubectl get networkpolicy`) and allow ingress between the job's pods on the rendezvous port and on all ports NCCL uses; check that MASTER_ADDR is the master pod's current address.
#       - store-exited: "failed to recv, got 0 bytes", "Connection reset by peer" and "Broken pipe" mean the store's process went away: look at the master pod's log and exit reason.
#       - ranks-missing: if pods start at very different times (image pulls, no gang scheduling), raise the rendezvous timeout (`--rdzv-conf timeout=...`, `init_process_group(timeout=...)`) or use a gang scheduler; otherwise find the rank that never joined.
#     zh: |
#       - 先检查 master（rank 0）Pod 是否比它更早失败或重启：如果是，master 自身的错误才是根因。
#       - dns：使用 operator 创建的名称（`<job>-master-0` 及其 headless Service）或已有 Service 作为 `--rdzv-endpoint`；在 Pod 内 `getent hosts $MASTER_ADDR` 必须有结果。在 master 的 Service 创建之前启动的 worker 会重试，应增大 rendezvous 超时而不是快速失败。
#       - refused：确认 master 确实在 MASTER_PORT 上监听（每个副本端口一致，Pod 中没有第二个启动器），且 master Pod 处于 Running 状态、没有在重启。
#       - timeout 或 unreachable：列出命名空间中的 NetworkPolicy（`kubectl get networkpolicy`），允许作业各 Pod 之间在 rendezvous 端口以及 NCCL 使用的所有端口上互通；确认 MASTER_ADDR 是 master Pod 当前的地址。
#       - store-exited："failed to recv, got 0 bytes"、"Connection reset by peer" 和 "Broken pipe" 表示 store 所在进程已经退出：查看 master Pod 的日志和退出原因。
#       - ranks-missing：如果各 Pod 启动时间相差很大（拉取镜像、未使用 gang 调度），增大 rendezvous 超时（`--rdzv-conf timeout=...`、`init_process_group(timeout=...)`）或使用 gang 调度器；否则找出始终没有加入的 rank。
#   zh:
#     title: 进程之间无法建立连接（rendezvous 失败）
#     description: |
#       各 rank 未能完成 rendezvous：MASTER_ADDR 上的 c10d/TCPStore 无法解析、拒绝或丢弃连接，或已经消失；弹性 rendezvous 超时或被关闭；或基于 store 的 barrier 超时。原因按证据区分：dns（master 名称无法解析）、refused（端口上无进程监听）、unreachable（没有到该地址的路由）、timeout（连接被丢弃：NetworkPolicy 或防火墙）、store-exited（store 所在进程已退出）、ranks-missing（有 rank 没有加入）、closed、env。
package traindoc.rules.exec.rendezvous_failure

import data.traindoc.lib.exec
import data.traindoc.lib.k8s

# Errors that end the process (PyTorch 1.9-2.8, torchrun, elastic agents;
# "RuntimeError: Socket Timeout" is a store read that timed out, 1.x-2.1).
signatures contains {
	"id": "exec.rendezvous.error",
	"pattern": `(?P<type>Rendezvous(?:Timeout|Closed|Connection|State)?Error|DistNetworkError|DistStoreError)\b|Timed out initializing process group in store based barrier|TCP client failed to connect/validate to host \S+ - timed out|[Ff]ailed to recv, got 0 bytes|The client socket has timed out after \d+|The client socket has failed to connect to any network address|Timed out after \d+ seconds waiting for clients|connect\(\) timed out\. Original timeout|host not found: (?:Name or service not known|Temporary failure in name resolution|No address associated with hostname)|etcd\.Etcd(?:ConnectionFailed|KeyNotFound)\b|environment variable (?:MASTER_ADDR|MASTER_PORT|RANK|WORLD_SIZE) expected, but not set|via c10d key-value store by key '[^']*', but store->get\('[^']*'\) got (?:error|exception)|RuntimeError: Socket Timeout\b`,
}

# Warnings printed while waiting for the master: common in healthy jobs
# whose pods start in any order, so they only count when the container
# failed, and they name the sub-cause.
signatures contains {
	"id": "net.rendezvous-retry",
	"pattern": `\[c10d\].*(?:failed to connect to|Connection refused|connect\(\) timed out)|TCP client failed to connect/validate to host \S+ - retrying|sendBytes failed|recvValue\w* failed`,
}

# The master's name did not resolve. Only the IPv4 lookup counts: an IPv6
# lookup that fails for a name with only IPv4 addresses is routine.
signatures contains {
	"id": "net.rendezvous-dns",
	"pattern": `IPv4 network addresses of \(.*\) cannot be retrieved|socket\.gaierror: \[Errno -[235]\]|gaierror\(-[235]|getaddrinfo\(?\)? failed`,
}

# The IPv6 (or, before 2.0, family-less) lookup of the master's name
# failed: routine when the name has only IPv4 addresses (then IPv4 connect
# attempts follow), telling when nothing follows it but a timeout.
signatures contains {
	"id": "net.rendezvous-gai6",
	"pattern": `(?:The|IPv6) network addresses of \(.*\) cannot be retrieved`,
}

_retry_ids := {"net.rendezvous-retry", "net.rendezvous-dns"}

findings contains f if {
	some pod in input.pods
	some c in k8s.containers(pod)
	hs := [h |
		some h in exec.hits(pod, c, {"exec.rendezvous.error"})
		_counts(c, h)
	]
	count(hs) > 0
	ctx := exec.hits(pod, c, _retry_ids)
	gai6 := exec.hits(pod, c, {"net.rendezvous-gai6"})
	f := {
		"subject": exec.subject(pod, c),
		"params": _params(exec.all_texts(hs), exec.all_texts(ctx), exec.all_texts(gai6)),
		"evidence": exec.evidence(pod, c, array.concat(hs, _telling(ctx, gai6))),
		"time": exec.hit_time(c, hs[0]),
	}
}

# Only the retry warnings, in a container that died while still retrying
# and with nothing else to explain it.
findings contains f if {
	some pod in input.pods
	some c in k8s.containers(pod)
	not _has_error(pod, c)
	exec.failed_container(pod, c)
	not exec.specific_hit(pod, c)
	hs := [h |
		some h in exec.hits(pod, c, _retry_ids)
		_until_the_end(h)
		not _loopback_noise(h)
	]
	count(hs) > 0
	f := {
		"subject": exec.subject(pod, c),
		"params": _params([], exec.all_texts(hs), []),
		"evidence": exec.evidence(pod, c, hs),
		"time": exec.hit_time(c, hs[0]),
		"severity": "warning",
	}
}

_has_error(pod, c) if {
	some h in exec.hits(pod, c, {"exec.rendezvous.error"})
	_counts(c, h)
}

# A hit counts unless it is a port that could not be bound
# (exec.address-in-use), an agent failing to leave a rendezvous at
# shutdown, or a startup race the container recovered from: the previous
# instance failed to connect, the current one trains.
_counts(c, h) if {
	t := exec.sample_text(h)
	not regex.match(_address_in_use, t)
	not contains(t, "has failed to shutdown the rendezvous")
	not _recovered(c, h)
}

_address_in_use := `Address already in use|errno: 98\b|failed to listen on any local network address|EADDRINUSE`

_recovered(c, h) if {
	h.log.previous
	c.state.state == "running"
	some lf in exec.logs(c)
	not lf.previous
	object.get(object.get(lf, "progress", {}), "lastStepLine", 0) > 0
}

# The retries went on until the log ended: the process died waiting.
_until_the_end(h) if h.m.lastLine + 40 >= object.get(h.log, "lines", 0)

# "[localhost]:29500 (errno: 99 - Cannot assign requested address)": the
# IPv6 loopback attempt torchrun makes before IPv4 on every start.
_loopback_noise(h) if {
	every s in h.m.samples {
		contains(s.text, "errno: 99")
	}
}

# The lookup failures that name the sub-cause, shown after the error.
_telling(ctx, gai6) := array.concat([h | some h in ctx; h.id == "net.rendezvous-dns"], gai6)

_params(errors, retries, gai6) := {
	"cause": _cause(errors, retries, gai6),
	"endpoint": _endpoint(array.concat(array.concat(errors, retries), gai6)),
}

# The final error decides when it is specific (PyTorch 2.x appends the
# last connect attempt's errno to DistNetworkError); a generic connect
# failure ("The client socket has timed out") is refined by the retries
# before it.
_by_error := [
	["env", `expected, but not set`],
	["dns", `host not found|Name or service not known|Temporary failure in name resolution|gaierror`],
	["store-exited", `got 0 bytes|Connection reset by peer|Broken pipe|Connection closed by peer`],
	["refused", `Connection refused`],
	["unreachable", `errno: (?:113|101)\b|No route to host|Network is unreachable`],
	["timeout", `errno: 110\b|Connection timed out`],
	["closed", `RendezvousClosedError`],
	["ranks-missing", `RendezvousTimeoutError|waiting for clients|store based barrier|Socket Timeout|wait timeout`],
]

_by_retry := [
	["dns", `IPv4 network addresses|gaierror|getaddrinfo|Name or service not known|Temporary failure in name resolution`],
	["refused", `errno: 111\b|Connection refused`],
	["unreachable", `errno: (?:113|101)\b|No route to host|Network is unreachable`],
	["store-exited", `got 0 bytes|Connection reset by peer|Broken pipe`],
	["timeout", `errno: 110\b|Connection timed out|timed out`],
]

_cause(errors, retries, gai6) := _by_error[i][0] if {
	i := min({j | some j, p in _by_error; some t in errors; regex.match(p[1], t)})
} else := _by_retry[i][0] if {
	i := min({j | some j, p in _by_retry; some t in retries; regex.match(p[1], t)})
} else := "dns" if {
	count(gai6) > 0
} else := "timeout" if {
	some t in errors
	regex.match(`timed out|Timed out`, t)
} else := "other"

# The endpoint as the lines name it: "(host, port)" or "[host]:port".
_endpoint_re := `(?:connect to \(|addresses of \(|network address of \()([^,()\s]+), (\d{2,5})\)|(?:connect to|to host) \[?([^\]\s:]+)\]?:(\d{2,5})\b`

_endpoint(texts) := es[0] if {
	es := [sprintf("%s:%s", [host, port]) |
		some t in texts
		some m in regex.find_all_string_submatch_n(_endpoint_re, t, -1)
		[host, port] := _host_port(m)
	]
	count(es) > 0
} else := ""

_host_port(m) := [m[1], m[2]] if m[1] != ""

else := [m[3], m[4]]
