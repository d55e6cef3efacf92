package traindoc.rules.exec.ray_memory_monitor_test

import data.traindoc.lib.testing
import data.traindoc.rules.exec.ray_memory_monitor

# Not lib/testing's pod: pods by name and node with a replica type: the
# rule matches a node's memory report to its pods.
_pod(name, node, matches) := {
	"name": name, "namespace": "ml", "phase": "Failed", "nodeName": node, "conditions": [], "replicaType": "submitter",
	"containers": [{
		"name": "main", "restartCount": 0, "state": testing.failed, "lastState": {},
		"logs": [{"file": sprintf("logs/%s/main.log", [name]), "previous": false, "lines": 300, "matches": matches, "tail": []}],
	}],
}

_worker(name, node, ip) := {
	"name": name, "namespace": "ml", "phase": "Running", "nodeName": node, "conditions": [], "replicaType": "gpu-group",
	"containers": [{
		"name": "ray-worker", "restartCount": 0, "state": {"state": "running"}, "lastState": {},
		"logs": [{"file": "x", "previous": false, "lines": 10, "tail": [], "matches": {"ctx.ray-node-ip": {"count": 1, "firstLine": 3, "lastLine": 3, "samples": [], "groups": {"ip": ip}}}}],
	}],
}

_m(text, after) := {"count": 1, "firstLine": 120, "lastLine": 120, "samples": [{"line": 120, "text": text, "after": after}]}

_monitor := "ray.exceptions.OutOfMemoryError: Task was killed due to the node running low on memory."

_detail := "Memory on the node (IP: 10.244.4.21, ID: 7c1f) where the task (actor ID: 3e1b, name=RayTrainWorker.__init__, pid=2931, memory used=52.07GB) was running was 59.22GB / 62.00GB (0.955174), which exceeds the memory usage threshold of 0.95. Ray killed this worker (ID: 9a0d) because it was the most recently scheduled task."

test_fires_on_the_worker_the_node_ip_names if {
	driver := _pod("job-submitter", "cpu-1", {"exec.ray-oom.kill": _m(_monitor, [_detail])})
	fs := ray_memory_monitor.findings with input as {"kind": "RayJob", "phase": "Failed", "pods": [driver, _worker("rc-worker-a", "gpu-4", "10.244.4.21")], "events": []}
	some f in fs
	f.subject.name == "rc-worker-a"
	f.params.usage == "59.22GB / 62.00GB (0.955174)"
	f.params.where == "pod rc-worker-a (node IP 10.244.4.21)"
}

test_quiet_where_oom_killed_read_it_already if {
	driver := _pod("job-submitter", "cpu-1", {
		"exec.ray-oom.kill": _m(_monitor, [_detail]),
		"exec.oom-killed.ray": _m(_monitor, [_detail]),
	})
	count(ray_memory_monitor.findings) == 0 with input as {"kind": "RayJob", "phase": "Failed", "pods": [driver], "events": []}
}

test_fires_on_a_system_oom_event_naming_a_ray_worker if {
	w := _worker("rc-worker-a", "gpu-4", "10.244.4.21")
	ev := {"type": "Warning", "reason": "SystemOOM", "message": "System OOM encountered, victim process: ray::RayTrainWo, pid: 4242", "object": {"kind": "Node", "name": "gpu-4"}, "count": 1, "firstTime": "2026-03-01T09:58:00Z"}
	fs := ray_memory_monitor.findings with input as {"kind": "RayCluster", "phase": "Failed", "pods": [w], "events": [ev]}
	some f in fs
	f.subject == {"kind": "Node", "name": "gpu-4"}
	f.time == "2026-03-01T09:58:00Z"
}

test_quiet_on_an_oom_event_of_another_process if {
	w := _worker("rc-worker-a", "gpu-4", "10.244.4.21")
	ev := {"type": "Warning", "reason": "SystemOOM", "message": "System OOM encountered, victim process: node_exporter, pid: 311", "object": {"kind": "Node", "name": "gpu-4"}, "count": 1}
	count(ray_memory_monitor.findings) == 0 with input as {"kind": "RayCluster", "phase": "Failed", "pods": [w], "events": [ev]}
}

# "0 Workers ... killed due to memory pressure" reports no kill.
test_quiet_on_a_summary_without_kills if {
	s := [p | some sig in ray_memory_monitor.signatures; sig.id == "exec.ray-oom.summary"; p := sig.pattern][0]
	not regex.match(s, "(raylet) node_manager.cc:3040: 0 Workers (tasks / actors) killed due to memory pressure (OOM), 1 Workers crashed due to other reasons at node (ID: 2c82, IP: 172.31.183.172) over the last time period.")
	regex.match(s, "(raylet) node_manager.cc:3040: 1 Workers (tasks / actors) killed due to memory pressure (OOM), 0 Workers crashed due to other reasons at node (ID: 2c82, IP: 172.31.183.172) over the last time period.")
}

# A raylet.out copied out of the head pod with kubectl exec.
test_fires_on_an_unscanned_raylet_out if {
	head := {
		"name": "rc-head", "namespace": "ml", "phase": "Running", "nodeName": "cpu-1", "replicaType": "head", "conditions": [],
		"containers": [{"name": "ray-head", "restartCount": 0, "state": {"state": "running"}, "lastState": {}, "logs": []}],
		"exec": {"other": [{"name": "raylet.out", "file": "exec/rc-head/raylet.out.txt", "text": concat("\n", [
			"[2026-03-01 09:57:59,101 I 211 211] (raylet) node_manager.cc:1122: Starting worker",
			"[2026-03-01 09:58:00,445 E 211 211] (raylet) node_manager.cc:3049: 1 Workers (tasks / actors) killed due to memory pressure (OOM), 0 Workers crashed due to other reasons at node (ID: 7c1f, IP: 10.244.4.21) over the last time period.",
		])}]},
	}
	fs := ray_memory_monitor.findings with input as {"kind": "RayCluster", "phase": "Failed", "pods": [head, _worker("rc-worker-a", "gpu-4", "10.244.4.21")], "events": []}
	some f in fs
	f.subject.name == "rc-worker-a"
	f.evidence[0].file == "exec/rc-head/raylet.out.txt"
	f.evidence[0].line == 2
}

# Ray 2.1's raylet notice of a kill and Ray 0.6-1.x's exception are kills;
# Tune's low-memory status line is only a warning.
test_quiet_on_tune_low_memory_status_but_fires_on_older_kills if {
	k := [p | some sig in ray_memory_monitor.signatures; sig.id == "exec.ray-oom.kill"; p := sig.pattern][0]
	regex.match(k, "(raylet) node_manager.cc:2963: System memory low at node with IP 172.17.0.2. Used memory (23.63GB) / total capacity (33.28GB) (0.709971) exceeds threshold 0.7, killing latest task with name Leaker.__init__")
	regex.match(k, "ray.memory_monitor.RayOutOfMemoryError: More than 95% of the memory on node eric-ThinkPad is used (11.8 / 12.3 GB).")
	not regex.match(k, "Memory usage on this node: 7.3/7.7 GiB : ***LOW MEMORY*** less than 10% of the memory on this node is available for use.")
}
