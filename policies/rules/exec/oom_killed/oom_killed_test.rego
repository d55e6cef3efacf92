package traindoc.rules.exec.oom_killed_test

import data.traindoc.lib.testing
import data.traindoc.rules.exec.oom_killed

# Not lib/testing's pod: pod bert-master-0 with a 64Gi memory limit, which
# the assertions check.
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
test_quiet_sigkill_after_specific_error if {
	st := {"state": "terminated", "reason": "Error", "exitCode": 1, "finishedAt": "2026-03-01T10:00:00Z"}
	pod := _pod(st, {
		"launcher.sigkill": _m("  exitcode  : -9 (pid: 415)"),
		"exec.cuda-oom.torch": _m("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB"),
	})
	fs := oom_killed.findings with input as {"phase": "Failed", "pods": [pod]}
	count(fs) == 0
}

test_quiet_on_plain_error_exit if {
	pod := _pod({"state": "terminated", "reason": "Error", "exitCode": 137, "finishedAt": "2026-03-01T10:00:00Z"}, {})
	fs := oom_killed.findings with input as {"phase": "Failed", "pods": [pod]}
	count(fs) == 0
}

_launcher_re := s.pattern if {
	some s in data.traindoc.lib.exec.signatures
	s.id == "launcher.sigkill"
}

# The kernel, Ray and DataLoader signatures are declared in lib/resources,
# which oom_killed and killed share.
_signatures := array.concat([x | some x in oom_killed.signatures], [x | some x in data.traindoc.lib.resources.signatures])

test_fires_signatures if {
	regex.match(testing.pattern(_signatures, "exec.oom-killed.dataloader"), "RuntimeError: DataLoader worker (pid 2714) is killed by signal: Killed.")
	regex.match(testing.pattern(_signatures, "exec.oom-killed.dataloader"), "RuntimeError: DataLoader worker (pid(s) 1601, 1602) exited unexpectedly") == false
	regex.match(testing.pattern(_signatures, "exec.oom-killed.ray"), "ray.exceptions.OutOfMemoryError: Task was killed due to the node running low on memory.")
	regex.match(testing.pattern(_signatures, "exec.oom-killed.ray"), "ray.exceptions.RayTaskError(OutOfMemoryError): ray::train_fn() (pid=123, ip=10.0.0.5)")
	regex.match(_launcher_re, "subprocess.CalledProcessError: Command '['/usr/bin/python', '-u', 'train.py', '--local_rank=0']' died with <Signals.SIGKILL: 9>.")
	regex.match(_launcher_re, "mpirun noticed that process rank 3 with PID 0 on node worker-1 exited on signal 9 (Killed).")
	not regex.match(_launcher_re, "mpirun noticed that process rank 3 with PID 0 on node worker-1 exited on signal 15 (Terminated).")
	regex.match(testing.pattern(_signatures, "exec.oom-killed.ray"), "(raylet) node_manager.cc:3040: 1 Workers (tasks / actors) killed due to memory pressure (OOM), 0 Workers crashed due to other reasons at node")
	not regex.match(testing.pattern(_signatures, "exec.oom-killed.ray"), "(raylet) node_manager.cc:3040: 0 Workers (tasks / actors) killed due to memory pressure (OOM), 2 Workers crashed due to other reasons at node")
	not regex.match(testing.pattern(_signatures, "exec.oom-killed.ray"), "Worker exit type: SYSTEM_ERROR Worker exit detail: Worker unexpectedly exits with a connection error code 2. End of file. There are some potential root causes. (1) The process is killed by SIGKILL by OOM killer due to high memory usage. (2) ray stop --force is called. (3) The worker is crashed unexpectedly due to SIGSEGV or other unexpected errors.")
	regex.match(testing.pattern(_signatures, "exec.oom-killed.kernel"), "[12345.678] Memory cgroup out of memory: Killed process 4242 (python) total-vm:123kB")
	regex.match(testing.pattern(_signatures, "launcher.shell-killed"), "/bin/bash: line 1:    25 Killed                  python train.py --epochs 3")
}

_node_event(reason, msg, t) := {
	"type": "Warning", "reason": reason, "message": msg, "count": 1,
	"object": {"kind": "Node", "name": "gpu-node-3"},
	"firstTime": t, "lastTime": t,
}

_error137 := {"state": "terminated", "reason": "Error", "exitCode": 137, "finishedAt": "2026-03-01T10:00:00Z"}

# The kernel killed a child process (not PID 1): the status says Error,
# the node's OOMKilling event says why.
test_fires_on_node_oomkilling_event if {
	pod := object.union(_pod(_error137, {}), {"nodeName": "gpu-node-3", "uid": "5f0e7a52-0000-4000-8000-000000000002"})
	ev := _node_event("OOMKilling", "Memory cgroup out of memory: Killed process 31337 (pt_main_thread) total-vm:92341232kB, anon-rss:65012340kB, file-rss:0kB, shmem-rss:0kB, UID:0 pgtables:130000kB oom_score_adj:-997", "2026-03-01T09:59:58Z")
	fs := oom_killed.findings with input as {"phase": "Failed", "pods": [pod], "events": [ev]}
	count(fs) == 1
	some f in fs
	f.time == "2026-03-01T09:59:58Z"
	f.params.how == {"en": "the node's kernel OOM killer killed a process of the container", "zh": "节点内核的 OOM killer 杀死了容器中的一个进程"}
}

# An OOM kill on the node an hour earlier, or of another pod's cgroup, is
# not this container's.
test_quiet_on_unrelated_node_oom if {
	pod := object.union(_pod(_error137, {}), {"nodeName": "gpu-node-3", "uid": "5f0e7a52-0000-4000-8000-000000000002"})
	early := _node_event("OOMKilling", "Memory cgroup out of memory: Killed process 1 (python) total-vm:1kB", "2026-03-01T08:50:00Z")
	other := _node_event("OOMKilling", "oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset=x,mems_allowed=0-1,oom_memcg=/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod0a1b2c3d_1111_2222_3333_444455556666.slice,task=python,pid=9,uid=0", "2026-03-01T09:59:00Z")
	count(oom_killed.findings) == 0 with input as {"phase": "Failed", "pods": [pod], "events": [early, other]}
}

test_fires_on_dmesg_in_pod if {
	st := {"state": "terminated", "reason": "Error", "exitCode": 1, "finishedAt": "2026-03-01T10:00:00Z"}
	pod := object.union(_pod(st, {}), {"exec": {"other": [{"name": "dmesg.txt", "file": "exec/bert-master-0/dmesg.txt", "text": "[1.0] boot\n[88412.1] Memory cgroup out of memory: Killed process 4242 (python3) total-vm:123kB, anon-rss:99kB\n"}]}})
	fs := oom_killed.findings with input as {"phase": "Failed", "pods": [pod], "events": []}
	count(fs) == 1
}

test_fires_on_cgroup_counter if {
	pod := object.union(_pod(_error137, {}), {"exec": {"other": [{"name": "memory-events.txt", "file": "exec/bert-master-0/memory-events.txt", "text": "low 0\nhigh 0\nmax 1822\noom 3\noom_kill 1\n"}]}})
	fs := oom_killed.findings with input as {"phase": "Failed", "pods": [pod], "events": []}
	count(fs) == 1
}

test_quiet_on_zero_cgroup_counter if {
	pod := object.union(_pod(_error137, {}), {"exec": {"other": [{"name": "memory-events.txt", "file": "exec/bert-master-0/memory-events.txt", "text": "oom 0\noom_kill 0\n"}]}})
	count(oom_killed.findings) == 0 with input as {"phase": "Failed", "pods": [pod], "events": []}
}

# torch.multiprocessing.spawn names the signal of a rank it lost.
test_fires_on_spawn_sigkill if {
	st := {"state": "terminated", "reason": "Error", "exitCode": 1, "finishedAt": "2026-03-01T10:00:00Z"}
	pod := _pod(st, {"launcher.spawn-sigkill": _m("torch.multiprocessing.spawn.ProcessExitedException: process 0 terminated with signal SIGKILL")})
	fs := oom_killed.findings with input as {"phase": "Failed", "pods": [pod]}
	count(fs) == 1
	some f in fs
	contains(f.params.how.en, "torch.multiprocessing.spawn")
}

test_fires_spawn_signature if {
	regex.match(testing.pattern(_signatures, "launcher.spawn-sigkill"), "Exception: process 3 terminated with signal SIGKILL")
	not regex.match(testing.pattern(_signatures, "launcher.spawn-sigkill"), "torch.multiprocessing.spawn.ProcessExitedException: process 0 terminated with signal SIGSEGV")
}

# torchrun SIGKILLed a rank that ignored its SIGTERM during teardown: the
# "-9" in its summary is the launcher's, not host memory.
test_quiet_on_launcher_forced_sigkill if {
	st := {"state": "terminated", "reason": "Error", "exitCode": 1, "finishedAt": "2026-03-01T10:00:00Z"}
	pod := _pod(st, {
		"launcher.sigkill": _m("  exitcode  : -9 (pid: 413)"),
		"launcher.forced-sigkill": _m("torch.distributed.elastic.multiprocessing.api: [WARNING] Unable to shutdown process 413 via Signals.SIGTERM, forcefully exiting via Signals.SIGKILL"),
	})
	count(oom_killed.findings) == 0 with input as {"phase": "Failed", "pods": [pod]}
	regex.match(testing.pattern(_signatures, "launcher.forced-sigkill"), "W0301 10:00:31.000000 140 torch/distributed/elastic/multiprocessing/api.py:710] Unable to shutdown process 413 via Signals.SIGTERM, forcefully exiting via Signals.SIGKILL")
}
