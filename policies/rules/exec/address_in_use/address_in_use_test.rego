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
