package adapt

import (
	"cmp"
	"github.com/traindoc/traindoc/engine/evidence"
	"github.com/traindoc/traindoc/engine/snapshot"
)

// rayJobAdapter reads KubeRay's RayJob (ray.io/v1): the job status
// (jobStatus, jobDeploymentStatus, reason, message) and the replica groups
// of its RayCluster spec.
type rayJobAdapter struct{}

func (rayJobAdapter) matches(o *snapshot.Object) bool {
	return o.Kind == "RayJob" && o.Group == "ray.io"
}

func (rayJobAdapter) build(o *snapshot.Object, ix *index, job *evidence.Job) {
	m := o.Raw
	rayGroups(job, object(m, replicaPath(o)...))
	job.Spec.Suspend = boolean(m, "spec", "suspend")
	job.Spec.Entrypoint = str(m, "spec", "entrypoint")
	job.Spec.RunPolicy.BackoffLimit = intPtr(m, "spec", "backoffLimit")
	if n, ok := integer(m, "spec", "activeDeadlineSeconds"); ok {
		v := int64(n)
		job.Spec.RunPolicy.ActiveDeadlineSeconds = &v
	}
	if q := o.Labels["kueue.x-k8s.io/queue-name"]; q != "" {
		job.Spec.Scheduler = evidence.Scheduler{Name: "kueue", Queue: q}
	}
	st := object(m, "status")
	job.Status.Phase = str(st, "jobStatus")
	job.Status.DeploymentStatus = str(st, "jobDeploymentStatus")
	job.Status.Reason = str(st, "reason")
	job.Status.Message = str(st, "message")
	job.Status.CompletionTime = cmp.Or(job.Status.CompletionTime, str(st, "endTime"))
	job.Status.BackoffCount, _ = integer(st, "failed")

	switch {
	case job.Status.DeploymentStatus == "Suspended" || job.Status.DeploymentStatus == "Suspending" || job.Spec.Suspend:
		job.Phase = evidence.PhaseSuspended
	case job.Status.Phase == "SUCCEEDED":
		job.Phase = evidence.PhaseSucceeded
	case job.Status.Phase == "FAILED" || job.Status.Phase == "STOPPED" || job.Status.DeploymentStatus == "Failed":
		job.Phase = evidence.PhaseFailed
	case job.Status.Phase == "RUNNING" || job.Status.DeploymentStatus == "Running":
		job.Phase = evidence.PhaseRunning
	case job.Status.Phase == "PENDING" || job.Status.DeploymentStatus == "Initializing" || job.Status.DeploymentStatus == "":
		job.Phase = evidence.PhasePending
	}
}

// rayClusterAdapter reads a RayCluster that no RayJob owns: training was
// started inside its head pod, so the cluster is the job.
type rayClusterAdapter struct{}

func (rayClusterAdapter) matches(o *snapshot.Object) bool {
	return o.Kind == "RayCluster" && o.Group == "ray.io"
}

func (rayClusterAdapter) build(o *snapshot.Object, ix *index, job *evidence.Job) {
	m := o.Raw
	rayGroups(job, object(m, replicaPath(o)...))
	job.Spec.Suspend = boolean(m, "spec", "suspend")
	st := object(m, "status")
	job.Status.Phase = str(st, "state")
	job.Status.Reason = str(st, "reason")
	job.Status.Counts = map[string]int{}
	for _, k := range []string{"readyWorkerReplicas", "availableWorkerReplicas", "desiredWorkerReplicas", "minWorkerReplicas", "maxWorkerReplicas"} {
		if n, ok := integer(st, k); ok {
			job.Status.Counts[k] = n
		}
	}
	switch job.Status.Phase {
	case "suspended":
		job.Phase = evidence.PhaseSuspended
	case "failed":
		job.Phase = evidence.PhaseFailed
	case "ready":
		job.Phase = evidence.PhaseRunning
	}
	if job.Spec.Suspend {
		job.Phase = evidence.PhaseSuspended
	}
}

// rayGroups adds the head group and the worker groups of a RayCluster spec.
func rayGroups(job *evidence.Job, spec map[string]any) {
	if head := object(spec, "headGroupSpec"); head != nil {
		job.Replicas = append(job.Replicas, evidence.ReplicaGroup{
			Type: "head", Expected: 1, Template: podTemplate(job, object(head, "template")),
		})
	}
	for _, wg := range objects(spec, "workerGroupSpecs") {
		g := evidence.ReplicaGroup{
			Type: str(wg, "groupName"), Expected: 1,
			MinReplicas: intPtr(wg, "minReplicas"), MaxReplicas: intPtr(wg, "maxReplicas"),
			Template: podTemplate(job, object(wg, "template")),
		}
		if n, ok := integer(wg, "replicas"); ok {
			g.Expected = n
		}
		if boolean(wg, "suspend") {
			g.Expected = 0
		}
		job.Replicas = append(job.Replicas, g)
	}
}
