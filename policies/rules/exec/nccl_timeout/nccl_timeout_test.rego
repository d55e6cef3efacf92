package traindoc.rules.exec.nccl_timeout_test

import data.traindoc.lib.testing
import data.traindoc.rules.exec.nccl_timeout

# Not lib/testing's pod: one pod per rank, by name, exited at the time the
# assertions check.
_pod(name, matches) := {
	"name": name, "namespace": "ml", "phase": "Failed", "conditions": [],
	"containers": [{
		"name": "pytorch", "restartCount": 0,
		"state": {"state": "terminated", "exitCode": 1, "finishedAt": "2026-03-15T06:55:33Z"}, "lastState": {},
		"logs": [{"file": sprintf("logs/%s/pytorch.log", [name]), "previous": false, "lines": 10, "matches": matches, "tail": []}],
	}],
}

_m(text) := {"count": 8, "firstLine": 5, "lastLine": 9, "firstTime": "2026-03-15T06:55:28Z", "samples": [{"line": 5, "text": text}]}

_wd := "[rank7]:[E315 06:55:28.955044259 ProcessGroupNCCL.cpp:632] [PG ID 0 PG GUID 0(default_pg) Rank 7] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=26419, OpType=_REDUCE_SCATTER_BASE, NumelIn=134217728, NumelOut=134217728, Timeout(ms)=600000) ran for 600063 milliseconds before timing out."

test_fires_with_same_params_on_every_rank if {
	pods := [_pod("w-0", {"exec.nccl-timeout.watchdog": _m(_wd)}), _pod("w-1", {"exec.nccl-timeout.watchdog": _m(_wd)})]
	fs := nccl_timeout.findings with input as {"phase": "Failed", "pods": pods}
	count(fs) == 2
	every f in fs {
		f.params == {"op": "REDUCE_SCATTER_BASE", "timeout": "10 min", "stuck": ""}
		f.time == "2026-03-15T06:55:28Z"
	}
}

# "Some NCCL operations have failed" after a NCCL error is not a timeout.
test_quiet_aborted_after_nccl_error if {
	pod := _pod("w-0", {
		"exec.nccl-timeout.aborted": _m("[Rank 0] Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data."),
		"exec.nccl-error.result": _m("torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1970, remote process exited or there was a network error, NCCL version 2.20.5"),
	})
	fs := nccl_timeout.findings with input as {"phase": "Failed", "pods": [pod]}
	count(fs) == 0
}

# The heartbeat monitor alone: the watchdog thread hung.
test_fires_heartbeat_monitor_alone if {
	stuck := "[rank6]:[E429 13:55:49.384372190 ProcessGroupNCCL.cpp:1743] [PG ID 0 PG GUID 0(default_pg) Rank 6] ProcessGroupNCCL's watchdog got stuck for 480 seconds without making progress in monitoring enqueued collectives."
	fs := nccl_timeout.findings with input as {"phase": "Failed", "pods": [_pod("w-0", {"exec.nccl-timeout.aborted": _m(stuck)})]}
	some f in fs
	f.params == {"op": "collective", "timeout": "", "stuck": "480 s"}
}

# A rank that only received the dump signal from another rank's timeout.
test_fires_dump_signal_from_another_rank if {
	dump := "[rank6]:[E703 21:51:54.112142364 ProcessGroupNCCL.cpp:1987] [PG ID 0 PG GUID 0(default_pg) Rank 6] Received a dump signal due to a collective timeout from  rank 7 and we will try our best to dump the debug info. Last enqueued NCCL work: 56116, last completed NCCL work: 56116."
	fs := nccl_timeout.findings with input as {"phase": "Failed", "pods": [_pod("w-0", {"exec.nccl-timeout.watchdog": _m(dump)})]}
	count(fs) == 1
}

# A running job whose training went on after the line is not timed out.
test_quiet_when_training_continued if {
	pod := {
		"name": "w-0", "namespace": "ml", "phase": "Running", "conditions": [],
		"containers": [{
			"name": "pytorch", "restartCount": 0, "state": {"state": "running"}, "lastState": {},
			"logs": [{"file": "logs/w-0/pytorch.log", "previous": false, "lines": 900, "matches": {"exec.nccl-timeout.watchdog": _m(_wd)}, "tail": [], "progress": {"lastStepLine": 800}}],
		}],
	}
	count(nccl_timeout.findings) == 0 with input as {"phase": "Running", "pods": [pod]}
}

test_fires_signatures if {
	regex.match(testing.pattern(nccl_timeout.signatures, "exec.nccl-timeout.watchdog"), _wd)
	regex.match(testing.pattern(nccl_timeout.signatures, "exec.nccl-timeout.watchdog"), "[E ProcessGroupNCCL.cpp:458] [Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=96120, OpType=ALLREDUCE, Timeout(ms)=1800000) ran for 25624887 milliseconds before timing out.")
	regex.match(testing.pattern(nccl_timeout.signatures, "exec.nccl-timeout.watchdog"), "RuntimeError: NCCL communicator was aborted on rank 1.  Original reason for failure was: [Rank 1] Watchdog caught collective operation timeout: WorkNCCL(OpType=ALLREDUCE, Timeout(ms)=1800000) ran for 1800108 milliseconds before timing out.")
	regex.match(testing.pattern(nccl_timeout.signatures, "exec.nccl-timeout.aborted"), "[rank3]:[E1206 18:44:13.275514180 ProcessGroupNCCL.cpp:1375] [PG 0 Rank 3] ProcessGroupNCCL's watchdog got stuck for 480 seconds without making progress in monitoring enqueued collectives.")
	regex.match(testing.pattern(nccl_timeout.signatures, "exec.nccl-timeout.gloo"), "RuntimeError: [../third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:81] Timed out waiting 1800000ms for recv operation to complete")
	not regex.match(testing.pattern(nccl_timeout.signatures, "exec.nccl-timeout.watchdog"), "NCCL INFO comm 0x55d5c0 rank 0 nranks 16 cudaDev 0 busId 18000 - Init COMPLETE")
	regex.match(testing.pattern(nccl_timeout.signatures, "exec.nccl-timeout.watchdog"), "[rank0]:[E1206 18:44:16.994932383 ProcessGroupNCCL.cpp:1709] [PG 1 Rank 0] Timeout at NCCL work: 7753, last enqueued NCCL work: 7755, last completed NCCL work: 7752.")
	regex.match(testing.pattern(nccl_timeout.signatures, "exec.nccl-timeout.aborted"), "[rank118]:[E603 17:48:01.005538748 ProcessGroupNCCL.cpp:2268] [PG ID 0 PG GUID 0(default_pg) Rank 118]  failure detected by watchdog at work sequence id: 2398459 PG status: last enqueued work: 2398578, last completed work: 2398458")
	not regex.match(testing.pattern(nccl_timeout.signatures, "exec.nccl-timeout.watchdog"), "[I ProcessGroupNCCL.cpp:852] [Rank 0] ProcessGroupNCCL initialization options: NCCL version: 2.20.5, TORCH_NCCL_ASYNC_ERROR_HANDLING: 1, TORCH_NCCL_DUMP_ON_TIMEOUT: 0, TIMEOUT(ms): 1800000")
	not regex.match(testing.pattern(nccl_timeout.signatures, "exec.nccl-timeout.aborted"), "[I ProcessGroupNCCL.cpp:852] [Rank 0] ProcessGroupNCCL initialization options: NCCL version: 2.20.5, TORCH_NCCL_ASYNC_ERROR_HANDLING: 1, TORCH_NCCL_DUMP_ON_TIMEOUT: 0, TIMEOUT(ms): 1800000")
}

# The abort lines after a truncated message (one of the NCCL errors named
# since) are the error's, not a timeout.
test_quiet_aborted_after_truncated_message if {
	pod := _pod("w-0", {
		"exec.nccl-timeout.aborted": _m("[rank3]:[E ProcessGroupNCCL.cpp:1537] [PG 0 Rank 3] Exception (either an error or timeout) detected by watchdog at work: 12, last enqueued NCCL work: 12, last completed NCCL work: 11."),
		"exec.nccl-error.mismatch": _m("node-2:4827:6900 [4] bootstrap.cc:77 NCCL WARN Message truncated : received 256 bytes instead of 4"),
	})
	fs := nccl_timeout.findings with input as {"phase": "Failed", "pods": [pod]}
	count(fs) == 0
}

# A rank that reached a monitored barrier and gave up waiting on rank 0.
test_fires_monitored_barrier_on_waiting_rank if {
	pod := _pod("w-2", {"exec.nccl-timeout.gloo": _m("RuntimeError: Rank 2 successfully reached monitoredBarrier, but received errors while waiting for send/recv from rank 0. Please check rank 0 logs for faulty rank.")})
	fs := nccl_timeout.findings with input as {"phase": "Failed", "pods": [pod]}
	some f in fs
	f.params.op == "collective"
}

# Blocking wait: the call itself times out, with the collective named.
test_fires_on_blocking_wait_timeout if {
	pod := _pod("w-3", {"exec.nccl-timeout.watchdog": _m("[rank3]:[E1002 18:16:40.711756918 ProcessGroupNCCL.cpp:756] [Rank 3] Work WorkNCCL(SeqNum=2521, OpType=ALLREDUCE, NumelIn=160672064, NumelOut=160672064, Timeout(ms)=600000) timed out in blocking wait.")})
	fs := nccl_timeout.findings with input as {"phase": "Failed", "pods": [pod]}
	some f in fs
	f.params == {"op": "ALLREDUCE", "timeout": "10 min", "stuck": ""}
}
