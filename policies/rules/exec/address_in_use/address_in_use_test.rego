package traindoc.rules.exec.address_in_use_test

import data.traindoc.rules.exec.address_in_use

_line := "torch.distributed.DistNetworkError: The server socket has failed to listen on any local network address. The server socket has failed to bind to [::]:29500 (errno: 98 - Address already in use). The server socket has failed to bind to 0.0.0.0:29500 (errno: 98 - Address already in use)."

# Not lib/testing's pod: pod m-0 whose log always holds _line; the cases
# vary its exit code and progress, not its matches.
_pod(exit, progress) := {
	"name": "m-0", "namespace": "ml", "phase": "Running", "conditions": [],
	"containers": [{
		"name": "pytorch", "restartCount": 0,
		"state": {"state": "terminated", "exitCode": exit}, "lastState": {},
		"logs": [{
			"file": "logs/m-0/pytorch.log", "previous": false, "lines": 40, "tail": [], "progress": progress,
			"matches": {"exec.address-in-use": {"count": 1, "firstLine": 5, "lastLine": 5, "samples": [{"line": 5, "text": _line}]}},
		}],
	}],
}

test_fires_with_port if {
	fs := address_in_use.findings with input as {"phase": "Failed", "pods": [_pod(1, {})]}
	some f in fs
	f.params.port == "29500"
}

# A metrics exporter failing to bind in a job that trains on is not the failure.
test_quiet_when_training_continued if {
	fs := address_in_use.findings with input as {"phase": "Running", "pods": [_pod(0, {"lastStepLine": 5000})]}
	count(fs) == 0
}

# A metrics exporter that could not bind at start-up, long before the
# container failed of something else.
test_quiet_when_bind_failure_was_long_before_the_end if {
	pod := {
		"name": "m-0", "namespace": "ml", "phase": "Failed", "conditions": [],
		"containers": [{
			"name": "pytorch", "restartCount": 0, "state": {"state": "terminated", "exitCode": 1}, "lastState": {},
			"logs": [{
				"file": "logs/m-0/pytorch.log", "previous": false, "lines": 5000, "tail": [], "exception": "torch.OutOfMemoryError: CUDA out of memory.",
				"matches": {"exec.address-in-use": {"count": 1, "firstLine": 12, "lastLine": 12, "samples": [{"line": 12, "text": "OSError: [Errno 98] Address already in use: ('0.0.0.0', 9400)"}]}},
			}],
		}],
	}
	count(address_in_use.findings) == 0 with input as {"phase": "Failed", "pods": [pod]}
}

test_fires_signature if {
	some s in address_in_use.signatures
	regex.match(s.pattern, _line)
	regex.match(s.pattern, "RuntimeError: Address already in use")
	regex.match(s.pattern, "OSError: [Errno 98] Address already in use")
	regex.match(s.pattern, "torch.distributed.DistNetworkError: The server socket has failed to listen on any local network address. useIpv6: 0, code: -98, name: EADDRINUSE, message: address already in use")
	not regex.match(s.pattern, "NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>")
}

test_fires_signature_other_launchers if {
	some s in address_in_use.signatures
	regex.match(s.pattern, "ConnectionError: Tried to launch distributed communication on port `29500`, but another process is utilizing it. Please specify a different port (such as using the `--main_process_port` flag or specifying a different `main_process_port` in your config file) and rerun your script. To automatically use the next open port (on a single node), you can set this to `0`.")
	regex.match(s.pattern, "(raylet, ip=10.0.2.101) [2022-03-01 08:46:25,453 C 28711 28711] grpc_server.cc:93:  Check failed: server_ Failed to start the grpc server. The specified port is 8076. This means that Ray's core components will not be able to function correctly. If the server startup error message is `Address already in use`, it indicates the server fails to start because the port is already used by other processes.")
	not regex.match(s.pattern, "[W socket.cpp:436] [c10d] The server socket cannot be initialized on [::]:29500 (errno: 97 - Address family not supported by protocol).")
}

test_fires_with_accelerate_port if {
	line := "ConnectionError: Tried to launch distributed communication on port `29401`, but another process is utilizing it. Please specify a different port (such as using the `--main_process_port` flag or specifying a different `main_process_port` in your config file) and rerun your script."
	pod := json.patch(_pod(1, {}), [{"op": "replace", "path": "/containers/0/logs/0/matches/exec.address-in-use/samples/0/text", "value": line}])
	some f in address_in_use.findings with input as {"phase": "Failed", "pods": [pod]}
	f.params.port == "29401"
}
