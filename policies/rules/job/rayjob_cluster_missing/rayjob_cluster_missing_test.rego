package traindoc.rules.job.rayjob_cluster_missing_test

import data.traindoc.rules.job.rayjob_cluster_missing

test_fires_on_the_cluster_not_found_event if {
	e := {"type": "Warning", "reason": "RayClusterNotFound", "message": "RayCluster ml/shared-a100 set in the clusterSelector is not found. It must be created manually", "object": {"kind": "RayJob", "name": "ft"}, "count": 14, "firstTime": "2026-03-01T09:00:00Z"}
	fs := rayjob_cluster_missing.findings with input as {"kind": "RayJob", "name": "ft", "namespace": "ml", "phase": "Pending", "pods": [], "events": [e], "status": {}}
	some f in fs
	f.time == "2026-03-01T09:00:00Z"
}

test_fires_on_the_old_deployment_status if {
	st := {"deploymentStatus": "FailedToGetOrCreateRayCluster", "message": "RayCluster.ray.io \"ft-raycluster-x\" not found"}
	fs := rayjob_cluster_missing.findings with input as {"kind": "RayJob", "name": "ft", "namespace": "ml", "phase": "Pending", "pods": [], "events": [], "status": st}
	count(fs) == 1
}

test_quiet_when_the_cluster_runs if {
	st := {"deploymentStatus": "Running", "message": ""}
	count(rayjob_cluster_missing.findings) == 0 with input as {"kind": "RayJob", "name": "ft", "namespace": "ml", "phase": "Running", "pods": [{"name": "p"}], "events": [], "status": st}
}
