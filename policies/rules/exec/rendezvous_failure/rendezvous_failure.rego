# METADATA
# title: Processes could not find each other
# description: |
#   The ranks failed to rendezvous: the c10d/TCPStore on MASTER_ADDR was
#   unreachable or went away, the elastic rendezvous timed out or closed, or
#   a store-based barrier timed out. Either the master/rank-0 pod failed or
#   started late (then its own error is the cause), or the address, port,
#   DNS name or network policy is wrong.
# custom:
#   severity: error
#   owner: platform
#   explains: [job.backoff-exceeded]
#   message:
#     en: "Rendezvous failed: {{.error}}."
#     zh: "Rendezvous 失败：{{.error}}。"
#   remediation:
#     en: |
#       - Check whether the master (rank 0) pod failed or restarted first; if so, its error is the root cause.
#       - Verify MASTER_ADDR/MASTER_PORT (or --rdzv-endpoint) resolve and are reachable from every pod: the headless Service exists, the pod is Ready, and no NetworkPolicy blocks the port.
#       - If pods start at very different times (image pulls, gang scheduling off), raise the rendezvous timeout (`--rdzv-conf timeout=...`, `init_process_group(timeout=...)`) or use a gang scheduler.
#       - "failed to recv, got 0 bytes" and "Connection reset by peer" from the store mean the store host exited; look at that pod.
#     zh: |
#       - 检查 master（rank 0）Pod 是否先失败或重启；如果是，它自身的错误才是根因。
#       - 确认 MASTER_ADDR/MASTER_PORT（或 --rdzv-endpoint）在每个 Pod 中都能解析和访问：headless Service 存在、Pod 已 Ready、没有 NetworkPolicy 阻断该端口。
#       - 如果各 Pod 启动时间相差很大（拉取镜像、未使用 gang 调度），增大 rendezvous 超时（`--rdzv-conf timeout=...`、`init_process_group(timeout=...)`）或使用 gang 调度器。
#       - store 报 "failed to recv, got 0 bytes" 和 "Connection reset by peer" 表示 store 所在进程已退出；请查看那个 Pod。
#   zh:
#     title: 进程之间无法建立连接（rendezvous 失败）
#     description: |
#       各 rank 未能完成 rendezvous：MASTER_ADDR 上的 c10d/TCPStore 不可达或已消失，弹性 rendezvous 超时或关闭，或基于 store 的 barrier 超时。要么是 master/rank 0 的 Pod 失败或启动过晚（此时它自身的错误才是原因），要么是地址、端口、DNS 名称或网络策略配置错误。
package traindoc.rules.exec.rendezvous_failure

import data.traindoc.lib.exec
import data.traindoc.lib.k8s

# Errors that end the process.
signatures contains {
	"id": "exec.rendezvous.error",
	"pattern": `(?P<type>Rendezvous(?:Timeout|Closed|Connection|State)?Error|DistNetworkError|DistStoreError)\b|Timed out initializing process group in store based barrier|TCP client failed to connect/validate to host|[Ff]ailed to recv, got 0 bytes|The client socket has timed out after \d+|Timed out after \d+ seconds waiting for clients|environment variable (?:MASTER_ADDR|MASTER_PORT|RANK|WORLD_SIZE) expected, but not set|via c10d key-value store by key '[^']*', but store->get\('[^']*'\) got error`,
}

# Warnings printed while waiting for the master: common in healthy jobs that
# start in any order, so they only count when the container failed.
signatures contains {
	"id": "net.rendezvous-retry",
	"pattern": `\[c10d\].*(?:failed to connect to|Connection refused|connect\(\) timed out)|socket\.gaierror: \[Errno -[23]\]|sendBytes failed|recvValue failed`,
}

findings contains f if {
	some pod in input.pods
	some c in k8s.containers(pod)
	hs := [h |
		some h in exec.hits(pod, c, {"exec.rendezvous.error"})
		not regex.match(_address_in_use, exec.sample_text(h))
	]
	count(hs) > 0
	f := {
		"subject": exec.subject(pod, c),
		"params": {"error": _error(exec.all_texts(hs))},
		"evidence": exec.evidence(pod, c, hs),
		"time": exec.hit_time(c, hs[0]),
	}
}

# Only the retry warnings, in a container that failed with nothing else.
findings contains f if {
	some pod in input.pods
	some c in k8s.containers(pod)
	not exec.has_hit(pod, c, {"exec.rendezvous.error"})
	exec.failed_container(pod, c)
	not exec.specific_hit(pod, c)
	hs := exec.hits(pod, c, {"net.rendezvous-retry"})
	count(hs) > 0
	f := {
		"subject": exec.subject(pod, c),
		"params": {"error": "could not connect to the rendezvous store"},
		"evidence": exec.evidence(pod, c, hs),
		"time": exec.hit_time(c, hs[0]),
		"severity": "warning",
	}
}

# A store that cannot bind its port is exec.address-in-use.
_address_in_use := `Address already in use|errno: 98\b|failed to listen on any local network address`

_types := [
	[`RendezvousTimeoutError|Timed out after \d+ seconds waiting for clients|store based barrier`, "the rendezvous timed out waiting for all ranks"],
	[`RendezvousClosedError`, "the rendezvous was closed (another agent gave up or finished)"],
	[`expected, but not set`, "MASTER_ADDR/MASTER_PORT/RANK/WORLD_SIZE are not set"],
	[`got 0 bytes|Connection reset by peer|Broken pipe`, "the rendezvous store went away (its host process exited)"],
	[`TCP client failed to connect|client socket has timed out|Connection refused|DistNetworkError|RendezvousConnectionError`, "could not connect to the rendezvous store"],
	[`DistStoreError`, "the rendezvous store timed out"],
]

_error(texts) := _types[i][1] if {
	i := min({j | some j, t in _types; some x in texts; regex.match(t[0], x)})
} else := "rendezvous error"
