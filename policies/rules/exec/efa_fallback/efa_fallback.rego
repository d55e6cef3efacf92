# METADATA
# title: NCCL fell back to TCP sockets
# description: |
#   The pods request EFA (or RDMA) devices, or run on nodes that have them,
#   but NCCL used its socket transport: the logs show "NET/Socket" or "Using
#   network Socket", or the network plugin failed to load or initialise,
#   and no rank ever logged "NET/OFI Selected provider is efa" (or "Using
#   network IB"), or one did while another process of the same pod chose
#   "Using network Socket". Collectives then run over TCP at a fraction of the
#   bandwidth, which shows up as slow steps or collective timeouts.
# custom:
#   severity: error
#   owner: platform
#   message:
#     en: "{{.fabric}} is available but NCCL used TCP sockets ({{.detail.en}})."
#     zh: "{{.fabric}} 可用，但 NCCL 使用了 TCP socket（{{.detail.zh}}）。"
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
#       Pod 申请了 EFA（或 RDMA）设备，或运行在带有这些设备的节点上，但 NCCL 使用了 socket 传输：日志中出现 "NET/Socket" 或 "Using network Socket"，或网络插件加载、初始化失败，且没有任何 rank 输出 "NET/OFI Selected provider is efa"（或 "Using network IB"），或者虽有 rank 输出了它，同一 Pod 中的另一个进程却选择了 "Using network Socket"。集合通信因此走 TCP，带宽只有一小部分，表现为 step 变慢或集合通信超时。
package traindoc.rules.exec.efa_fallback

import data.traindoc.lib.exec
import data.traindoc.lib.k8s
import data.traindoc.lib.net

# Transport selection lines (NCCL_DEBUG=INFO); context, not failures: the
# socket transport is NCCL's normal choice on a node without a fabric.
signatures contains {
	"id": "net.nccl-socket",
	"pattern": `NET/Socket ?: ?Using|Using network Socket|Using internal [Nn]etwork Socket|via NET/Socket/\d|Initialized NET plugin Socket|Assigned NET plugin Socket to comm`,
}

# The transport a communicator actually uses. Printed after the fabric was
# selected, it says that selection did not hold for every process (the
# plugin gave up after picking EFA, or one rank fell back while others did
# not).
signatures contains {
	"id": "net.nccl-socket-chosen",
	"pattern": `Using network Socket|Using internal [Nn]etwork Socket|via NET/Socket/\d|Assigned NET plugin Socket to comm`,
}

signatures contains {
	"id": "net.ofi-efa",
	"pattern": `NET/OFI Selected [Pp]rovider is efa|via NET/(?:AWS )?Libfabric/\d|Using network (?:AWS Libfabric|Libfabric|OFI)`,
}

signatures contains {
	"id": "net.nccl-ib",
	"pattern": `Using network IB|Using internal [Nn]etwork IB|NET/IB ?: ?Using \[\d|via NET/IB\w*/\d`,
}

# The external network plugin could not be found; harmless on clusters
# without EFA, a cause where EFA is expected.
signatures contains {
	"id": "net.plugin-missing",
	"pattern": `NET/Plugin ?: ?(?:Could not find:? ?libnccl-net|dlerror=|Plugin load \(?libnccl-net[^)]*\)? returned|No plugin found|Failed to open libnccl-net)|Unable to load libnccl-net|NET/Plugin: Plugin load returned \d+ : libnccl-net`,
}

# aws-ofi-nccl or libfabric could not bring EFA up, or picked another
# provider. On a single node, or a node without EFA, NCCL does not need
# it and these lines are noise; hence context ids.
signatures contains {
	"id": "net.ofi-init-failed",
	"pattern": `NET/OFI (?:aws-ofi-nccl initialization failed|Initializing plugin failed|Unable to find a protocol that worked|Couldn't find any optimal provider|No eligible providers were found|Failed to initialize \w+ protocol|OFI fi_getinfo\(\) call failed|Only EFA provider is supported|Couldn't open a fabric (?:access domain|provider)|Creating new endpoint for domain \S+ failed|Unable to find a usable|EFA provider requires at least [Ll]ibfabric)|OFI plugin initNet\(\) failed|fi_getinfo: provider efa output empty list|NET/OFI Selected [Pp]rovider is (?:tcp|sockets|udp|shm)\b`,
}

# NCCL was told to use a plugin (NCCL_NET) that failed: it stops instead
# of falling back, with "invalid usage" right after.
signatures contains {
	"id": "net.net-plugin-failed",
	"pattern": `Failed to initialize any NET plugin`,
}

# No InfiniBand/RoCE device was visible to NCCL.
signatures contains {
	"id": "net.ib-no-device",
	"pattern": `NET/IB ?: ?No device found|Failed to open libibverbs\.so|Failed to initialize NET plugin IB\b`,
}

_fabric := "EFA" if net.efa_expected

else := "RDMA (InfiniBand/RoCE)" if _rdma_expected

_rdma_expected if net.rdma_requested

_rdma_expected if count(net.rdma_on_nodes) > 0

_detail := {
	"net.nccl-socket": {"en": "NCCL selected the socket transport", "zh": "NCCL 选择了 socket 传输"},
	"net.plugin-missing": {"en": "the NCCL network plugin (libnccl-net) was not found", "zh": "找不到 NCCL 网络插件（libnccl-net）"},
	"net.ofi-init-failed": {"en": "aws-ofi-nccl could not initialise EFA", "zh": "aws-ofi-nccl 无法初始化 EFA"},
	"net.net-plugin-failed": {"en": "the NCCL network plugin failed to initialise", "zh": "NCCL 网络插件初始化失败"},
	"net.ib-no-device": {"en": "NCCL found no InfiniBand/RoCE device", "zh": "NCCL 没有找到 InfiniBand/RoCE 设备"},
}

# Which lines count depends on the fabric expected: the OFI plugin only
# matters for EFA (RDMA uses NCCL's built-in IB transport), a missing IB
# device only for RDMA.
_counts("net.nccl-socket")

_counts("net.net-plugin-failed")

_counts("net.plugin-missing") if _fabric == "EFA"

_counts("net.ofi-init-failed") if _fabric == "EFA"

_counts("net.ib-no-device") if _fabric != "EFA"

_ids := {id | some id, _ in _detail}

findings contains f if {
	input.phase != "Succeeded"
	_fabric
	net.multi_node
	some pod in input.pods
	some c in k8s.containers(pod)
	not _fabric_used(c)
	hs := [h | some h in _all_hits(c); _counts(h.id)]
	count(hs) > 0
	best := _best(hs)
	some subject in _subjects(pod, c, best)
	f := {
		"subject": subject,
		"params": {"fabric": _fabric, "detail": _detail[best.id]},
		"evidence": exec.evidence(pod, c, array.concat([best], [h | some h in hs; h != best])),
		"time": exec.hit_time(c, hs[0]),
		"severity": _severity,
	}
}

# A launcher (mpirun) forwards every rank's output into its own log and
# takes no part in the collectives: the transport was chosen in the
# training pods, which all run the same image, so the finding is about
# each of them. Any other container's own ranks are its subject.
_subjects(pod, c, best) := {s |
	net.launcher(pod)
	some tp in input.pods
	not net.launcher(tp)
	count(object.get(tp, "containers", [])) > 0
	s := k8s.container_subject(tp, tp.containers[0])
} if net.launcher(pod)

else := {exec.hit_subject(pod, c, best)}

# The fabric was selected by this container's NCCL and no communicator of
# it chose sockets: then a socket line or a failed provider probe is a side
# channel, not the data path. One process that selected EFA does not clear
# its neighbours that fell back (ranks of one pod each load the plugin).
_fabric_used(c) if {
	_fabric == "EFA"
	net.matched(c, "net.ofi-efa")
	not net.matched(c, "net.nccl-socket-chosen")
}

_fabric_used(c) if {
	_fabric != "EFA"
	net.matched(c, "net.nccl-ib")
	not net.matched(c, "net.nccl-socket-chosen")
}

# Every match counts here, even in a healthy-looking running container:
# transport selection happens once at start-up, and a grep of session
# logs collected from the pod says it as well as the container's output.
_all_hits(c) := [h |
	some pair in sort([[m.firstLine, id, lf.file] |
		some lf in exec.scanned(c)
		some id in _ids
		m := lf.matches[id]
	])
	some lf in exec.scanned(c)
	lf.file == pair[2]
	h := {"log": lf, "id": pair[1], "m": lf.matches[pair[1]]}
]

# The line that says most: the plugin's own failure, then the transport
# NCCL chose, then the rest.
_rank := {
	"net.ofi-init-failed": 0,
	"net.net-plugin-failed": 1,
	"net.ib-no-device": 2,
	"net.nccl-socket": 3,
	"net.plugin-missing": 4,
}

_best(hs) := hs[i] if {
	r := min({_rank[h.id] | some h in hs})
	i := min({j | some j, h in hs; _rank[h.id] == r})
}

# Slow but alive: a warning while the job runs; an error once it failed.
_severity := "warning" if input.phase == "Running"

else := "error"
