package traindoc.rules.exec.oom_killed_test

import data.traindoc.rules.exec.oom_killed

_pod(state, matches) := {
	"name": "bert-master-0", "namespace": "ml", "phase": "Failed", "conditions": [],
	"containers": [{
		"name": "pytorch", "restartCount": 0, "limits": {"memory": "64Gi"},
		"state": state, "lastState": {},
		"logs": [{"file": "logs/bert-master-0/pytorch.log", "previous": false, "lines": 100, "matches": matches, "tail": []}],
	}],
}

_m(text) := {"count": 1, "firstLine": 90, "lastLine": 90, "samples": [{"line": 90, "text": text}]}

test_fires_on_oomkilled_reason if {
	pod := _pod({"state": "terminated", "reason": "OOMKilled", "exitCode": 137, "finishedAt": "2026-03-01T10:00:00Z"}, {})
	fs := oom_killed.findings with input as {"phase": "Failed", "pods": [pod]}
	count(fs) == 1
	some f in fs
	f.subject.name == "bert-master-0"
	f.params.limit == "64Gi"
	f.time == "2026-03-01T10:00:00Z"
}

test_fires_on_torchrun_sigkill if {
	st := {"state": "terminated", "reason": "Error", "exitCode": 1, "finishedAt": "2026-03-01T10:00:00Z"}
	pod := _pod(st, {"launcher.sigkill": _m("  traceback : Signal 9 (SIGKILL) received by PID 415")})
	fs := oom_killed.findings with input as {"phase": "Failed", "pods": [pod]}
	count(fs) == 1
}

# A SIGKILL of a child after a CUDA OOM in the same container is not host memory.
test_not_sigkill_after_specific_error if {
	st := {"state": "terminated", "reason": "Error", "exitCode": 1, "finishedAt": "2026-03-01T10:00:00Z"}
	pod := _pod(st, {
		"launcher.sigkill": _m("  exitcode  : -9 (pid: 415)"),
		"exec.cuda-oom.torch": _m("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB"),
	})
	fs := oom_killed.findings with input as {"phase": "Failed", "pods": [pod]}
	count(fs) == 0
}

test_not_on_plain_error_exit if {
	pod := _pod({"state": "terminated", "reason": "Error", "exitCode": 137, "finishedAt": "2026-03-01T10:00:00Z"}, {})
	fs := oom_killed.findings with input as {"phase": "Failed", "pods": [pod]}
	count(fs) == 0
}

_launcher_re := s.pattern if {
	some s in data.traindoc.lib.exec.signatures
	s.id == "launcher.sigkill"
}

_re(id) := s.pattern if {
	some s in oom_killed.signatures
	s.id == id
}

test_signatures if {
	regex.match(_re("exec.oom-killed.dataloader"), "RuntimeError: DataLoader worker (pid 2714) is killed by signal: Killed.")
	regex.match(_re("exec.oom-killed.dataloader"), "RuntimeError: DataLoader worker (pid(s) 1601, 1602) exited unexpectedly") == false
	regex.match(_re("exec.oom-killed.ray"), "ray.exceptions.OutOfMemoryError: Task was killed due to the node running low on memory.")
	regex.match(_re("exec.oom-killed.ray"), "ray.exceptions.RayTaskError(OutOfMemoryError): ray::train_fn() (pid=123, ip=10.0.0.5)")
	regex.match(_launcher_re, "subprocess.CalledProcessError: Command '['/usr/bin/python', '-u', 'train.py', '--local_rank=0']' died with <Signals.SIGKILL: 9>.")
	regex.match(_launcher_re, "mpirun noticed that process rank 3 with PID 0 on node worker-1 exited on signal 9 (Killed).")
	not regex.match(_launcher_re, "mpirun noticed that process rank 3 with PID 0 on node worker-1 exited on signal 15 (Terminated).")
	regex.match(_re("exec.oom-killed.ray"), "(raylet) node_manager.cc:3040: 1 Workers (tasks / actors) killed due to memory pressure (OOM), 0 Workers crashed due to other reasons at node")
	not regex.match(_re("exec.oom-killed.ray"), "(raylet) node_manager.cc:3040: 0 Workers (tasks / actors) killed due to memory pressure (OOM), 2 Workers crashed due to other reasons at node")
	not regex.match(_re("exec.oom-killed.ray"), "Worker exit type: SYSTEM_ERROR Worker exit detail: Worker unexpectedly exits with a connection error code 2. End of file. There are some potential root causes. (1) The process is killed by SIGKILL by OOM killer due to high memory usage. (2) ray stop --force is called. (3) The worker is crashed unexpectedly due to SIGSEGV or other unexpected errors.")
	regex.match(_re("exec.oom-killed.kernel"), "[12345.678] Memory cgroup out of memory: Killed process 4242 (python) total-vm:123kB")
	regex.match(_re("launcher.shell-killed"), "/bin/bash: line 1:    25 Killed                  python train.py --epochs 3")
}
