# METADATA
# title: Port already in use
# description: |
#   The rendezvous store or master port could not be bound because something
#   already listens on it: a second launcher in the same pod, another job on
#   the same host with hostNetwork, or a leftover process from a restart.
#   Accelerate checks the port itself before it launches ("another process
#   is utilizing it"); Ray's raylet and GCS fail the same way on their
#   gRPC ports.
# custom:
#   severity: error
#   owner: user
#   message:
#     en: "Could not bind {{if .port}}port {{.port}}{{else}}the rendezvous port{{end}}: address already in use."
#     zh: "无法绑定{{if .port}}端口 {{.port}}{{else}} rendezvous 端口{{end}}：地址已被占用。"
#   remediation:
#     en: |
#       - Make sure only one launcher binds MASTER_PORT per pod: do not wrap torchrun in another launcher (accelerate, deepspeed, python -m torch.distributed.launch) that also starts a store.
#       - With hostNetwork or several jobs per node, give each job its own MASTER_PORT (or `--rdzv-endpoint=host:0`/`--master_port` from an env var).
#       - After an in-container restart, make sure the old processes exited (no `sleep infinity` wrapper keeping them) before starting again.
#     zh: |
#       - 确保每个 Pod 只有一个启动器绑定 MASTER_PORT：不要把 torchrun 再包进另一个同样会启动 store 的启动器（accelerate、deepspeed、python -m torch.distributed.launch）。
#       - 使用 hostNetwork 或同一节点运行多个作业时，为每个作业分配不同的 MASTER_PORT（或通过环境变量传入 `--master_port`）。
#       - 容器内重启后，确认旧进程已经退出，再重新启动。
#   zh:
#     title: 端口已被占用
#     description: |
#       rendezvous store 或 master 端口无法绑定，因为已有程序在监听：同一个 Pod 中的第二个启动器、同一主机上使用 hostNetwork 的另一个作业，或重启后残留的进程。Accelerate 在启动前会自行检查端口（"another process is utilizing it"）；Ray 的 raylet 与 GCS 在其 gRPC 端口上也会以同样方式失败。
package traindoc.rules.exec.address_in_use

import data.traindoc.lib.exec
import data.traindoc.lib.k8s

# The bind error of the c10d store (PyTorch 1.x RuntimeError, 2.x
# DistNetworkError with the legacy or libuv backend), of Python sockets,
# of Ray's gRPC servers and of Go or C servers started in the container,
# and Accelerate's own check of the port before it launches.
signatures contains {
	"id": "exec.address-in-use",
	"pattern": `(?i:address already in use)|EADDRINUSE|errno: 98\b|\[Errno 98\]|server socket has failed to listen on any local network address|Tried to launch distributed communication on port \S+, but another process is utilizing it`,
}

findings contains f if {
	some pod in input.pods
	some c in k8s.containers(pod)
	hs := [h | some h in exec.hits(pod, c, {"exec.address-in-use"}); _ended_the_process(h)]
	count(hs) > 0
	f := {
		"subject": exec.subject(pod, c),
		"params": {"port": _port(exec.all_texts(hs))},
		"evidence": exec.evidence(pod, c, hs),
		"time": exec.hit_time(c, hs[0]),
	}
}

# A bind failure ends the process within a traceback's length; one logged
# long before the end (a metrics exporter or TensorBoard that could not
# start) is not why the container failed.
_ended_the_process(h) if h.m.lastLine + 80 >= object.get(h.log, "lines", 0)

_ended_the_process(h) if regex.match(`(?i:address already in use)|EADDRINUSE|another process is utilizing it`, object.get(h.log, "exception", ""))

_port(texts) := ps[0] if {
	ps := [m[1] |
		some t in texts
		some m in regex.find_all_string_submatch_n(`(?:\]:|0\.0\.0\.0:|port:? |port \x60|port is |\):|port=)(\d{2,5})\b`, t, 1)
	]
	count(ps) > 0
} else := ""
