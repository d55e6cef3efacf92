package adapt

import (
	"cmp"
	"strings"

	"github.com/traindoc/traindoc/engine/evidence"
	"github.com/traindoc/traindoc/engine/snapshot"
)

// t9kAdapter reads TensorStack's PyTorchTrainingJob
// (batch.tensorstack.dev/v1beta1): replica specs as a list, run modes
// (debug, pause), elastic and torchrun settings, a T9k scheduler queue, and
// a status with phase, aggregate counts and per-task container exit codes.
type t9kAdapter struct{}

func (t9kAdapter) matches(o *snapshot.Object) bool {
	return o.Kind == "PyTorchTrainingJob" && o.Group == "batch.tensorstack.dev"
}

func (t9kAdapter) build(o *snapshot.Object, ix *index, job *evidence.Job) {
	m := o.Raw
	for _, rs := range objects(m, replicaPath(o)...) {
		g := evidence.ReplicaGroup{Type: str(rs, "type"), Expected: 1, RestartPolicy: str(rs, "restartPolicy")}
		if n, ok := integer(rs, "replicas"); ok {
			g.Expected = n
		}
		g.Template = podTemplate(job, object(rs, "template"))
		job.Replicas = append(job.Replicas, g)
	}
	job.Spec.RunMode = evidence.RunMode{
		Debug: boolean(m, "spec", "runMode", "debug", "enable") || boolean(m, "spec", "runMode", "debug", "enabled"),
		Pause: boolean(m, "spec", "runMode", "pause", "enable") || boolean(m, "spec", "runMode", "pause", "enabled"),
	}
	rp := object(m, "spec", "runPolicy")
	job.Spec.RunPolicy = evidence.RunPolicy{BackoffLimit: intPtr(rp, "backoffLimit"), CleanPodPolicy: str(rp, "cleanUpPolicy")}
	if n, ok := integer(rp, "activeDeadlineSeconds"); ok {
		v := int64(n)
		job.Spec.RunPolicy.ActiveDeadlineSeconds = &v
	}
	if q := cmp.Or(str(m, "spec", "scheduler", "t9kScheduler", "queue"), str(m, "spec", "scheduler", "t9kScheduler", "Queue")); q != "" {
		job.Spec.Scheduler = evidence.Scheduler{Name: "t9k-scheduler", Queue: q}
	}
	if el := object(m, "spec", "elastic"); el != nil {
		job.Spec.Elastic = &evidence.Elastic{
			Enabled: boolean(el, "enable") || boolean(el, "enabled"), MinReplicas: intPtr(el, "minReplicas"),
			MaxReplicas: intPtr(el, "maxReplicas"), ExpectedReplicas: intPtr(el, "expectedReplicas"),
		}
	}
	if tc := object(m, "spec", "torchrunConfig"); tc != nil {
		job.Spec.Torchrun = &evidence.Torchrun{
			Enabled: boolean(tc, "enable") || boolean(tc, "enabled"), MaxRestarts: intPtr(tc, "maxRestarts"),
			ProcPerNode: quantityAt(tc, "procPerNode"), RdzvBackend: str(tc, "rdzvBackend"),
		}
		if job.Spec.Torchrun.Enabled {
			setProcs(job, job.Spec.Torchrun.ProcPerNode)
		}
	}

	st := object(m, "status")
	job.Status.Phase = str(st, "phase")
	job.Status.BackoffCount, _ = integer(st, "backoffCount")
	if agg := object(st, "aggregate"); agg != nil {
		job.Status.Counts = map[string]int{}
		for k := range agg {
			job.Status.Counts[k], _ = integer(agg, k)
		}
	}
	for _, task := range objects(st, "tasks") {
		for i := range job.Replicas {
			if strings.EqualFold(job.Replicas[i].Type, str(task, "type")) {
				rc, _ := integer(task, "restartCount")
				job.Replicas[i].Reported = map[string]int{"restartCount": rc, "replicas": len(objects(task, "replicaStatus"))}
			}
		}
	}
	if c := lastTrueCondition(job.Status.Conditions); c != nil {
		job.Status.Reason, job.Status.Message = c.Reason, c.Message
	}
	switch job.Status.Phase {
	case "Succeeded":
		job.Phase = evidence.PhaseSucceeded
	case "Failed":
		job.Phase = evidence.PhaseFailed
	case "Running":
		job.Phase = evidence.PhaseRunning
	case "Pending", "Resuming":
		job.Phase = evidence.PhasePending
	case "Paused":
		job.Phase = evidence.PhaseSuspended
	case "Unknown":
		job.Phase = evidence.PhaseUnknown
	}
}

// extraPods returns pods described only by the job's status.tasks (their
// Pod objects may be gone): phase and container exit codes are kept there.
func (t9kAdapter) extraPods(o *snapshot.Object, have map[string]bool) []evidence.Pod {
	var out []evidence.Pod
	for _, task := range objects(o.Raw, "status", "tasks") {
		typ := str(task, "type")
		for _, rs := range objects(task, "replicaStatus") {
			// replicaStatus names are the controller's sub-resource names
			// ("worker-0"), not pod names ("<job>-worker-0").
			name := str(rs, "name")
			if name == "" || have[name] || have[o.Name+"-"+name] || have[str(rs, "uid")] {
				continue
			}
			// A replica still being created has no phase and no containers:
			// there is no pod to describe, only a missing one, which the
			// replica counts already show.
			if str(rs, "phase") == "" && len(objects(rs, "containers")) == 0 {
				continue
			}
			if !strings.HasPrefix(name, o.Name+"-") {
				name = o.Name + "-" + name
			}
			p := evidence.Pod{
				Name: name, Namespace: o.Namespace, UID: str(rs, "uid"), ReplicaType: typ,
				Phase: cmp.Or(str(rs, "phase"), "Unknown"), Conditions: []evidence.Condition{},
				Containers: []evidence.Container{},
			}
			for _, c := range objects(rs, "containers") {
				ce := evidence.Container{ContainerSpec: evidence.ContainerSpec{Name: str(c, "name")}}
				state := strings.ToLower(str(c, "state"))
				ce.State.State = state
				if code, ok := integer(c, "exitCode"); ok && state == "terminated" {
					ce.State.ExitCode = &code
				}
				p.Containers = append(p.Containers, ce)
			}
			out = append(out, p)
		}
	}
	return out
}
