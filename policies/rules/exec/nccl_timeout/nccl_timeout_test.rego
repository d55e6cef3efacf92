package traindoc.rules.exec.nccl_timeout_test

import data.traindoc.rules.exec.nccl_timeout

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
		f.params == {"op": "REDUCE_SCATTER_BASE", "timeout": "10 min"}
		f.time == "2026-03-15T06:55:28Z"
	}
}

# "Some NCCL operations have failed" after a NCCL error is not a timeout.
test_not_aborted_after_nccl_error if {
	pod := _pod("w-0", {
		"exec.nccl-timeout.aborted": _m("[Rank 0] Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data."),
		"exec.nccl-error.result": _m("torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1970, remote process exited or there was a network error, NCCL version 2.20.5"),
	})
	fs := nccl_timeout.findings with input as {"phase": "Failed", "pods": [pod]}
	count(fs) == 0
}

_re(id) := s.pattern if {
	some s in nccl_timeout.signatures
	s.id == id
}

test_signatures if {
	regex.match(_re("exec.nccl-timeout.watchdog"), _wd)
	regex.match(_re("exec.nccl-timeout.watchdog"), "[E ProcessGroupNCCL.cpp:458] [Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=96120, OpType=ALLREDUCE, Timeout(ms)=1800000) ran for 25624887 milliseconds before timing out.")
	regex.match(_re("exec.nccl-timeout.watchdog"), "RuntimeError: NCCL communicator was aborted on rank 1.  Original reason for failure was: [Rank 1] Watchdog caught collective operation timeout: WorkNCCL(OpType=ALLREDUCE, Timeout(ms)=1800000) ran for 1800108 milliseconds before timing out.")
	regex.match(_re("exec.nccl-timeout.aborted"), "[rank3]:[E1206 18:44:13.275514180 ProcessGroupNCCL.cpp:1375] [PG 0 Rank 3] ProcessGroupNCCL's watchdog got stuck for 480 seconds without making progress in monitoring enqueued collectives.")
	regex.match(_re("exec.nccl-timeout.gloo"), "RuntimeError: [../third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:81] Timed out waiting 1800000ms for recv operation to complete")
	not regex.match(_re("exec.nccl-timeout.watchdog"), "NCCL INFO comm 0x55d5c0 rank 0 nranks 16 cudaDev 0 busId 18000 - Init COMPLETE")
}
