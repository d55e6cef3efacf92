# METADATA
# title: NCCL failed
# description: |
#   A NCCL call failed with an error rather than a timeout: a system or
#   internal error, a CUDA failure inside NCCL, invalid usage (two ranks on
#   one GPU), a remote peer that went away, or an InfiniBand, EFA (OFI) or
#   socket transport error. Network and transport errors point at the
#   fabric; "remote process exited" usually means another rank died first.
# custom:
#   severity: error
#   owner: platform
#   explains: [job.backoff-exceeded]
#   message:
#     en: "NCCL failed: {{.kind}}."
#     zh: "NCCL 出错：{{.kind}}。"
#   remediation:
#     en: |
#       - Rerun with `NCCL_DEBUG=INFO` (and `NCCL_DEBUG_SUBSYS=INIT,NET`) to get the "Last error" line; the NCCL WARN just before the failure names the call that failed.
#       - "remote process exited or there was a network error": find the rank that failed first (its own error is the cause) before suspecting the network.
#       - InfiniBand completion errors (error 12, vendor err 129, retry exceeded) and link events: check the HCA and cable of the nodes named, run `ibstat`/`ibv_devinfo` and nccl-tests between them, and drain the node if the errors repeat.
#       - EFA/OFI errors: check the aws-ofi-nccl and libfabric versions against the NCCL version, `FI_EFA_USE_DEVICE_RDMA`, the memlock ulimit (unlimited) and hugepages.
#       - "invalid usage" / "Duplicate GPU detected": each rank must use its own GPU; set the device from LOCAL_RANK and keep nproc-per-node <= GPUs per pod.
#       - "unhandled system error" at init: check `NCCL_SOCKET_IFNAME`, /dev/shm size, and that all pods can reach each other on all ports.
#     zh: |
#       - 使用 `NCCL_DEBUG=INFO`（以及 `NCCL_DEBUG_SUBSYS=INIT,NET`）重新运行以获得 "Last error" 行；失败前的 NCCL WARN 会指出失败的调用。
#       - "remote process exited or there was a network error"：先找出最先失败的 rank（它自身的错误才是原因），再怀疑网络。
#       - InfiniBand 完成错误（error 12、vendor err 129、重试超限）和链路事件：检查相关节点的 HCA 和线缆，运行 `ibstat`/`ibv_devinfo` 以及节点间的 nccl-tests，错误反复出现时隔离该节点。
#       - EFA/OFI 错误：核对 aws-ofi-nccl、libfabric 与 NCCL 的版本是否匹配，检查 `FI_EFA_USE_DEVICE_RDMA`、memlock ulimit（unlimited）和大页内存。
#       - "invalid usage" / "Duplicate GPU detected"：每个 rank 必须使用自己的 GPU；按 LOCAL_RANK 设置设备，并保证每节点进程数不超过每个 Pod 的 GPU 数。
#       - 初始化时的 "unhandled system error"：检查 `NCCL_SOCKET_IFNAME`、/dev/shm 大小，以及所有 Pod 之间所有端口是否互通。
#   zh:
#     title: NCCL 出错
#     description: |
#       NCCL 调用以错误（而非超时）失败：系统错误或内部错误、NCCL 内部的 CUDA 失败、用法错误（两个 rank 使用同一块 GPU）、远端进程退出，或 InfiniBand、EFA（OFI）、socket 传输错误。网络和传输错误指向网络结构；"remote process exited" 通常表示另一个 rank 先失败了。
package traindoc.rules.exec.nccl_error

import data.traindoc.lib.exec
import data.traindoc.lib.k8s

# NCCL result codes as PyTorch, cupy and NCCL print them.
signatures contains {
	"id": "exec.nccl-error.result",
	"pattern": `NCCL (?:error|Error \d+)(?: in: [^,]*, ?|: ?)(?:unhandled system error|internal error|unhandled cuda error|remote process exited or there was a network error|invalid usage|invalid argument)|\bnccl(?:SystemError|InternalError|UnhandledCudaError|RemoteError|InvalidUsage|InvalidArgument)\b|Duplicate GPU detected`,
}

# InfiniBand / RoCE transport errors.
signatures contains {
	"id": "exec.nccl-error.ib",
	"pattern": `NET/IB ?: ?Got completion from peer .* with (?:error|status)|Transport retry count exceeded|NET/IB ?: .*Got async (?:error )?event|ibv_reg_mr\w* failed|ibv_modify_qp failed|Call to ibv_\w+ failed`,
}

# aws-ofi-nccl and libfabric EFA errors.
signatures contains {
	"id": "exec.nccl-error.ofi",
	"pattern": `NET/OFI (?:Unable to register memory|Couldn't open AV|Request .*completed with error|Unable to (?:post|send|receive)|OFI call \S+ failed|Error (?:from|in|posting|registering))|efa_rdm_\w+_handle_error|libfabric:\d+:\d+::efa:.*(?:[Ee]rror|failed)`,
}

# The socket transport: a peer closed or reset the connection.
signatures contains {
	"id": "exec.nccl-error.socket",
	"pattern": `NCCL WARN (?:socketProgress\w*|Net ?: Connect to|NET/Socket ?:|Call to recv from|socketPoll)[^\n]*(?:failed|closed|reset|[Ee]rror)`,
	"hint": "NCCL WARN",
}

_kinds := [
	["exec.nccl-error.ib", `.`, "InfiniBand transport error", "hardware"],
	["exec.nccl-error.ofi", `.`, "EFA/OFI transport error", "platform"],
	["exec.nccl-error.result", `Duplicate GPU|[Ii]nvalid ?[Uu]sage|invalid usage|InvalidArgument|invalid argument`, "invalid usage (ranks sharing a GPU or mismatched calls)", "user"],
	["exec.nccl-error.result", `unhandled cuda error|UnhandledCudaError`, "unhandled CUDA error inside NCCL", "platform"],
	["exec.nccl-error.result", `unhandled system error|SystemError`, "unhandled system error", "platform"],
	["exec.nccl-error.result", `internal error|InternalError`, "internal error", "platform"],
	["exec.nccl-error.result", `remote process exited|RemoteError`, "a remote peer exited or the network failed", "platform"],
	["exec.nccl-error.socket", `.`, "a peer closed the socket connection", "platform"],
]

_ids := {k[0] | some k in _kinds}

findings contains f if {
	some pod in input.pods
	some c in k8s.containers(pod)
	hs := exec.hits(pod, c, _ids)
	count(hs) > 0
	k := _kind(hs)
	f := {
		"subject": exec.hit_subject(pod, c, hs[0]),
		"params": {"kind": k[2]},
		"evidence": exec.evidence(pod, c, _ordered(hs, k[0])),
		"time": exec.hit_time(c, hs[0]),
		"owner": k[3],
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
} else := ["", "", "NCCL error", "platform"]

# The hit of the chosen kind first.
_ordered(hs, id) := array.concat([h | some h in hs; h.id == id], [h | some h in hs; h.id != id])
