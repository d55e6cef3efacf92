package adapt

import (
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
	for _, rs := range snapshot.Maps(m, replicaPath(o)...) {
		g := evidence.ReplicaGroup{Type: snapshot.Str(rs, "type"), Expected: 1, RestartPolicy: snapshot.Str(rs, "restartPolicy")}
		if n, ok := snapshot.Int(rs, "replicas"); ok {
			g.Expected = n
		}
		g.Template = podTemplate(snapshot.Map(rs, "template"))
		job.Replicas = append(job.Replicas, g)
	}
	job.Spec.RunMode = evidence.RunMode{
		Debug: snapshot.Bool(m, "spec", "runMode", "debug", "enable") || snapshot.Bool(m, "spec", "runMode", "debug", "enabled"),
		Pause: snapshot.Bool(m, "spec", "runMode", "pause", "enable") || snapshot.Bool(m, "spec", "runMode", "pause", "enabled"),
	}
	rp := snapshot.Map(m, "spec", "runPolicy")
	job.Spec.RunPolicy = evidence.RunPolicy{BackoffLimit: intPtr(rp, "backoffLimit"), CleanPodPolicy: snapshot.Str(rp, "cleanUpPolicy")}
	if n, ok := snapshot.Int(rp, "activeDeadlineSeconds"); ok {
		v := int64(n)
		job.Spec.RunPolicy.ActiveDeadlineSeconds = &v
	}
	if q := firstNonEmpty(snapshot.Str(m, "spec", "scheduler", "t9kScheduler", "queue"), snapshot.Str(m, "spec", "scheduler", "t9kScheduler", "Queue")); q != "" {
		job.Spec.Scheduler = evidence.Scheduler{Name: "t9k-scheduler", Queue: q}
	}
	if el := snapshot.Map(m, "spec", "elastic"); el != nil {
		job.Spec.Elastic = &evidence.Elastic{
			Enabled: snapshot.Bool(el, "enable") || snapshot.Bool(el, "enabled"), MinReplicas: intPtr(el, "minReplicas"),
			MaxReplicas: intPtr(el, "maxReplicas"), ExpectedReplicas: intPtr(el, "expectedReplicas"),
		}
	}
	if tc := snapshot.Map(m, "spec", "torchrunConfig"); tc != nil {
		job.Spec.Torchrun = &evidence.Torchrun{
			Enabled: snapshot.Bool(tc, "enable") || snapshot.Bool(tc, "enabled"), MaxRestarts: intPtr(tc, "maxRestarts"),
			ProcPerNode: snapshot.Str(tc, "procPerNode"), RdzvBackend: snapshot.Str(tc, "rdzvBackend"),
		}
		if job.Spec.Torchrun.Enabled {
			setProcs(job, job.Spec.Torchrun.ProcPerNode)
		}
	}

	st := snapshot.Map(m, "status")
	job.Status.Phase = snapshot.Str(st, "phase")
	job.Status.BackoffCount, _ = snapshot.Int(st, "backoffCount")
	if agg := snapshot.Map(st, "aggregate"); agg != nil {
		job.Status.Counts = map[string]int{}
		for k := range agg {
			job.Status.Counts[k], _ = snapshot.Int(agg, k)
		}
	}
	for _, task := range snapshot.Maps(st, "tasks") {
		for i := range job.Replicas {
			if strings.EqualFold(job.Replicas[i].Type, snapshot.Str(task, "type")) {
				rc, _ := snapshot.Int(task, "restartCount")
				job.Replicas[i].Reported = map[string]int{"restartCount": rc, "replicas": len(snapshot.Maps(task, "replicaStatus"))}
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
	for _, task := range snapshot.Maps(o.Raw, "status", "tasks") {
		typ := snapshot.Str(task, "type")
		for _, rs := range snapshot.Maps(task, "replicaStatus") {
			// replicaStatus names are the controller's sub-resource names
			// ("worker-0"), not pod names ("<job>-worker-0").
			name := snapshot.Str(rs, "name")
			if name == "" || have[name] || have[o.Name+"-"+name] || have[snapshot.Str(rs, "uid")] {
				continue
			}
			// A replica still being created has no phase and no containers:
			// there is no pod to describe, only a missing one, which the
			// replica counts already show.
			if snapshot.Str(rs, "phase") == "" && len(snapshot.Maps(rs, "containers")) == 0 {
				continue
			}
			if !strings.HasPrefix(name, o.Name+"-") {
				name = o.Name + "-" + name
			}
			p := evidence.Pod{
				Name: name, Namespace: o.Namespace, UID: snapshot.Str(rs, "uid"), ReplicaType: typ,
				Phase: firstNonEmpty(snapshot.Str(rs, "phase"), "Unknown"), Conditions: []evidence.Condition{},
				Containers: []evidence.Container{},
			}
			for _, c := range snapshot.Maps(rs, "containers") {
				ce := evidence.Container{ContainerSpec: evidence.ContainerSpec{Name: snapshot.Str(c, "name")}}
				state := strings.ToLower(snapshot.Str(c, "state"))
				ce.State.State = state
				if code, ok := snapshot.Int(c, "exitCode"); ok && state == "terminated" {
					ce.State.ExitCode = &code
				}
				p.Containers = append(p.Containers, ce)
			}
			out = append(out, p)
		}
	}
	return out
}
