# METADATA
# title: Ray processes could not reach the GCS on the head
# description: |
#   A raylet, worker or driver could not reach the Global Control Store on
#   the Ray head ("Failed to connect to GCS within 60 seconds. GCS may have
#   been killed", "Timed out while waiting for GCS to become available",
#   "RPC Error message: failed to connect to all addresses ... :6379"), and
#   exited: the head pod restarted or crash-loops, its GCS process died, or
#   the network or the head service does not let the workers reach port
#   6379. Workers that lose the GCS are consequences of whatever stopped it.
# custom:
#   category: exec.rendezvous-failure
#   severity: error
#   owner: platform
#   message:
#     en: "{{.who}} could not reach the Ray GCS{{if .address}} at {{.address}}{{end}}."
#     zh: "{{.who_zh}}无法连接 Ray GCS{{if .address}}（{{.address}}）{{end}}。"
#   remediation:
#     en: |
#       - Look at the head pod first: did it restart (`kubectl get pod <head> -o wide`, Last State), was it OOMKilled, and what does `/tmp/ray/session_latest/logs/gcs_server.out` say?
#       - Give the head enough memory and CPU (it runs the GCS, the dashboard and often the driver) and set `num-cpus: "0"` on it so no tasks land there.
#       - Check the head service and network policies let the workers reach port 6379 (and 8265 for job submission).
#       - Enable GCS fault tolerance (an external Redis, `gcsFaultToleranceOptions`) so that workers survive a head restart.
#     zh: |
#       - 先看 head Pod：是否重启（`kubectl get pod <head> -o wide`，Last State）、是否被 OOMKilled，`/tmp/ray/session_latest/logs/gcs_server.out` 中说了什么？
#       - 给 head 足够的内存和 CPU（它运行 GCS、dashboard，常常还有 driver），并设置 `num-cpus: "0"`，避免任务被调度到 head 上。
#       - 检查 head 服务和网络策略是否允许 worker 访问 6379 端口（提交作业还需要 8265）。
#       - 启用 GCS 容错（外部 Redis，`gcsFaultToleranceOptions`），使 worker 能在 head 重启后继续运行。
#   zh:
#     title: Ray 进程无法连接 head 上的 GCS
#     description: |
#       raylet、worker 或 driver 无法连接 Ray head 上的全局控制存储（"Failed to connect to GCS within 60 seconds. GCS may have been killed"、"Timed out while waiting for GCS to become available"、"RPC Error message: failed to connect to all addresses ... :6379"）并退出：head Pod 重启或反复崩溃、其 GCS 进程终止，或者网络、head 服务不允许 worker 访问 6379 端口。失去 GCS 的 worker 是导致 GCS 停止的那个原因的后果。
package traindoc.rules.exec.ray_gcs_unreachable

import data.traindoc.lib.exec
import data.traindoc.lib.k8s
import data.traindoc.lib.ray

# Ray 0.8 to 2.x wordings of a process giving up on the GCS: the raylet's
# and driver's 60-second reconnect deadline, Ray 1.x's "Couldn't reconnect
# to GCS server", Ray 0.8's missing GcsServerAddress, a head whose GCS did
# not start, and the final ConnectionError after the bootstrap retries.
# "GCS has been unavailable for more than 60 seconds", "Unable to connect to
# GCS at ..." and "Failed to send request to gcs, reconnecting" are the
# warnings before them and may still recover, and KubeRay's init container
# prints "Waiting for GCS to be ready" on every start.
signatures contains {
	"id": "exec.ray-gcs.unreachable",
	"pattern": _unreachable,
}

_unreachable := concat("|", [
	`Failed to connect to GCS within \d+ seconds`,
	`Timed out while waiting for GCS to become available`,
	"Failed to connect to GCS\\. Please check `gcs_server\\.out`",
	`(?:RpcError|RPC Error message): failed to connect to all addresses; last error: \S+ ipv4:[\d.]+:\d+`,
	`Failed to get cluster ID from GCS server`,
	`Couldn't reconnect to GCS server`,
	`No entry found for GcsServerAddress`,
	`CRITICAL \S+ -- Failed to start GCS\b`,
	`Could not read '\w+' from GCS\. Did GCS start successfully`,
])

_patterns := {s.id: s.pattern | some s in signatures}

_address(t) := m[0][1] if {
	m := regex.find_all_string_submatch_n(`ipv4:([\d.]+:\d+)`, t, 1)
	count(m) > 0
} else := ""

_who(pod) := ["The Ray head", "Ray head 节点"] if {
	ray.is_head(pod)
} else := ["The job submitter", "作业提交器"] if {
	lower(object.get(pod, "replicaType", "")) == "submitter"
} else := ["A Ray worker", "Ray worker 节点"]

findings contains f if {
	some pod in input.pods
	some c in k8s.containers(pod)
	hs := exec.hits(pod, c, {"exec.ray-gcs.unreachable"})
	count(hs) > 0
	w := _who(pod)
	f := {
		"subject": exec.subject(pod, c),
		"params": {"who": w[0], "who_zh": w[1], "address": _address(exec.sample_text(hs[0]))},
		"evidence": exec.evidence(pod, c, hs),
		"time": exec.hit_time(c, hs[0]),
	}
}

findings contains f if {
	some h in ray.text_hits(_patterns)
	h.pod != null
	w := _who(h.pod)
	f := {
		"subject": ray.text_subject(h),
		"params": {"who": w[0], "who_zh": w[1], "address": _address(h.text)},
		"evidence": [ray.text_evidence(h)],
		"time": "",
	}
}
