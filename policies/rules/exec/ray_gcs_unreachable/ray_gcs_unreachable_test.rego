package traindoc.rules.exec.ray_gcs_unreachable_test

import data.traindoc.rules.exec.ray_gcs_unreachable

_re := [s.pattern | some s in ray_gcs_unreachable.signatures][0]

# Not lib/testing's pod: Ray pods by replica type, crash-looping, with a
# previous log.
_pod(type, restarts, matches) := {
	"name": sprintf("rc-%s-0", [type]), "namespace": "ml", "phase": "Running", "nodeName": "n1", "conditions": [], "replicaType": type,
	"containers": [{
		"name": "ray", "restartCount": restarts, "state": {"state": "waiting", "reason": "CrashLoopBackOff"},
		"lastState": {"state": "terminated", "exitCode": 1, "finishedAt": "2026-03-01T10:00:00Z"},
		"logs": [{"file": "x", "previous": true, "lines": 40, "matches": matches, "tail": []}],
	}],
}

_m(text) := {"count": 1, "firstLine": 30, "lastLine": 30, "samples": [{"line": 30, "text": text}]}

test_fires_on_a_crash_looping_head if {
	line := "[2025-07-28 08:40:52,953 E 1 43] gcs_rpc_client.h:196: Failed to connect to GCS within 60 seconds. GCS may have been killed. It's either GCS is terminated by `ray stop` or is killed unexpectedly."
	fs := ray_gcs_unreachable.findings with input as {"kind": "RayCluster", "phase": "Running", "pods": [_pod("head", 938, {"exec.ray-gcs.unreachable": _m(line)})]}
	some f in fs
	f.params.who == "The Ray head"
}

test_fires_worker_names_the_address if {
	line := "ray.exceptions.RpcError: failed to connect to all addresses; last error: UNKNOWN: ipv4:172.20.115.241:6379: Failed to connect to remote host: Connection refused"
	fs := ray_gcs_unreachable.findings with input as {"kind": "RayCluster", "phase": "Running", "pods": [_pod("gpu-group", 3, {"exec.ray-gcs.unreachable": _m(line)})]}
	some f in fs
	f.params.address == "172.20.115.241:6379"
	f.params.who == "A Ray worker"
}

test_quiet_on_waiting_and_google_cloud_storage if {
	not regex.match(_re, "1 seconds elapsed: Waiting for GCS to be ready.")
	not regex.match(_re, "[2025-07-28 08:39:52,953 W 1 43] retryable_grpc_client.cc:83: GCS has been unavailable for more than 60 seconds")
	not regex.match(_re, "google.api_core.exceptions.ServiceUnavailable: 503 Unable to connect to GCS bucket gs://ckpt")
	regex.match(_re, "2023-06-22 00:34:51,000 ERROR gcs_utils.py:213 -- Failed to connect to GCS. Please check `gcs_server.out` for more details.")
	count(ray_gcs_unreachable.findings) == 0 with input as {"kind": "RayCluster", "phase": "Running", "pods": [_pod("gpu-group", 0, {})]}
}

# Older and rarer wordings of giving up: Ray 1.x's reconnect, the
# bootstrap's final ConnectionError, and a head whose GCS never started.
test_fires_on_older_and_bootstrap_wordings if {
	regex.match(_re, "F0322 14:35:51.321081     9   315 service_based_gcs_client.cc:207] Couldn't reconnect to GCS server. The last attempted GCS server address was :0")
	regex.match(_re, "ConnectionError: Could not read 'session_name' from GCS. Did GCS start successfully?")
	regex.match(_re, "2023-03-30 18:42:44,984 CRITICAL node.py:610 -- Failed to start GCS. Last 10 lines of error files:")
	not regex.match(_re, "2023-03-18 06:51:17,521 WARNING utils.py:1446 -- Unable to connect to GCS at 10.0.0.3:6379. Check that (1) Ray GCS with matching version started successfully at the specified address")
	not regex.match(_re, "2022-02-05 16:39:15,662 ERROR gcs_utils.py:137 -- Failed to send request to gcs, reconnecting.")
}
