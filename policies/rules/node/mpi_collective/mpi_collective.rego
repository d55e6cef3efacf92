# METADATA
# title: A Horovod or MPI collective failed
# description: |
#   Horovod raised HorovodInternalError (an allreduce, allgather or
#   broadcast failed: "ncclAllReduce failed: unhandled cuda error", or
#   "Horovod has been shut down" because another rank raised an exception
#   or finished), or Open MPI reported that "An MPI communication peer
#   process has unexpectedly disconnected", or the MPI library's error
#   handler reported a failed collective ("An error occurred in
#   MPI_Allreduce", "Fatal error in PMPI_Allreduce", MPI_ERR_TRUNCATE when
#   ranks disagree on a message size). The collective failed on this rank
#   because of another rank or the transport between them; the first rank
#   that failed, the node or GPU under it, or ranks that call different
#   collectives or sizes, is usually the cause.
#   Horovod Elastic's HostsUpdatedInterrupt, a planned membership change,
#   is not a failure.
# custom:
#   category: exec.nccl-error
#   severity: error
#   owner: user
#   message:
#     en: "A Horovod/MPI collective failed: {{.error}}."
#     zh: "Horovod/MPI 集合通信失败：{{.error}}。"
#   remediation:
#     en: |
#       - Find the first rank that failed: with `mpirun --tag-output` every line carries its rank ("[1,3]<stderr>:"); its exception, an OOM kill or a GPU fault on its node is the cause, and this error is the consequence.
#       - "ncclAllReduce failed: unhandled cuda error" or "unknown error": look for Xid errors on that rank's node (`dmesg | grep -i xid`) and at its CUDA errors.
#       - "Horovod has been shut down": one rank raised an exception or left the training loop early (uneven data per rank); make every rank run the same number of steps, or use `hvd.join()`.
#       - For a transport failure, check the network (NCCL_DEBUG=INFO, `-x NCCL_IB_HCA`, `-mca btl_tcp_if_include`), and retry from the last checkpoint.
#       - MPI_ERR_TRUNCATE or "Message truncated": ranks pass buffers of different sizes to the same collective, or call collectives in a different order; check that every rank reduces the same tensors in the same order.
#     zh: |
#       - 找到第一个失败的 rank：使用 `mpirun --tag-output` 时每行都带有 rank（"[1,3]<stderr>:"）；该 rank 的异常、被内存不足杀死或其节点上的 GPU 故障才是原因，本错误是后果。
#       - "ncclAllReduce failed: unhandled cuda error" 或 "unknown error"：在该 rank 所在节点上查找 Xid 错误（`dmesg | grep -i xid`），并查看它的 CUDA 错误。
#       - "Horovod has been shut down"：某个 rank 抛出异常或提前退出训练循环（各 rank 数据量不一致）；让所有 rank 执行相同的步数，或使用 `hvd.join()`。
#       - 传输层故障时检查网络（NCCL_DEBUG=INFO、`-x NCCL_IB_HCA`、`-mca btl_tcp_if_include`），并从最近的检查点重试。
#       - MPI_ERR_TRUNCATE 或 "Message truncated"：各 rank 向同一个集合操作传入的缓冲区大小不同，或调用集合操作的顺序不同；请确认每个 rank 以相同顺序归约相同的张量。
#   zh:
#     title: Horovod 或 MPI 集合通信失败
#     description: |
#       Horovod 抛出 HorovodInternalError（allreduce、allgather 或 broadcast 失败："ncclAllReduce failed: unhandled cuda error"，或因另一个 rank 抛出异常或已结束而出现 "Horovod has been shut down"），或 Open MPI 报告 "An MPI communication peer process has unexpectedly disconnected"，或 MPI 库的错误处理器报告集合通信失败（"An error occurred in MPI_Allreduce"、"Fatal error in PMPI_Allreduce"，以及各 rank 对消息大小不一致时的 MPI_ERR_TRUNCATE）。集合通信在本 rank 上失败是由其他 rank 或它们之间的传输导致的；第一个失败的 rank、其所在的节点与 GPU，或调用了不同集合操作或不同大小的 rank，通常才是原因。Horovod Elastic 的 HostsUpdatedInterrupt 是计划内的成员变化，不是故障。
package traindoc.rules.node.mpi_collective

import data.traindoc.lib.exec
import data.traindoc.lib.k8s

signatures contains {
	"id": "exec.mpi-collective.horovod",
	"pattern": `HorovodInternalError|Horovod has been shut down\. This (?:was|has been) caused by an exception on one of the rank`,
	"hint": "Horovod",
}

signatures contains {
	"id": "exec.mpi-collective.peer",
	"pattern": `An MPI communication peer process has unexpectedly disconnected|MPI_ERR_PROC_FAILED`,
}

# An MPI library's own report of a failed collective: Open MPI's error
# handler ("*** An error occurred in MPI_Allreduce", then the error class,
# e.g. "*** MPI_ERR_TRUNCATE: message truncated" when ranks disagree on a
# size), MPICH, Intel MPI and Cray MPICH ("Fatal error in PMPI_Allreduce:
# Other MPI error, error stack:", or the stack's "MPI_Allreduce(855)...:
# MPI_Allreduce(sbuf=...) failed"), and mpi4py-style wrappers
# ("MPI_Allreduce returned error code 15: ..."). Point-to-point calls are
# left out, except for a truncated message, which is one rank sending more
# than its peer expects.
_collective := `(?:Allreduce|Iallreduce|Reduce|Reduce_scatter|Reduce_scatter_block|Bcast|Ibcast|Allgather|Allgatherv|Iallgather|Gather|Gatherv|Scatter|Scatterv|Alltoall|Alltoallv|Barrier)`

signatures contains {
	"id": "exec.mpi-collective.mpi",
	"pattern": concat("", [
		`\*\*\* An error occurred in MPI_`, _collective, `\b`,
		`|Fatal error in P?MPI_`, _collective, `: `,
		`|\bP?MPI_`, _collective, `\(\d+\)\.*: MPI_`, _collective, `\(.*\) failed`,
		`|MPI_`, _collective, ` returned error code \d+`,
		`|\bMPI_ERR_TRUNCATE\b`,
	]),
	"hint": "MPI",
}

_ids := {"exec.mpi-collective.horovod", "exec.mpi-collective.peer", "exec.mpi-collective.mpi"}

findings contains f if {
	some pod in input.pods
	some c in k8s.containers(pod)
	hs := exec.hits(pod, c, _ids)
	count(hs) > 0
	f := {
		"subject": exec.hit_subject(pod, c, hs[0]),
		"params": {"error": _error(exec.sample_text(hs[0]))},
		"evidence": exec.evidence(pod, c, hs),
		"time": exec.hit_time(c, hs[0]),
	}
}

# The first words after the exception name, or the kind of failure.
_error(t) := trim_space(m[0][1]) if {
	m := regex.find_all_string_submatch_n(`HorovodInternalError: ([^\n]{1,120})`, t, 1)
	count(m) == 1
} else := "Horovod was shut down after an exception on another rank" if {
	contains(t, "Horovod has been shut down")
} else := "an MPI peer process disconnected" if {
	regex.match(`peer process has unexpectedly disconnected|PROC_FAILED`, t)
} else := "a message was truncated (ranks disagree on a buffer size)" if {
	regex.match(`MPI_ERR_TRUNCATE|[Mm]essage truncated`, t)
} else := sprintf("%s failed", [m[0][1]]) if {
	m := regex.find_all_string_submatch_n(`\bP?(MPI_[A-Z][a-z_]+)\b`, t, 1)
	count(m) == 1
} else := "an MPI collective failed" if {
	contains(t, "MPI")
	not contains(t, "Horovod")
} else := "HorovodInternalError"
