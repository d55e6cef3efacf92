# METADATA
# title: NCCL fell back to TCP sockets
# description: |
#   The pods request EFA (or RDMA) devices, or run on nodes that have them,
#   but NCCL used its socket transport: the logs show "NET/Socket" or "Using
#   network Socket", or the network plugin failed to load or initialise,
#   and no rank ever logged "NET/OFI Selected provider is efa" (or "Using
#   network IB"). Collectives then run over TCP at a fraction of the
#   bandwidth, which shows up as slow steps or collective timeouts.
# custom:
#   severity: error
#   owner: platform
#   message:
#     en: "{{.fabric}} is available but NCCL used TCP sockets ({{.detail}})."
#     zh: "{{.fabric}} 可用，但 NCCL 使用了 TCP socket（{{.detail}}）。"
#   remediation:
#     en: |
#       - For EFA: install aws-ofi-nccl in the image (or use an AWS DLC/NGC image with it), and put its library directory (e.g. `/opt/amazon/ofi-nccl/lib/x86_64-linux-gnu`, `/opt/aws-ofi-nccl/lib`) and `/opt/amazon/efa/lib` on `LD_LIBRARY_PATH`; set `NCCL_NET=ofi` (older plugins: `NCCL_NET="AWS Libfabric"`) so NCCL fails instead of silently falling back.
#       - Request `vpc.amazonaws.com/efa` in every training container and set `FI_PROVIDER=efa`; check the EFA device plugin runs on the node.
#       - For InfiniBand/RoCE: request the RDMA device resource, mount `/dev/infiniband`, give the container IPC_LOCK and an unlimited memlock ulimit, and do not set `NCCL_IB_DISABLE=1`.
#       - Verify with `NCCL_DEBUG=INFO`: expect "NET/OFI Selected provider is efa" (or "Using network IB"), never "NET/Socket".
#     zh: |
#       - EFA：在镜像中安装 aws-ofi-nccl（或使用自带它的 AWS DLC/NGC 镜像），把其库目录（例如 `/opt/amazon/ofi-nccl/lib/x86_64-linux-gnu`、`/opt/aws-ofi-nccl/lib`）和 `/opt/amazon/efa/lib` 加入 `LD_LIBRARY_PATH`；设置 `NCCL_NET=ofi`（旧版插件为 `NCCL_NET="AWS Libfabric"`），使 NCCL 在无法使用 EFA 时直接报错而不是悄悄回退。
#       - 在每个训练容器中申请 `vpc.amazonaws.com/efa` 并设置 `FI_PROVIDER=efa`；确认节点上运行着 EFA 设备插件。
#       - InfiniBand/RoCE：申请 RDMA 设备资源，挂载 `/dev/infiniband`，给容器 IPC_LOCK 权限和不受限的 memlock ulimit，且不要设置 `NCCL_IB_DISABLE=1`。
#       - 用 `NCCL_DEBUG=INFO` 验证：应看到 "NET/OFI Selected provider is efa"（或 "Using network IB"），而不是 "NET/Socket"。
#   zh:
#     title: NCCL 回退到了 TCP socket
#     description: |
#       Pod 申请了 EFA（或 RDMA）设备，或运行在带有这些设备的节点上，但 NCCL 使用了 socket 传输：日志中出现 "NET/Socket" 或 "Using network Socket"，或网络插件加载、初始化失败，且没有任何 rank 输出 "NET/OFI Selected provider is efa"（或 "Using network IB"）。集合通信因此走 TCP，带宽只有一小部分，表现为 step 变慢或集合通信超时。
package traindoc.rules.exec.efa_fallback

import data.traindoc.lib.exec
import data.traindoc.lib.k8s

# Transport selection lines (NCCL_DEBUG=INFO); context, not failures.
signatures contains {
	"id": "net.nccl-socket",
	"pattern": `NET/Socket ?: ?Using|Using network Socket|Using internal [Nn]etwork Socket`,
}

signatures contains {
	"id": "net.ofi-efa",
	"pattern": `NET/OFI Selected [Pp]rovider is efa|via NET/AWS Libfabric|Using network (?:AWS Libfabric|Libfabric|OFI)`,
}

signatures contains {
	"id": "net.nccl-ib",
	"pattern": `Using network IB|Using internal [Nn]etwork IB|NET/IB ?: ?Using \[\d`,
}

# The external network plugin could not be found; harmless on clusters
# without EFA, a cause where EFA is expected.
signatures contains {
	"id": "net.plugin-missing",
	"pattern": `NET/Plugin ?: ?(?:Could not find:? ?libnccl-net|dlerror=libnccl-net|Plugin load \(?libnccl-net[^)]*\)? returned|No plugin found|Failed to open libnccl-net)|Unable to load libnccl-net`,
}

# aws-ofi-nccl loaded but could not bring EFA up.
signatures contains {
	"id": "exec.efa-fallback.ofi-init",
	"pattern": `NET/OFI (?:aws-ofi-nccl initialization failed|Unable to find a protocol that worked|Couldn't find any optimal provider|No eligible providers were found|Failed to initialize \w+ protocol)|OFI plugin initNet\(\) failed|NET/OFI .*no efa`,
}

_efa_expected if {
	some r in input.replicas
	object.get(r, ["template", "efa"], 0) > 0
}

_efa_expected if {
	some n in input.nodes
	object.get(n, "efa", 0) > 0
}

_rdma_expected if {
	some r in input.replicas
	object.get(r, ["template", "rdma"], 0) > 0
}

_fabric := "EFA" if _efa_expected

else := "RDMA (InfiniBand/RoCE)" if _rdma_expected

# The fabric was used somewhere in the job: then a socket line is a side
# channel, not the data path.
_fabric_used if {
	_efa_expected
	_any_match("net.ofi-efa")
}

_fabric_used if {
	not _efa_expected
	_any_match("net.nccl-ib")
}

_any_match(id) if {
	some pod in input.pods
	some c in k8s.containers(pod)
	some lf in exec.logs(c)
	lf.matches[id]
}

_detail := {
	"net.nccl-socket": "NCCL selected the socket transport",
	"net.plugin-missing": "the NCCL network plugin (libnccl-net) was not found",
	"exec.efa-fallback.ofi-init": "aws-ofi-nccl failed to initialise EFA",
}

_ids := {"net.nccl-socket", "net.plugin-missing", "exec.efa-fallback.ofi-init"}

findings contains f if {
	input.phase != "Succeeded"
	_fabric
	not _fabric_used
	some pod in input.pods
	some c in k8s.containers(pod)
	hs := [h | some h in _all_hits(pod, c); _counts(h.id)]
	count(hs) > 0
	best := _best(hs)
	f := {
		"subject": exec.subject(pod, c),
		"params": {"fabric": _fabric, "detail": _detail[best.id]},
		"evidence": exec.evidence(pod, c, array.concat([best], [h | some h in hs; h != best])),
		"time": exec.hit_time(c, hs[0]),
		"severity": _severity,
	}
}

# Every match counts here, even in a healthy-looking running container:
# transport selection happens once at start-up.
_all_hits(pod, c) := [{"log": lf, "id": id, "m": lf.matches[id]} |
	some lf in exec.logs(c)
	some id in _ids
	lf.matches[id]
]

# A missing plugin matters only for EFA (RDMA uses NCCL's built-in IB).
_counts("net.plugin-missing") if _efa_expected

_counts("net.nccl-socket")

_counts("exec.efa-fallback.ofi-init") if _efa_expected

_best(hs) := h if {
	some h in hs
	h.id == "exec.efa-fallback.ofi-init"
} else := h if {
	some h in hs
	h.id == "net.nccl-socket"
} else := hs[0]

# Slow but alive: a warning while the job runs; an error once it failed.
_severity := "warning" if input.phase == "Running"

else := "error"
