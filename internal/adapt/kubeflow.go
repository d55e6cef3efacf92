package adapt

import (
	"cmp"
	"sort"
	"strconv"
	"strings"

	"github.com/traindoc/traindoc/engine/evidence"
	"github.com/traindoc/traindoc/engine/snapshot"
	"github.com/traindoc/traindoc/internal/kinds"
)

// kubeflowAdapter reads the kinds whose replicas the registry describes as
// a map of replica specs: the kubeflow.org training-operator kinds
// (PyTorchJob, TFJob, MPIJob, XGBoostJob, PaddleJob, JAXJob) and MPIJob
// v2beta1 from mpi-operator. They share one shape: spec.<x>ReplicaSpecs,
// spec.runPolicy, status.conditions and status.replicaStatuses.
type kubeflowAdapter struct{}

func (kubeflowAdapter) matches(o *snapshot.Object) bool {
	k := kinds.Lookup(o.Group, o.Kind)
	return k != nil && k.Role == kinds.Job && k.Replicas.Layout == kinds.ReplicaMap
}

// Replica types in the order people read them.
var replicaOrder = map[string]int{"master": 0, "chief": 0, "launcher": 0, "head": 0, "ps": 1, "worker": 2, "evaluator": 3}

func (kubeflowAdapter) build(o *snapshot.Object, ix *index, job *evidence.Job) {
	m := o.Raw
	specs := object(m, replicaPath(o)...)
	types := make([]string, 0, len(specs))
	for t := range specs {
		types = append(types, t)
	}
	sort.Slice(types, func(a, b int) bool {
		ra, rb := rankOf(types[a]), rankOf(types[b])
		if ra != rb {
			return ra < rb
		}
		return types[a] < types[b]
	})
	for _, t := range types {
		rs := object(specs, t)
		g := evidence.ReplicaGroup{Type: t, Expected: 1, RestartPolicy: str(rs, "restartPolicy")}
		if n, ok := integer(rs, "replicas"); ok {
			g.Expected = n
		}
		g.Template = podTemplate(job, object(rs, "template"))
		if st := object(m, "status", "replicaStatuses", t); st != nil {
			g.Reported = map[string]int{}
			for _, k := range []string{"active", "succeeded", "failed"} {
				n, _ := integer(st, k)
				g.Reported[k] = n
			}
		}
		job.Replicas = append(job.Replicas, g)
	}

	rp := object(m, "spec", "runPolicy")
	if rp == nil {
		rp = object(m, "spec") // MPIJob v1 and older kinds keep these at spec level.
	}
	job.Spec.RunPolicy = evidence.RunPolicy{
		BackoffLimit:   intPtr(rp, "backoffLimit"),
		CleanPodPolicy: str(rp, "cleanPodPolicy"),
	}
	if n, ok := integer(rp, "activeDeadlineSeconds"); ok {
		v := int64(n)
		job.Spec.RunPolicy.ActiveDeadlineSeconds = &v
	}
	job.Spec.Suspend = boolean(rp, "suspend")
	sp := object(rp, "schedulingPolicy")
	job.Spec.Scheduler = evidence.Scheduler{
		Queue: str(sp, "queue"), PriorityClass: str(sp, "priorityClass"),
		MinAvailable: intPtr(sp, "minAvailable"),
	}
	if len(job.Replicas) > 0 {
		job.Spec.Scheduler.Name = job.Replicas[0].Template.SchedulerName
	}
	if q := o.Labels["kueue.x-k8s.io/queue-name"]; q != "" && job.Spec.Scheduler.Queue == "" {
		job.Spec.Scheduler.Queue, job.Spec.Scheduler.Name = q, "kueue"
	}

	// Processes per node: spec.nprocPerNode (training-operator >= 1.7),
	// spec.elasticPolicy.nProcPerNode (older), MPIJob slotsPerWorker.
	nproc := cmp.Or(quantityAt(m, "spec", "nprocPerNode"), quantityAt(m, "spec", "elasticPolicy", "nProcPerNode"), quantityAt(m, "spec", "slotsPerWorker"))
	setProcs(job, nproc)
	if ep := object(m, "spec", "elasticPolicy"); ep != nil {
		job.Spec.Elastic = &evidence.Elastic{
			Enabled: true, MinReplicas: intPtr(ep, "minReplicas"), MaxReplicas: intPtr(ep, "maxReplicas"),
			MaxRestarts: intPtr(ep, "maxRestarts"),
		}
		for i := range job.Replicas {
			if strings.EqualFold(job.Replicas[i].Type, "worker") {
				job.Replicas[i].MinReplicas, job.Replicas[i].MaxReplicas = job.Spec.Elastic.MinReplicas, job.Spec.Elastic.MaxReplicas
			}
		}
	}

	c := lastTrueCondition(job.Status.Conditions)
	if c != nil {
		job.Status.Phase, job.Status.Reason, job.Status.Message = c.Type, c.Reason, c.Message
	}
	switch {
	case conditionTrue(job.Status.Conditions, "Failed") != nil:
		job.Phase = evidence.PhaseFailed
	case conditionTrue(job.Status.Conditions, "Succeeded") != nil:
		job.Phase = evidence.PhaseSucceeded
	case conditionTrue(job.Status.Conditions, "Suspended") != nil || job.Spec.Suspend:
		job.Phase = evidence.PhaseSuspended
	case c != nil && (c.Type == "Running" || c.Type == "Restarting"):
		job.Phase = evidence.PhaseRunning
	case c != nil && c.Type == "Created":
		job.Phase = evidence.PhasePending
	}
}

func rankOf(t string) int {
	if r, ok := replicaOrder[strings.ToLower(t)]; ok {
		return r
	}
	return 5
}

// setProcs records a processes-per-node setting.
func setProcs(job *evidence.Job, nproc string) {
	job.Spec.ProcsPerNode = nproc
	if n, err := strconv.Atoi(strings.TrimSpace(nproc)); err == nil {
		job.Spec.ProcsPerNodeCount = n
	}
}
