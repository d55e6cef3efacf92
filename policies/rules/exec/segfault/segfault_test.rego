package traindoc.rules.exec.segfault_test

import data.traindoc.rules.exec.segfault

# Not lib/testing's pod: pod w-0 whose exit code each case sets (139, 1):
# the rule reads it.
_pod(exit, matches) := {
	"name": "w-0", "namespace": "ml", "phase": "Failed", "conditions": [],
	"containers": [{
		"name": "pytorch", "restartCount": 0,
		"state": {"state": "terminated", "exitCode": exit, "finishedAt": "2026-03-01T10:00:00Z"}, "lastState": {},
		"logs": [{"file": "logs/w-0/pytorch.log", "previous": false, "lines": 10, "matches": matches, "tail": []}],
	}],
}

_m(text) := {"count": 1, "firstLine": 4, "lastLine": 4, "samples": [{"line": 4, "text": text}]}

test_fires_on_segfault_line if {
	pod := _pod(139, {"exec.segfault.sigsegv": _m("Fatal Python error: Segmentation fault")})
	fs := segfault.findings with input as {"phase": "Failed", "pods": [pod]}
	count(fs) == 1
	some f in fs
	f.params.signal == "SIGSEGV"
}

test_fires_on_exit_139_alone if {
	fs := segfault.findings with input as {"phase": "Failed", "pods": [_pod(139, {})]}
	some f in fs
	f.params.signal == "SIGSEGV (exit code 139)"
}

# The watchdog's abort after a collective timeout is the timeout's consequence.
test_quiet_abort_after_watchdog if {
	pod := _pod(1, {
		"launcher.sigabrt": _m("  traceback : Signal 6 (SIGABRT) received by PID 100"),
		"exec.segfault.sigabrt": _m("terminate called after throwing an instance of 'c10::DistBackendError'"),
		"exec.nccl-timeout.watchdog": _m("[Rank 7] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1, OpType=ALLREDUCE, Timeout(ms)=600000)"),
	})
	count(segfault.findings) == 0 with input as {"phase": "Failed", "pods": [pod]}
}

test_fires_signatures if {
	some s in segfault.signatures
	s.id == "exec.segfault.sigsegv"
	regex.match(s.pattern, "/bin/bash: line 1:    31 Segmentation fault      (core dumped) python train.py")
	regex.match(s.pattern, "*** SIGSEGV (@0x0) received by PID 1234 (TID 0x7f) from PID 0; stack trace: ***")
	not regex.match(s.pattern, "Worker exit type: SYSTEM_ERROR Worker exit detail: Worker unexpectedly exits with a connection error code 2. End of file. There are some potential root causes. (1) The process is killed by SIGKILL by OOM killer due to high memory usage. (2) ray stop --force is called. (3) The worker is crashed unexpectedly due to SIGSEGV or other unexpected errors.")
}

# Launchers that forward a child's death by signal through subprocess or
# torch.multiprocessing.spawn.
test_fires_forwarded_signals if {
	some s in segfault.signatures
	s.id == "exec.segfault.sigsegv"
	regex.match(s.pattern, "subprocess.CalledProcessError: Command '['python', 'train.py']' died with <Signals.SIGSEGV: 11>.")
	regex.match(s.pattern, "torch.multiprocessing.spawn.ProcessExitedException: process 0 terminated with signal SIGSEGV")
	not regex.match(s.pattern, "torch.multiprocessing.spawn.ProcessExitedException: process 0 terminated with signal SIGKILL")
	some a in segfault.signatures
	a.id == "exec.segfault.sigabrt"
	regex.match(a.pattern, "torch.multiprocessing.spawn.ProcessExitedException: process 1 terminated with signal SIGABRT")
}
