package traindoc.rules.exec.nccl_error_test

import data.traindoc.lib.testing
import data.traindoc.rules.exec.nccl_error

# Not lib/testing's pod: pod w-3, exited at the time the assertions check.
_pod(matches) := {
	"name": "w-3", "namespace": "ml", "phase": "Failed", "conditions": [],
	"containers": [{
		"name": "pytorch", "restartCount": 0,
		"state": {"state": "terminated", "exitCode": 1, "finishedAt": "2026-03-15T06:55:33Z"}, "lastState": {},
		"logs": [{"file": "logs/w-3/pytorch.log", "previous": false, "lines": 10, "matches": matches, "tail": []}],
	}],
}

_m(line, text) := {"count": 1, "firstLine": line, "lastLine": line, "samples": [{"line": line, "text": text}]}

test_fires_ib_error_is_hardware if {
	pod := _pod({
		"exec.nccl-error.ib": _m(3, "node-7:1234:1300 [3] transport/net_ib.cc:1696 NCCL WARN NET/IB : Got completion from peer 10.1.2.3<36530> with error 12, opcode 32753, len 0, vendor err 129 (Recv) localGid ::ffff:10.1.2.4 remoteGid ::ffff:10.1.2.3"),
		"exec.nccl-error.result": _m(9, "torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1970, remote process exited or there was a network error, NCCL version 2.20.5"),
	})
	fs := nccl_error.findings with input as {"phase": "Failed", "pods": [pod]}
	count(fs) == 1
	some f in fs
	f.params.kind == "InfiniBand/RoCE link error (failed work completion or port event)"
	f.params.hint == ""
	f.owner == "hardware"
	f.evidence[0].line == 3
}

test_fires_duplicate_gpu_is_user if {
	pod := _pod({"exec.nccl-error.result": _m(4, "ncclInvalidUsage: This usually reflects invalid usage of NCCL library. Duplicate GPU detected : rank 1 and rank 0 both on CUDA device 1b000")})
	fs := nccl_error.findings with input as {"phase": "Failed", "pods": [pod]}
	some f in fs
	f.owner == "user"
}

test_quiet_in_succeeded_job if {
	pod := _pod({"exec.nccl-error.socket": _m(3, "NCCL WARN socketProgress: Connection closed by remote peer")})
	fs := nccl_error.findings with input as {"phase": "Succeeded", "pods": [pod]}
	count(fs) == 0
}

# A verbs call that fails in a pod without an RDMA device resource: the
# message says so.
test_fires_verbs_failure_without_rdma_resource if {
	pod := _pod({"exec.nccl-error.ibv": _m(5, "node08:6561:6600 [0] misc/ibvwrap.cc:280 NCCL WARN Call to ibv_create_qp failed")})
	fs := nccl_error.findings with input as {"phase": "Failed", "pods": [pod], "replicas": [{"type": "worker", "template": {"rdma": 0}}]}
	some f in fs
	f.params.kind == "an InfiniBand verbs call failed while setting up the transport"
	startswith(f.params.hint, "The pod requests no RDMA device")
	f.owner == "platform"
}

test_fires_verbs_failure_with_rdma_resource if {
	pod := _pod({"exec.nccl-error.ibv": _m(5, "node08:6561:6600 [0] misc/ibvwrap.cc:280 NCCL WARN Call to ibv_create_qp failed")})
	fs := nccl_error.findings with input as {"phase": "Failed", "pods": [pod], "replicas": [{"type": "worker", "template": {"rdma": 1}}]}
	some f in fs
	f.params.hint == ""
}

# A socket connect failure is more telling than the "unhandled system
# error" it causes.
test_fires_connect_failure_over_system_error if {
	pod := _pod({
		"exec.nccl-error.result": _m(4, "torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1333, unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version 2.18.6"),
		"exec.nccl-error.connect": _m(7, "socketStartConnect: Connect to 192.168.19.14<52822> failed : No route to host"),
	})
	fs := nccl_error.findings with input as {"phase": "Failed", "pods": [pod]}
	some f in fs
	f.params.kind == "NCCL could not connect to a peer over the socket network"
	f.evidence[0].line == 7
}

# NCCL's own "Cuda failure 'out of memory'" is left to exec.cuda-oom.
test_quiet_on_cuda_oom_inside_nccl if {
	pod := _pod({"exec.nccl-error.cuda": _m(4, "node-1:77:90 [2] NCCL WARN Cuda failure 'out of memory'")})
	count(nccl_error.findings) == 0 with input as {"phase": "Failed", "pods": [pod]}
}

test_fires_peer_access if {
	pod := _pod({"exec.nccl-error.cuda": _m(4, "z-pc:909608:910337 [0] transport/p2p.cc:238 NCCL WARN failed to open CUDA IPC handle : 217 peer access is not supported between these two devices")})
	fs := nccl_error.findings with input as {"phase": "Failed", "pods": [pod]}
	some f in fs
	f.params.kind == "peer-to-peer access between the GPUs is not supported"
}

test_fires_signatures if {
	regex.match(testing.pattern(nccl_error.signatures, "exec.nccl-error.result"), "RuntimeError: NCCL error in: /opt/pytorch/pytorch/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1269, internal error, NCCL version 2.14.3")
	regex.match(testing.pattern(nccl_error.signatures, "exec.nccl-error.result"), "torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1691, unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version 2.19.3")
	regex.match(testing.pattern(nccl_error.signatures, "exec.nccl-error.result"), "Unhandled exception: St13runtime_error. what(): NCCL Error 5: invalid usage")
	regex.match(testing.pattern(nccl_error.signatures, "exec.nccl-error.result"), "ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely.")
	regex.match(testing.pattern(nccl_error.signatures, "exec.nccl-error.ib"), "NCCL WARN NET/IB : Got completion from peer 10.0.0.2<51842> with status=IBV_WC_RETRY_EXC_ERR(12) opcode=IBV_WC_SEND(0) len=0 vendor err 129 (Send) hca mlx5_3")
	regex.match(testing.pattern(nccl_error.signatures, "exec.nccl-error.ofi"), "ip-10-0-1-2:79:2547 [0] nccl_net_ofi_rdma.c:1720 NCCL WARN NET/OFI Unable to register memory (type = 1) for device 0. RC: -12, Error: Cannot allocate memory")
	regex.match(testing.pattern(nccl_error.signatures, "exec.nccl-error.socket"), "misc/socket.cc:50 NCCL WARN socketProgress: Connection closed by remote peer trn-3<41422>")
	not regex.match(testing.pattern(nccl_error.signatures, "exec.nccl-error.result"), "NCCL INFO NET/Plugin : dlerror=libnccl-net.so: cannot open shared object file: No such file or directory No plugin found (libnccl-net.so), using internal implementation")
	not regex.match(testing.pattern(nccl_error.signatures, "exec.nccl-error.ib"), "NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/IB ; OOB eth0:10.0.0.1<0>")
	not regex.match(testing.pattern(nccl_error.signatures, "exec.nccl-error.socket"), "NCCL INFO NET/Socket : Using [0]eth0:10.0.0.1<0>")
	regex.match(testing.pattern(nccl_error.signatures, "exec.nccl-error.ib"), "hostname-test:984:1357 [4] ib_plugin.c:1615 NCCL WARN NET/IBP:Got completion from peer 172.36.143.59<44206> with status=12 opcode=129 len=65536 vendor err 129 (Recv)")
	regex.match(testing.pattern(nccl_error.signatures, "exec.nccl-error.ibv"), "crow-19:5330:7970 [3] misc/ibvwrap.cc:284 NCCL WARN Call to ibv_modify_qp failed with error Invalid argument")
	regex.match(testing.pattern(nccl_error.signatures, "exec.nccl-error.result"), "cupy_backends.cuda.libs.nccl.NcclError: NCCL_ERROR_UNHANDLED_CUDA_ERROR: unhandled cuda error")
	regex.match(testing.pattern(nccl_error.signatures, "exec.nccl-error.connect"), "dgx-2:77:90 [0] misc/socket.cc:484 NCCL WARN socketPollConnect: connect returned Connection refused, exceeded error retry count (35)")
	not regex.match(testing.pattern(nccl_error.signatures, "exec.nccl-error.ibv"), "NCCL INFO NCCL_IB_TIMEOUT set by environment to 22.")
}

# A truncated message names mismatched calls, ahead of the internal or
# invalid-usage result code that follows it.
test_fires_truncated_message_is_user_mismatch if {
	pod := _pod({
		"exec.nccl-error.mismatch": _m(2, "1: host-2:4827:6900 [4] bootstrap.cc:77 NCCL WARN Message truncated : received 256 bytes instead of 4"),
		"exec.nccl-error.result": _m(8, "torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1691, internal error - please report this issue to the NCCL developers, NCCL version 2.19.3"),
	})
	fs := nccl_error.findings with input as {"phase": "Failed", "pods": [pod]}
	count(fs) == 1
	some f in fs
	startswith(f.params.kind, "the ranks called mismatched collectives")
	f.owner == "user"
	f.retryable == false
	f.evidence[0].line == 2
}

# A ring that does not close is the topology, not NCCL's internal error.
test_fires_ring_not_looping_back_is_topology if {
	pod := _pod({
		"exec.nccl-error.topo": _m(2, "node-5:3048:4991 [2] graph/rings.cc:38 NCCL WARN Error : ring 2 does not loop back to start (7 != 2)"),
		"exec.nccl-error.result": _m(6, "RuntimeError: NCCL error in: ../torch/lib/c10d/ProcessGroupNCCL.cpp:825, internal error, NCCL version 2.9.9"),
	})
	fs := nccl_error.findings with input as {"phase": "Failed", "pods": [pod]}
	some f in fs
	f.params.kind == "the ranks computed inconsistent rings from the detected topology"
	f.owner == "platform"
}

# NCCL's own CUDA OOM in the container: the proxy failure and internal
# error after it are the OOM's, not a NCCL fault.
test_quiet_after_nccl_out_of_memory if {
	pod := _pod({
		"exec.nccl-error.cuda": _m(2, "node:2134736:2285781 [0] include/alloc.h:178 NCCL WARN Cuda failure 'out of memory'"),
		"exec.nccl-error.socket": _m(4, "node:2134736:2285781 [0] proxy.cc:1518 NCCL WARN [Proxy Service 93] Failed to execute operation Setup from rank 93, retcode 1"),
		"exec.nccl-error.result": _m(7, "torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1296, internal error - please report this issue to the NCCL developers, NCCL version 2.18.1"),
	})
	fs := nccl_error.findings with input as {"phase": "Failed", "pods": [pod]}
	count(fs) == 0
}

# A transient NCCL error leaves retrying to its category.
test_quiet_retry_left_to_category_for_platform_errors if {
	pod := _pod({"exec.nccl-error.result": _m(8, "torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1331, unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version 2.18.5")})
	fs := nccl_error.findings with input as {"phase": "Failed", "pods": [pod]}
	count(fs) == 1
	some f in fs
	not "retryable" in object.keys(f)
}
