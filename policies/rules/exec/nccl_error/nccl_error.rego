# METADATA
# title: NCCL failed
# description: |
#   A NCCL call failed with an error rather than a timeout: a system or
#   internal error, a CUDA failure inside NCCL (peer-to-peer access not
#   supported, a GPU fault), invalid usage (two ranks on one GPU), ranks
#   whose messages do not match, no interface to bootstrap over, rings that
#   do not close, a remote peer that went away, or an InfiniBand/RoCE, EFA
#   (OFI) or socket transport error. Link errors point at the fabric; a failed verbs call
#   at how the device reaches the pod; "remote process exited" usually
#   means another rank died first.
# custom:
#   severity: error
#   owner: platform
#   explains: [job.backoff-exceeded, exec.nccl-timeout, exec.nonzero-exit]
#   message:
#     en: "NCCL failed: {{.kind}}.{{if .hint}} {{.hint}}{{end}}"
#     zh: "NCCL 出错：{{.kind_zh}}。{{if .hint}}{{.hint_zh}}{{end}}"
#   remediation:
#     en: |
#       - Rerun with `NCCL_DEBUG=INFO` (and `NCCL_DEBUG_SUBSYS=INIT,NET`) to get the "Last error" line; the NCCL WARN just before the failure names the call that failed.
#       - "remote process exited or there was a network error": find the rank that failed first (its own error is the cause) before suspecting the network.
#       - InfiniBand completion errors (status 12, vendor err 129, retry exceeded) and port events: check the HCA and cable of the nodes named, run `ibstat`/`ibv_devinfo` and nccl-tests between them, and drain the node if the errors repeat.
#       - A failed verbs call (`ibv_create_qp`, `ibv_reg_mr`, `ibv_modify_qp`): request the RDMA device resource (`rdma/...`), give the container IPC_LOCK and an unlimited memlock ulimit, and check `NCCL_IB_GID_INDEX` and `NCCL_IB_HCA` for RoCE.
#       - EFA/OFI errors: check the aws-ofi-nccl and libfabric versions against the NCCL version, `FI_EFA_USE_DEVICE_RDMA`, the memlock ulimit (unlimited) and hugepages.
#       - Connect failures ("No route to host", "Connection refused"): set `NCCL_SOCKET_IFNAME` to the pod interface (e.g. `eth0`) and make sure pods can reach each other on all ports (NetworkPolicy).
#       - "peer access is not supported": the GPUs cannot talk peer-to-peer in this VM or PCIe topology; set `NCCL_P2P_DISABLE=1` (or `NCCL_P2P_LEVEL=NVL`).
#       - "invalid usage" / "Duplicate GPU detected": each rank must use its own GPU; set the device from LOCAL_RANK and keep nproc-per-node <= GPUs per pod.
#       - "Message truncated" / "collective mismatch" / "Detected mismatch between collectives": every rank must call the same collectives in the same order with the same sizes; compare ranks with `NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=COLL`, and make sure all pods run the same image and NCCL_* settings (if `NCCL_PROTO=SIMPLE` cures it, the settings differ).
#       - "no socket interface found": `NCCL_SOCKET_IFNAME` must name an interface the pod has (`eth0` on most CNIs; check `ip addr` in the pod).
#       - "ring does not loop back": the nodes see their GPUs and NICs differently; run the same image and driver on every node, or set `NCCL_TOPO_FILE`; upgrade NCCL if only one version shows it.
#     zh: |
#       - 使用 `NCCL_DEBUG=INFO`（以及 `NCCL_DEBUG_SUBSYS=INIT,NET`）重新运行以获得 "Last error" 行；失败前的 NCCL WARN 会指出失败的调用。
#       - "remote process exited or there was a network error"：先找出最先失败的 rank（它自身的错误才是原因），再怀疑网络。
#       - InfiniBand 完成错误（status 12、vendor err 129、重试超限）和端口事件：检查相关节点的 HCA 和线缆，运行 `ibstat`/`ibv_devinfo` 以及节点间的 nccl-tests，错误反复出现时隔离该节点。
#       - verbs 调用失败（`ibv_create_qp`、`ibv_reg_mr`、`ibv_modify_qp`）：申请 RDMA 设备资源（`rdma/...`），给容器 IPC_LOCK 权限和不受限的 memlock ulimit，RoCE 环境下检查 `NCCL_IB_GID_INDEX` 和 `NCCL_IB_HCA`。
#       - EFA/OFI 错误：核对 aws-ofi-nccl、libfabric 与 NCCL 的版本是否匹配，检查 `FI_EFA_USE_DEVICE_RDMA`、memlock ulimit（unlimited）和大页内存。
#       - 连接失败（"No route to host"、"Connection refused"）：把 `NCCL_SOCKET_IFNAME` 设为 Pod 的网卡（例如 `eth0`），并确认 Pod 之间所有端口互通（NetworkPolicy）。
#       - "peer access is not supported"：在该虚拟机或 PCIe 拓扑下 GPU 之间无法点对点访问；设置 `NCCL_P2P_DISABLE=1`（或 `NCCL_P2P_LEVEL=NVL`）。
#       - "invalid usage" / "Duplicate GPU detected"：每个 rank 必须使用自己的 GPU；按 LOCAL_RANK 设置设备，并保证每节点进程数不超过每个 Pod 的 GPU 数。
#       - "Message truncated" / "collective mismatch" / "Detected mismatch between collectives"：所有 rank 必须以相同顺序、相同大小调用相同的集合通信；用 `NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=COLL` 对比各 rank，并确认所有 Pod 使用相同的镜像和 NCCL_* 设置（如果 `NCCL_PROTO=SIMPLE` 能解决，说明各处设置不一致）。
#       - "no socket interface found"：`NCCL_SOCKET_IFNAME` 必须是 Pod 中存在的网卡（多数 CNI 下为 `eth0`，可在 Pod 内用 `ip addr` 查看）。
#       - "ring does not loop back"：各节点看到的 GPU 和网卡拓扑不同；所有节点使用相同的镜像和驱动，或设置 `NCCL_TOPO_FILE`；如果只有某个 NCCL 版本出现，升级 NCCL。
#   zh:
#     title: NCCL 出错
#     description: |
#       NCCL 调用以错误（而非超时）失败：系统错误或内部错误、NCCL 内部的 CUDA 失败（不支持 GPU 点对点访问、GPU 故障）、用法错误（两个 rank 使用同一块 GPU）、各 rank 的消息大小不匹配、找不到用于 bootstrap 的网卡、通信环无法闭合、远端进程退出，或 InfiniBand/RoCE、EFA（OFI）、socket 传输错误。链路错误指向网络结构；verbs 调用失败指向设备如何接入 Pod；"remote process exited" 通常表示另一个 rank 先失败了。
package traindoc.rules.exec.nccl_error

import data.traindoc.lib.exec
import data.traindoc.lib.k8s
import data.traindoc.lib.net

# NCCL result codes as PyTorch, cupy, Horovod and nccl-tests print them.
signatures contains {
	"id": "exec.nccl-error.result",
	"pattern": `NCCL (?:error|Error \d+)(?: in: [^,]*, ?|: ?)(?:unhandled system error|internal error|unhandled cuda error|remote process exited or there was a network error|invalid usage|invalid argument)|\bnccl(?:SystemError|InternalError|UnhandledCudaError|RemoteError|InvalidUsage|InvalidArgument)\b|NCCL_ERROR_(?:UNHANDLED_CUDA_ERROR|SYSTEM_ERROR|INTERNAL_ERROR|INVALID_ARGUMENT|INVALID_USAGE|REMOTE_ERROR)|NCCL failure [\w./-]+:\d+ '(?:unhandled|internal|invalid|remote)|Duplicate GPU detected`,
}

# InfiniBand / RoCE link errors: a work completion failed or the port
# went down. The hardware or the cable between two nodes.
signatures contains {
	"id": "exec.nccl-error.ib",
	"pattern": `NET/IB\w* ?: ?Got completion (?:from peer .* )?with (?:error|status)|Transport retry count exceeded|NET/IB\w* ?: .*Got async (?:error )?event|IBV_WC_RETRY_EXC_ERR|NET/IB : .*port (?:error|down)`,
}

# A verbs call failed while setting up the transport: how the device
# reaches the pod (device plugin, memlock, GID index), not the link.
signatures contains {
	"id": "exec.nccl-error.ibv",
	"pattern": `Call to ibv_\w+ failed|ibv_(?:reg_mr|reg_dmabuf_mr|modify_qp|create_qp|create_cq|open_device|alloc_pd)\w* failed|NET/IB\w* ?: ?Unable to (?:open|query|register)`,
}

# aws-ofi-nccl and libfabric EFA errors after initialisation.
signatures contains {
	"id": "exec.nccl-error.ofi",
	"pattern": `NET/OFI (?:Unable to register memory|Couldn't open AV|Unable to insert remote address|Request .*completed with error|Unable to (?:post|send|receive)|OFI call \S+ failed|Error (?:from|in|posting|registering)|.*completion error)|efa_rdm_\w+_handle_error|libfabric:\d+:\d+::efa:.*(?:[Ee]rror|failed)`,
}

# The socket transport could not reach a peer: routing, the interface NCCL
# picked (NCCL_SOCKET_IFNAME) or a NetworkPolicy.
signatures contains {
	"id": "exec.nccl-error.connect",
	"pattern": `(?:NCCL WARN |^(?:\[rank\d+\]:\s*)?)(?:socketStartConnect|Net ?: ?Connect to|socketPollConnect|ncclSocketConnect)\S*:? .*(?:failed|refused|No route to host|unreachable|timed out|exceeded)`,
}

# A peer closed or reset the socket: usually it died.
signatures contains {
	"id": "exec.nccl-error.socket",
	"pattern": `(?:NCCL WARN |^(?:\[rank\d+\]:\s*)?)(?:socketProgress\w*|Net ?: ?(?:Call to \w+|Connection closed)|NET/Socket ?:|Call to recv from|socketPoll\w*|\[(?:Service thread|Proxy Service \d+)\]|Socket recv failed)[^\n]*(?:failed|closed|reset|[Ee]rror|Failed)`,
}

# Gloo's TCP transport: a peer closed or reset the connection.
signatures contains {
	"id": "exec.nccl-error.gloo",
	"pattern": `gloo/transport/tcp/pair\.cc:\d+\] (?:Connection closed by peer|Connection reset by peer|Read error|Write error)`,
}

# A receive larger than the buffer posted for it: ranks called a collective
# with different sizes or in a different order, or run with different NCCL
# settings (protocol, algorithm). Bootstrap, socket and IB wordings,
# NCCL 2.4-2.28; and PyTorch's own check under TORCH_DISTRIBUTED_DEBUG=DETAIL
# (1.10-2.8), which compares the ranks' collectives before running them.
signatures contains {
	"id": "exec.nccl-error.mismatch",
	"pattern": `[Mm]essage truncated ?: ?(?:received|receiving) \d+ bytes instead of \d+|collective mismatch error, local size -?\d+ remote size -?\d+|Detected mismatch between collectives on ranks`,
}

# NCCL found no network interface to bootstrap over: NCCL_SOCKET_IFNAME
# names an interface the pod does not have, or the pod has no usable one.
signatures contains {
	"id": "exec.nccl-error.ifname",
	"pattern": `Bootstrap ?: ?no (?:NCCL_SOCKET_IFNAME )?(?:socket )?interface found|ncclSocketInit: connecting to address .*with family \d+ is neither AF_INET`,
}

# Ranks computed different ring or tree layouts from what they detected of
# the topology (a node that sees its GPUs or NICs differently).
signatures contains {
	"id": "exec.nccl-error.topo",
	"pattern": `Error : ring \d+ does not (?:loop back to start|contain rank \d+)`,
}

# CUDA calls that failed inside NCCL (out of memory belongs to
# exec.cuda-oom).
signatures contains {
	"id": "exec.nccl-error.cuda",
	"pattern": `NCCL WARN Cuda failure|failed to open CUDA IPC handle`,
}

# [signature id, text regexp, kind (en), kind (zh), owner], most specific
# first.
_kinds := [
	["exec.nccl-error.ib", `.`, "InfiniBand/RoCE link error (failed work completion or port event)", "InfiniBand/RoCE 链路错误（工作完成失败或端口事件）", "hardware"],
	["exec.nccl-error.ibv", `.`, "an InfiniBand verbs call failed while setting up the transport", "建立传输时 InfiniBand verbs 调用失败", "platform"],
	["exec.nccl-error.ofi", `.`, "EFA/OFI transport error", "EFA/OFI 传输错误", "platform"],
	["exec.nccl-error.connect", `.`, "NCCL could not connect to a peer over the socket network", "NCCL 无法通过 socket 网络连接到对端", "platform"],
	["exec.nccl-error.mismatch", `.`, "the ranks called mismatched collectives (different sizes or order, or different NCCL settings)", "各 rank 调用的集合通信不匹配（大小或顺序不同，或 NCCL 设置不一致）", "user"],
	["exec.nccl-error.ifname", `.`, "NCCL found no network interface to bootstrap over (NCCL_SOCKET_IFNAME)", "NCCL 找不到可用于 bootstrap 的网卡（NCCL_SOCKET_IFNAME）", "user"],
	["exec.nccl-error.topo", `.`, "the ranks computed inconsistent rings from the detected topology", "各 rank 根据检测到的拓扑计算出的环不一致", "platform"],
	["exec.nccl-error.cuda", `peer access is not supported`, "peer-to-peer access between the GPUs is not supported", "GPU 之间不支持点对点访问", "platform"],
	["exec.nccl-error.result", `Duplicate GPU|[Ii]nvalid ?[Uu]sage|invalid usage|InvalidArgument|invalid argument|INVALID_(?:USAGE|ARGUMENT)`, "invalid usage (ranks sharing a GPU or mismatched calls)", "用法错误（多个 rank 共用一块 GPU 或调用不匹配）", "user"],
	["exec.nccl-error.cuda", `.`, "a CUDA call failed inside NCCL", "NCCL 内部的 CUDA 调用失败", "platform"],
	["exec.nccl-error.result", `unhandled cuda error|UnhandledCudaError|UNHANDLED_CUDA`, "unhandled CUDA error inside NCCL", "NCCL 内部未处理的 CUDA 错误", "platform"],
	["exec.nccl-error.result", `unhandled system error|SystemError|SYSTEM_ERROR`, "unhandled system error", "未处理的系统错误", "platform"],
	["exec.nccl-error.result", `internal error|InternalError|INTERNAL_ERROR`, "internal error", "内部错误", "platform"],
	["exec.nccl-error.result", `remote process exited|RemoteError|REMOTE_ERROR`, "a remote peer exited or the network failed", "远端进程退出或网络故障", "platform"],
	["exec.nccl-error.socket", `.`, "a peer closed the socket connection", "对端关闭了 socket 连接", "platform"],
	["exec.nccl-error.gloo", `.`, "a Gloo peer closed the connection", "Gloo 对端关闭了连接", "platform"],
]

_ids := {k[0] | some k in _kinds}

findings contains f if {
	some pod in input.pods
	some c in k8s.containers(pod)
	not _nccl_out_of_memory(pod, c)
	hs := [h | some h in exec.hits(pod, c, _ids); not _cuda_oom(h); not _gpu_fault(h)]
	count(hs) > 0
	k := _kind(hs)
	ordered := _ordered(hs, k[0])
	f := object.union(
		{
			"subject": exec.hit_subject(pod, c, ordered[0]),
			"params": object.union({"kind": k[2], "kind_zh": k[3]}, _hint(pod, k[0])),
			"evidence": exec.evidence(pod, c, ordered),
			"time": exec.hit_time(c, hs[0]),
			"owner": k[4],
		},
		_retry(k[4]),
	)
}

# A NCCL error of the job's own making (collectives that disagree, no
# interface to bootstrap over, ranks sharing a GPU) comes back on every
# restart, though most NCCL errors are transient.
_retry(owner) := {"retryable": false} if owner == "user"

else := {}

# NCCL's "Cuda failure 'out of memory'" is a CUDA OOM, not a NCCL fault.
_cuda_oom(h) if {
	h.id == "exec.nccl-error.cuda"
	every t in [s.text | some s in object.get(h.m, "samples", [])] {
		contains(t, "out of memory")
	}
}

# NCCL ran out of GPU memory in this container: what fails after it (the
# proxy's "Failed to execute operation Setup", "internal error", a peer's
# closed socket) follows from the OOM, which exec.cuda-oom reports.
_nccl_out_of_memory(pod, c) if {
	some h in exec.hits(pod, c, {"exec.nccl-error.cuda"})
	some t in object.get(h.m, "samples", [])
	contains(t.text, "'out of memory'")
}

# NCCL's "Cuda failure 'unknown error'" or an ECC failure is the GPU
# failing under NCCL: the GPU hardware rules report it on its node.
_gpu_fault(h) if {
	h.id == "exec.nccl-error.cuda"
	every t in [s.text | some s in object.get(h.m, "samples", [])] {
		regex.match(`(?i)'unknown error'|uncorrectable ECC|ECC error|GPU is lost|fallen off the bus`, t)
	}
}

# The most specific kind any hit shows.
_kind(hs) := _kinds[i] if {
	i := min({j |
		some j, k in _kinds
		some h in hs
		h.id == k[0]
		some t in object.get(h.m, "samples", [])
		regex.match(k[1], t.text)
	})
} else := ["", "", "NCCL error", "NCCL 错误", "platform"]

# The hit of the chosen kind first.
_ordered(hs, id) := array.concat([h | some h in hs; h.id == id], [h | some h in hs; h.id != id])

# A verbs failure in a pod that asks for no RDMA device: the device the
# pod uses is not the one the device plugin would give it.
_hint(pod, id) := {
	"hint": "The pod requests no RDMA device resource (rdma/*) although NCCL uses InfiniBand.",
	"hint_zh": "Pod 没有申请 RDMA 设备资源（rdma/*），但 NCCL 使用了 InfiniBand。",
} if {
	id == "exec.nccl-error.ibv"
	not net.pod_requests_rdma(pod)
	not net.pod_requests_efa(pod)
	not net.rdma_requested
} else := {"hint": "", "hint_zh": ""}
