package traindoc.rules.exec.rendezvous_failure_test

import data.traindoc.rules.exec.rendezvous_failure

_pod(matches, exit) := {
	"name": "w-1", "namespace": "ml", "phase": "Running", "conditions": [],
	"containers": [{
		"name": "pytorch", "restartCount": 0,
		"state": {"state": "terminated", "exitCode": exit, "finishedAt": "2026-03-01T10:00:00Z"}, "lastState": {},
		"logs": [{"file": "logs/w-1/pytorch.log", "previous": false, "lines": 10, "matches": matches, "tail": []}],
	}],
}

_m(text) := {"count": 1, "firstLine": 5, "lastLine": 5, "samples": [{"line": 5, "text": text}]}

test_fires_on_store_gone if {
	pod := _pod({"exec.rendezvous.error": _m("torch.distributed.DistNetworkError: failed to recv, got 0 bytes")}, 1)
	fs := rendezvous_failure.findings with input as {"phase": "Failed", "pods": [pod]}
	some f in fs
	f.params.error == "the rendezvous store went away (its host process exited)"
}

test_fires_on_timeout if {
	pod := _pod({"exec.rendezvous.error": _m("torch.distributed.elastic.rendezvous.api.RendezvousTimeoutError")}, 1)
	fs := rendezvous_failure.findings with input as {"phase": "Failed", "pods": [pod]}
	some f in fs
	f.params.error == "the rendezvous timed out waiting for all ranks"
}

# Connection retries while the master starts, in a job that then ran fine.
test_not_on_retry_warnings_in_healthy_container if {
	pod := _pod({"net.rendezvous-retry": _m("[W socket.cpp:663] [c10d] The client socket has failed to connect to [master-0]:29500 (errno: 99 - Cannot assign requested address).")}, 0)
	fs := rendezvous_failure.findings with input as {"phase": "Running", "pods": [pod]}
	count(fs) == 0
}

_re(id) := s.pattern if {
	some s in rendezvous_failure.signatures
	s.id == id
}

test_signatures if {
	regex.match(_re("exec.rendezvous.error"), "torch.distributed.DistStoreError: Timed out after 901 seconds waiting for clients. 1/2 clients joined.")
	regex.match(_re("exec.rendezvous.error"), "RuntimeError: Timed out initializing process group in store based barrier on rank: 3, for key: store_based_barrier_key:1 (world_size=4, worker_count=8, timeout=0:30:00)")
	regex.match(_re("exec.rendezvous.error"), "[E socket.cpp:957] [c10d] The client socket has timed out after 1800s while trying to connect to (master-0, 29500).")
	regex.match(_re("exec.rendezvous.error"), "torch.distributed.DistNetworkError: The client socket has timed out after 1800000ms while trying to connect to (10.0.0.1, 29500).")
	regex.match(_re("exec.rendezvous.error"), "ValueError: Error initializing torch.distributed using env:// rendezvous: environment variable MASTER_ADDR expected, but not set")
	regex.match(_re("exec.rendezvous.error"), "RuntimeError: [1] is setting up NCCL communicator and retrieving ncclUniqueId from [0] via c10d key-value store by key '0', but store->get('0') got error: Connection reset by peer")
	not regex.match(_re("exec.rendezvous.error"), "[W socket.cpp:663] [c10d] The client socket has failed to connect to [localhost]:29500 (errno: 99 - Cannot assign requested address).")
	regex.match(_re("net.rendezvous-retry"), "[W socket.cpp:663] [c10d] The client socket has failed to connect to [localhost]:29500 (errno: 99 - Cannot assign requested address).")
}
