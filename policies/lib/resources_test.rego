package traindoc.lib.resources_test

import data.traindoc.lib.resources

_df := {"name": "df.txt", "file": "exec/p/df.txt", "text": "Filesystem      Size  Used Avail Use% Mounted on\noverlay         200G   61G  140G  31% /\nshm              64M   64M     0 100% /dev/shm\n"}

test_enospc_on_shm_from_line if {
	resources.enospc_on_shm({}, {"text": "RuntimeError: unable to write to file </torch_8289_606636967_0>: No space left on device (28)"})
	not resources.enospc_on_shm({}, {"text": "OSError: [Errno 28] No space left on device: '/checkpoints/run1/optimizer.pt'"})
}

test_enospc_on_shm_from_semlock_context if {
	resources.enospc_on_shm({}, {"text": "OSError: [Errno 28] No space left on device", "before": ["    sl = self._semlock = _multiprocessing.SemLock("]})
}

# A bare ENOSPC with nothing else to go by: df in the pod decides.
test_enospc_on_shm_from_df if {
	pod := {"name": "p", "exec": {"other": [_df]}}
	resources.enospc_on_shm(pod, {"text": "OSError: [Errno 28] No space left on device"})
	not resources.enospc_on_shm({"name": "p"}, {"text": "OSError: [Errno 28] No space left on device"})
}

test_full_mounts if {
	resources.full_mounts({"exec": {"other": [_df]}}) == {"/dev/shm"}
}

test_host_oom_from_pod_event if {
	pod := {"name": "p", "nodeName": "n1", "uid": "u"}
	c := {"name": "c", "state": {"state": "terminated", "exitCode": 137, "reason": "Error", "finishedAt": "2026-01-01T10:00:00Z"}, "lastState": {}, "logs": []}
	ev := {"reason": "OOMKilling", "message": "Out of memory: Killed process 7 (python)", "object": {"kind": "Node", "name": "n1"}, "firstTime": "2026-01-01T09:59:59Z"}
	resources.host_oom(pod, c) with input as {"phase": "Failed", "events": [ev]}
	not resources.host_oom(pod, c) with input as {"phase": "Failed", "events": [object.union(ev, {"object": {"kind": "Node", "name": "n2"}})]}
}
