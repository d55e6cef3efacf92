package adapt

import (
	"github.com/traindoc/traindoc/engine/evidence"
	"github.com/traindoc/traindoc/engine/snapshot"
)

// trainJobAdapter reads Kubeflow Trainer's TrainJob
// (trainer.kubeflow.org/v1alpha1). Its pods belong to the JobSet and batch
// Jobs the controller creates, so replica groups come from the JobSet's
// replicated jobs when it exists, else from spec.trainer. Some Trainer
// versions leave status.conditions empty when creating the JobSet fails;
// the job is then Pending with no children, and events tell the story.
type trainJobAdapter struct{}

func (trainJobAdapter) matches(o *snapshot.Object) bool {
	return o.Kind == "TrainJob" && o.Group == "trainer.kubeflow.org"
}

func (trainJobAdapter) build(o *snapshot.Object, ix *index, job *evidence.Job) {
	m := o.Raw
	tr := object(m, replicaPath(o)...)
	job.Spec.Suspend = boolean(m, "spec", "suspend")
	job.Spec.Runtime = str(m, "spec", "runtimeRef", "name")
	setProcs(job, quantityAt(tr, "numProcPerNode"))

	var jobset *snapshot.Object
	_, workloads := ix.related(o)
	for _, c := range workloads {
		if c.Kind == "JobSet" {
			jobset = c
		}
	}
	if jobset != nil {
		for _, rj := range objects(jobset.Raw, "spec", "replicatedJobs") {
			replicas, ok := integer(rj, "replicas")
			if !ok {
				replicas = 1
			}
			parallelism, ok := integer(rj, "template", "spec", "parallelism")
			if !ok {
				parallelism = 1
			}
			job.Replicas = append(job.Replicas, evidence.ReplicaGroup{
				Type:     str(rj, "name"),
				Expected: replicas * parallelism,
				Template: podTemplate(job, object(rj, "template", "spec", "template")),
			})
		}
		if n, ok := integer(jobset.Raw, "spec", "failurePolicy", "maxRestarts"); ok {
			job.Spec.RunPolicy.BackoffLimit = &n
		}
	} else {
		nodes, ok := integer(tr, "numNodes")
		if !ok {
			nodes = 1
		}
		g := evidence.ReplicaGroup{Type: "node", Expected: nodes}
		c := evidence.ContainerSpec{
			Name: "node", Image: str(tr, "image"),
			Requests: resources(tr, "resourcesPerNode", "requests"),
			Limits:   resources(tr, "resourcesPerNode", "limits"),
		}
		g.Template.Containers = []evidence.ContainerSpec{c}
		g.Template.GPULimit = gpuCount(c.Limits)
		g.Template.GPURequest = gpuCount(c.Requests)
		if g.Template.GPURequest == 0 {
			g.Template.GPURequest = g.Template.GPULimit
		}
		job.Replicas = append(job.Replicas, g)
	}
	// status.jobsStatus: per replicated job counts.
	for _, js := range objects(m, "status", "jobsStatus") {
		for i := range job.Replicas {
			if job.Replicas[i].Type != str(js, "name") {
				continue
			}
			job.Replicas[i].Reported = map[string]int{}
			for _, k := range []string{"ready", "succeeded", "failed", "active", "suspended"} {
				n, _ := integer(js, k)
				job.Replicas[i].Reported[k] = n
			}
		}
	}
	if q := o.Labels["kueue.x-k8s.io/queue-name"]; q != "" {
		job.Spec.Scheduler = evidence.Scheduler{Name: "kueue", Queue: q}
	}
	if d, ok := integer(m, "spec", "activeDeadlineSeconds"); ok {
		v := int64(d)
		job.Spec.RunPolicy.ActiveDeadlineSeconds = &v
	}

	cs := job.Status.Conditions
	if c := lastTrueCondition(cs); c != nil {
		job.Status.Phase, job.Status.Reason, job.Status.Message = c.Type, c.Reason, c.Message
	}
	switch {
	case conditionTrue(cs, "Failed") != nil:
		job.Phase = evidence.PhaseFailed
	case conditionTrue(cs, "Complete") != nil:
		job.Phase = evidence.PhaseSucceeded
	case conditionTrue(cs, "Suspended") != nil || job.Spec.Suspend:
		job.Phase = evidence.PhaseSuspended
	case jobset == nil:
		job.Phase = evidence.PhasePending
	}
}
