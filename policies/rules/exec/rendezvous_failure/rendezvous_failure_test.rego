package traindoc.rules.exec.rendezvous_failure_test

import data.traindoc.lib.testing
import data.traindoc.rules.exec.rendezvous_failure

# Not lib/testing's pod: pod w-1 whose exit code each case sets.
_pod(matches, exit) := {
	"name": "w-1", "namespace": "ml", "phase": "Running", "conditions": [],
	"containers": [{
		"name": "pytorch", "restartCount": 0,
		"state": {"state": "terminated", "exitCode": exit, "finishedAt": "2026-03-01T10:00:00Z"}, "lastState": {},
		"logs": [{"file": "logs/w-1/pytorch.log", "previous": false, "lines": 60, "matches": matches, "tail": []}],
	}],
}

_m(text) := {"count": 1, "firstLine": 50, "lastLine": 50, "samples": [{"line": 50, "text": text}]}

_ms(texts) := {"count": count(texts), "firstLine": 10, "lastLine": 49, "samples": [{"line": 10 + i, "text": t} | some i, t in texts]}

_timeout := "torch.distributed.DistNetworkError: The client socket has timed out after 900s while trying to connect to (llama-ft-master-0, 29500)."

_cause(matches) := f.params if {
	fs := rendezvous_failure.findings with input as {"phase": "Failed", "pods": [_pod(matches, 1)]}
	some f in fs
}

test_fires_on_store_gone if {
	p := _cause({"exec.rendezvous.error": _m("torch.distributed.DistNetworkError: failed to recv, got 0 bytes")})
	p == {"cause": "store-exited", "endpoint": ""}
}

test_fires_on_rendezvous_timeout if {
	p := _cause({"exec.rendezvous.error": _m("torch.distributed.elastic.rendezvous.api.RendezvousTimeoutError")})
	p.cause == "ranks-missing"
}

# A generic connect timeout is refined by the retries before it.
test_fires_dns_from_retries if {
	p := _cause({
		"exec.rendezvous.error": _m(_timeout),
		"net.rendezvous-dns": _ms(["[W501 10:02:11.381 socket.cpp:755] [c10d] The IPv4 network addresses of (llama-ft-master-0, 29500) cannot be retrieved (gai error: -2 - Name or service not known)."]),
	})
	p == {"cause": "dns", "endpoint": "llama-ft-master-0:29500"}
}

# Only the IPv6 lookup failed, and no connect attempt followed: the name
# did not resolve at all.
test_fires_dns_from_ipv6_lookups_alone if {
	p := _cause({
		"exec.rendezvous.error": _m(_timeout),
		"net.rendezvous-gai6": _ms(["[W socket.cpp:601] [c10d] The IPv6 network addresses of (llama-ft-master-0, 29500) cannot be retrieved (gai error: -2 - Name or service not known)."]),
	})
	p.cause == "dns"
}

# The IPv6 lookup failed but IPv4 connect attempts were refused: not DNS.
test_fires_ipv6_lookup_then_refused if {
	p := _cause({
		"exec.rendezvous.error": _m(_timeout),
		"net.rendezvous-gai6": _ms(["[W socket.cpp:601] [c10d] The IPv6 network addresses of (llama-ft-master-0, 29500) cannot be retrieved (gai error: -2 - Name or service not known)."]),
		"net.rendezvous-retry": _ms(["[W socket.cpp:601] [c10d] The client socket has failed to connect to [llama-ft-master-0]:29500 (errno: 111 - Connection refused)."]),
	})
	p.cause == "refused"
}

test_fires_refused_from_retries if {
	p := _cause({
		"exec.rendezvous.error": _m(_timeout),
		"net.rendezvous-retry": _ms(["[W socket.cpp:601] [c10d] The client socket has failed to connect to [llama-ft-master-0]:29500 (errno: 111 - Connection refused)."]),
	})
	p.cause == "refused"
}

# Timeouts while the name resolves: packets are dropped (NetworkPolicy).
test_fires_timeout_without_retries if {
	p := _cause({"exec.rendezvous.error": _m(_timeout)})
	p == {"cause": "timeout", "endpoint": "llama-ft-master-0:29500"}
}

test_fires_endpoint_from_bracketed_address if {
	p := _cause({
		"exec.rendezvous.error": _m(_timeout),
		"net.rendezvous-retry": _ms(["[W socket.cpp:601] [c10d] The client socket has failed to connect to [elastic-example-imagenet-worker-0.default.svc.cluster.local]:43461 (errno: 113 - No route to host)."]),
	})
	p.cause == "unreachable"
}

# Connection retries while the master starts, in a job that then ran fine.
test_quiet_on_retry_warnings_in_healthy_container if {
	pod := _pod({"net.rendezvous-retry": _m("[W socket.cpp:663] [c10d] The client socket has failed to connect to [master-0]:29500 (errno: 111 - Connection refused).")}, 0)
	fs := rendezvous_failure.findings with input as {"phase": "Running", "pods": [pod]}
	count(fs) == 0
}

# A failed container whose only trace is torchrun's IPv6 loopback attempt.
test_quiet_on_loopback_noise if {
	pod := _pod({"net.rendezvous-retry": _m("[W socket.cpp:663] [c10d] The client socket has failed to connect to [localhost]:29500 (errno: 99 - Cannot assign requested address).")}, 1)
	count(rendezvous_failure.findings) == 0 with input as {"phase": "Failed", "pods": [pod]}
}

# Died while still retrying, with nothing else: a warning naming the cause.
test_fires_retries_until_the_end if {
	pod := _pod({"net.rendezvous-retry": _m("[W socket.cpp:601] [c10d] The client socket has failed to connect to [trainer-master-0]:23456 (errno: 110 - Connection timed out).")}, 1)
	fs := rendezvous_failure.findings with input as {"phase": "Failed", "pods": [pod]}
	some f in fs
	f.severity == "warning"
	f.params == {"cause": "timeout", "endpoint": "trainer-master-0:23456"}
}

# The previous instance could not reach the master; the current one trains.
test_quiet_after_recovered_restart if {
	pod := {
		"name": "w-1", "namespace": "ml", "phase": "Running", "conditions": [],
		"containers": [{
			"name": "pytorch", "restartCount": 1, "state": {"state": "running"}, "lastState": {"state": "terminated", "exitCode": 1},
			"logs": [
				{"file": "logs/w-1/pytorch.previous.log", "previous": true, "lines": 60, "tail": [], "matches": {"exec.rendezvous.error": _m("ValueError: host not found: Name or service not known")}},
				{"file": "logs/w-1/pytorch.log", "previous": false, "lines": 900, "tail": [], "matches": {}, "progress": {"lastStepLine": 880}},
			],
		}],
	}
	count(rendezvous_failure.findings) == 0 with input as {"phase": "Running", "pods": [pod]}
}

test_fires_signatures if {
	regex.match(testing.pattern(rendezvous_failure.signatures, "exec.rendezvous.error"), "torch.distributed.DistStoreError: Timed out after 901 seconds waiting for clients. 1/2 clients joined.")
	regex.match(testing.pattern(rendezvous_failure.signatures, "exec.rendezvous.error"), "RuntimeError: Timed out initializing process group in store based barrier on rank: 3, for key: store_based_barrier_key:1 (world_size=4, worker_count=8, timeout=0:30:00)")
	regex.match(testing.pattern(rendezvous_failure.signatures, "exec.rendezvous.error"), "[E socket.cpp:957] [c10d] The client socket has timed out after 1800s while trying to connect to (master-0, 29500).")
	regex.match(testing.pattern(rendezvous_failure.signatures, "exec.rendezvous.error"), "ValueError: Error initializing torch.distributed using env:// rendezvous: environment variable MASTER_ADDR expected, but not set")
	regex.match(testing.pattern(rendezvous_failure.signatures, "exec.rendezvous.error"), "RuntimeError: [1] is setting up NCCL communicator and retrieving ncclUniqueId from [0] via c10d key-value store by key '0', but store->get('0') got error: Connection reset by peer")
	regex.match(testing.pattern(rendezvous_failure.signatures, "exec.rendezvous.error"), "RuntimeError: connect() timed out. Original timeout was 60000 ms.")
	not regex.match(testing.pattern(rendezvous_failure.signatures, "exec.rendezvous.error"), "[W socket.cpp:663] [c10d] The client socket has failed to connect to [localhost]:29500 (errno: 99 - Cannot assign requested address).")
	not regex.match(testing.pattern(rendezvous_failure.signatures, "exec.rendezvous.error"), "[W426 16:56:01.831041000 TCPStore.cpp:347] [c10d] TCP client failed to connect/validate to host 100.64.0.1:59782 - retrying (try=6, timeout=1800000ms, delay=5241ms): Connection reset by peer")
	regex.match(testing.pattern(rendezvous_failure.signatures, "net.rendezvous-retry"), "[W426 16:56:01.831041000 TCPStore.cpp:347] [c10d] TCP client failed to connect/validate to host 100.64.0.1:59782 - retrying (try=6, timeout=1800000ms, delay=5241ms): Connection reset by peer")
	regex.match(testing.pattern(rendezvous_failure.signatures, "net.rendezvous-retry"), "[W socket.cpp:663] [c10d] The client socket has failed to connect to [localhost]:29500 (errno: 99 - Cannot assign requested address).")
	not regex.match(testing.pattern(rendezvous_failure.signatures, "net.rendezvous-dns"), "[W socket.cpp:601] [c10d] The IPv6 network addresses of (localhost, 51595) cannot be retrieved (gai error: -2 - Name or service not known).")
}

# PyTorch 2.x puts the last attempt's errno in the error itself.
test_fires_unreachable_from_error_errno if {
	p := _cause({"exec.rendezvous.error": _m("torch.distributed.DistNetworkError: The client socket has failed to connect to any network address of (192.168.121.122, 1040). The client socket has failed to connect to 192.168.121.122:1040 (errno: 113 - No route to host).")})
	p == {"cause": "unreachable", "endpoint": "192.168.121.122:1040"}
}

# A store read that timed out: some rank never wrote its key.
test_fires_ranks_missing_on_socket_timeout if {
	p := _cause({"exec.rendezvous.error": _m("RuntimeError: Socket Timeout")})
	p.cause == "ranks-missing"
}
