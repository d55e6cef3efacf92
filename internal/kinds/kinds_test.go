package kinds

import (
	"slices"
	"testing"
)

func obj(group, kind, ns, name string, mutate ...func(*Object)) *Object {
	o := &Object{Group: group, Kind: kind, Namespace: ns, Name: name, Labels: map[string]string{}, Annotations: map[string]string{}, Raw: map[string]any{}}
	for _, m := range mutate {
		m(o)
	}
	return o
}

func owner(kind, name string) func(*Object) {
	return func(o *Object) { o.Owners = append(o.Owners, Owner{Kind: kind, Name: name}) }
}

func label(k, v string) func(*Object) { return func(o *Object) { o.Labels[k] = v } }

func annotation(k, v string) func(*Object) { return func(o *Object) { o.Annotations[k] = v } }

func field(v any, path ...string) func(*Object) {
	return func(o *Object) {
		m := o.Raw
		for _, p := range path[:len(path)-1] {
			next, ok := m[p].(map[string]any)
			if !ok {
				next = map[string]any{}
				m[p] = next
			}
			m = next
		}
		m[path[len(path)-1]] = v
	}
}

func TestRegistryIsConsistent(t *testing.T) {
	seen := map[string]bool{}
	for _, k := range All() {
		id := k.Group + "/" + k.Kind
		if seen[id] {
			t.Errorf("%s listed twice", id)
		}
		seen[id] = true
		if k.Resource == "" || len(k.Versions) == 0 || k.Role == 0 {
			t.Errorf("%s: resource, versions and role are required: %+v", id, k)
		}
		if k.Role == Job && (k.Replicas.Layout == NoReplicas || len(k.Replicas.Path) == 0) {
			t.Errorf("%s: a job kind must say where its replicas are", id)
		}
		if k.Role == Gate && len(k.GroupKeys) == 0 && !k.NamedAfterJob && k.Kind != "Workload" {
			t.Errorf("%s: a gate with no way to link it but owner references", id)
		}
		if k.Role == Queue && len(k.NamedBy) == 0 {
			t.Errorf("%s: a queue kind nothing names", id)
		}
		if k.Role != Queue && len(k.NamedBy) > 0 {
			t.Errorf("%s: only queue kinds are named by others", id)
		}
		for _, l := range k.Parents {
			if p := lookupKind(l.Parent); p == nil {
				t.Errorf("%s: parent kind %s is not in the registry", id, l.Parent)
			}
		}
		if Lookup(k.Group, k.Kind) == nil {
			t.Errorf("Lookup(%s) = nil", id)
		}
	}
	// Every kind the design names is here.
	for _, id := range []string{
		"kubeflow.org/PyTorchJob", "kubeflow.org/TFJob", "kubeflow.org/MPIJob", "kubeflow.org/XGBoostJob",
		"kubeflow.org/PaddleJob", "kubeflow.org/JAXJob", "trainer.kubeflow.org/TrainJob",
		"batch.tensorstack.dev/PyTorchTrainingJob", "ray.io/RayJob", "ray.io/RayCluster",
		"jobset.x-k8s.io/JobSet", "batch/Job", "scheduling.volcano.sh/PodGroup", "scheduling.x-k8s.io/PodGroup",
		"scheduler.tensorstack.dev/PodGroup", "kueue.x-k8s.io/Workload",
		"scheduling.volcano.sh/Queue", "kueue.x-k8s.io/LocalQueue", "kueue.x-k8s.io/ClusterQueue", "scheduler.tensorstack.dev/Queue",
	} {
		if !seen[id] {
			t.Errorf("%s missing from the registry", id)
		}
	}
}

func lookupKind(kind string) *Kind {
	for i := range all {
		if all[i].Kind == kind {
			return &all[i]
		}
	}
	return nil
}

func TestIsJob(t *testing.T) {
	rayJob := obj("ray.io", "RayJob", "ml", "rj", field("rj-raycluster-x2", "status", "rayClusterName"))
	tests := []struct {
		name string
		o    *Object
		want bool
	}{
		{"pytorchjob", obj("kubeflow.org", "PyTorchJob", "ml", "a"), true},
		{"jaxjob", obj("kubeflow.org", "JAXJob", "ml", "a"), true},
		{"t9k", obj("batch.tensorstack.dev", "PyTorchTrainingJob", "ml", "a"), true},
		{"same kind, other group", obj("example.com", "PyTorchJob", "ml", "a"), false},
		{"jobset", obj("jobset.x-k8s.io", "JobSet", "ml", "a"), false},
		{"podgroup", obj("scheduling.volcano.sh", "PodGroup", "ml", "a"), false},
		{"interactive raycluster", obj("ray.io", "RayCluster", "ml", "interactive"), true},
		{"raycluster owned by a rayjob", obj("ray.io", "RayCluster", "ml", "c", owner("RayJob", "gone")), false},
		{"raycluster named in a rayjob's status", obj("ray.io", "RayCluster", "ml", "rj-raycluster-x2"), false},
		{"same name, other namespace", obj("ray.io", "RayCluster", "other", "rj-raycluster-x2"), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := IsJob(tt.o, []*Object{rayJob}); got != tt.want {
				t.Errorf("IsJob = %v, want %v", got, tt.want)
			}
		})
	}
}

func names(objs []*Object) []string {
	var out []string
	for _, o := range objs {
		out = append(out, o.Kind+"/"+o.Name)
	}
	return out
}

func TestWorkloads(t *testing.T) {
	tj := obj("trainer.kubeflow.org", "TrainJob", "ml", "tj")
	candidates := []*Object{
		// The batch Job comes first: it is found through the JobSet found later.
		obj("batch", "Job", "ml", "tj-node-0", label(LabelJobSet, "tj")),
		obj("jobset.x-k8s.io", "JobSet", "ml", "tj"),
		obj("jobset.x-k8s.io", "JobSet", "ml", "labelled", label(LabelTrainJob, "tj")),
		obj("jobset.x-k8s.io", "JobSet", "other", "tj"),
		obj("batch", "Job", "ml", "cron-123"),
		obj("batch", "Job", "ml", "owned", owner("TrainJob", "tj")),
		// A gate is never a workload.
		obj("kueue.x-k8s.io", "Workload", "ml", "w", owner("TrainJob", "tj")),
	}
	got := names(Workloads([]*Object{tj}, candidates))
	want := []string{"Job/tj-node-0", "JobSet/tj", "JobSet/labelled", "Job/owned"}
	if !slices.Equal(got, want) {
		t.Errorf("Workloads = %v, want %v", got, want)
	}

	rj := obj("ray.io", "RayJob", "ml", "rj", field("rj-raycluster-x2", "status", "rayClusterName"))
	got = names(Workloads([]*Object{rj}, []*Object{obj("ray.io", "RayCluster", "ml", "rj-raycluster-x2"), obj("ray.io", "RayCluster", "ml", "x")}))
	if want := []string{"RayCluster/rj-raycluster-x2"}; !slices.Equal(got, want) {
		t.Errorf("RayJob workloads = %v, want %v", got, want)
	}
}

func TestPodOf(t *testing.T) {
	pj := obj("kubeflow.org", "PyTorchJob", "ml", "train")
	rj := obj("ray.io", "RayJob", "ml", "rj", field("rj-raycluster-x2", "status", "rayClusterName"))
	t9k := obj("batch.tensorstack.dev", "PyTorchTrainingJob", "ml", "sft")
	tests := []struct {
		name    string
		pod     *Object
		owners  []*Object
		byLabel bool
		want    bool
	}{
		{"owner reference", obj("", "Pod", "ml", "p", owner("PyTorchJob", "train")), []*Object{pj}, false, true},
		{"owner in another namespace", obj("", "Pod", "x", "p", owner("PyTorchJob", "train")), []*Object{pj}, false, false},
		{"kubeflow label", obj("", "Pod", "ml", "p", label(LabelKubeflowJob, "train")), []*Object{pj}, true, true},
		{"legacy kubeflow label", obj("", "Pod", "ml", "p", label("pytorch-job-name", "train")), []*Object{pj}, true, true},
		{"label, but owned by something else", obj("", "Pod", "ml", "p", label(LabelKubeflowJob, "train")), []*Object{pj}, false, false},
		{"batch job-name label is not a kubeflow label", obj("", "Pod", "ml", "p", label(LabelBatchJobOld, "train")), []*Object{pj}, true, false},
		{"rayjob pods carry the cluster name", obj("", "Pod", "ml", "h", label(LabelRayCluster, "rj-raycluster-x2")), []*Object{rj}, true, true},
		{"rayjob name is not the cluster name", obj("", "Pod", "ml", "h", label(LabelRayCluster, "rj")), []*Object{rj}, true, false},
		{"t9k owner-name label", obj("", "Pod", "ml", "sft-worker-0", label(LabelT9kOwner, "sft")), []*Object{t9k}, true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := PodOf(tt.pod, tt.owners, tt.byLabel); got != tt.want {
				t.Errorf("PodOf = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestGateOf(t *testing.T) {
	job := obj("kubeflow.org", "PyTorchJob", "ml", "train")
	t9kJob := obj("batch.tensorstack.dev", "PyTorchTrainingJob", "ml", "sft")
	jobs := []*Object{job, t9kJob}
	pods := []*Object{
		obj("", "Pod", "ml", "p0", annotation("scheduling.k8s.io/group-name", "pg-volcano")),
		obj("", "Pod", "ml", "p1", label("scheduling.x-k8s.io/pod-group", "pg-coscheduling")),
		obj("", "Pod", "ml", "p2", label("scheduler.tensorstack.dev/group-name", "pg-t9k")),
	}
	tests := []struct {
		name string
		g    *Object
		want bool
	}{
		{"volcano, named by a pod annotation", obj("scheduling.volcano.sh", "PodGroup", "ml", "pg-volcano"), true},
		{"volcano, named after the job", obj("scheduling.volcano.sh", "PodGroup", "ml", "train"), true},
		{"volcano, unrelated", obj("scheduling.volcano.sh", "PodGroup", "ml", "other"), false},
		{"scheduler-plugins, named by a pod label", obj("scheduling.x-k8s.io", "PodGroup", "ml", "pg-coscheduling"), true},
		// Each scheduler reads its own key.
		{"scheduler-plugins does not read volcano's key", obj("scheduling.x-k8s.io", "PodGroup", "ml", "pg-volcano"), false},
		{"t9k, named by a pod label", obj("scheduler.tensorstack.dev", "PodGroup", "ml", "pg-t9k"), true},
		{"t9k, named after its job", obj("scheduler.tensorstack.dev", "PodGroup", "ml", "sft"), true},
		{"t9k, other namespace", obj("scheduler.tensorstack.dev", "PodGroup", "x", "sft"), false},
		{"kueue workload owned by the job", obj("kueue.x-k8s.io", "Workload", "ml", "pytorchjob-train-1a2b3", owner("PyTorchJob", "train")), true},
		{"kueue workload named after the job is not enough", obj("kueue.x-k8s.io", "Workload", "ml", "train"), false},
		{"not a gate", obj("jobset.x-k8s.io", "JobSet", "ml", "train"), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := GateOf(tt.g, jobs, jobs, pods); got != tt.want {
				t.Errorf("GateOf = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestQueuesOf(t *testing.T) {
	volcanoQ := obj("scheduling.volcano.sh", "Queue", "", "research")
	otherVolcanoQ := obj("scheduling.volcano.sh", "Queue", "", "default")
	t9kQ := obj("scheduler.tensorstack.dev", "Queue", "", "research")
	lq := obj("kueue.x-k8s.io", "LocalQueue", "ml", "team-a", field("team-a-cq", "spec", "clusterQueue"))
	lqElsewhere := obj("kueue.x-k8s.io", "LocalQueue", "other", "team-a", field("other-cq", "spec", "clusterQueue"))
	cq := obj("kueue.x-k8s.io", "ClusterQueue", "", "team-a-cq")
	otherCQ := obj("kueue.x-k8s.io", "ClusterQueue", "", "other-cq")
	candidates := []*Object{volcanoQ, otherVolcanoQ, t9kQ, lq, lqElsewhere, cq, otherCQ}

	tests := []struct {
		name string
		refs []*Object
		want []string
	}{
		{"volcano pod group", []*Object{obj("scheduling.volcano.sh", "PodGroup", "ml", "pg", field("research", "spec", "queue"))}, []string{"Queue/research"}},
		{"kubeflow scheduling policy", []*Object{obj("kubeflow.org", "PyTorchJob", "ml", "j", field("research", "spec", "runPolicy", "schedulingPolicy", "queue"))}, []string{"Queue/research"}},
		{"volcano pod annotation", []*Object{obj("", "Pod", "ml", "p", annotation("scheduling.volcano.sh/queue-name", "default"))}, []string{"Queue/default"}},
		{"t9k job", []*Object{obj("batch.tensorstack.dev", "PyTorchTrainingJob", "ml", "j", field("research", "spec", "scheduler", "t9kScheduler", "queue"))}, []string{"Queue/research"}},
		{"kueue label through local queue", []*Object{obj("kubeflow.org", "PyTorchJob", "ml", "j", label("kueue.x-k8s.io/queue-name", "team-a"))}, []string{"LocalQueue/team-a", "ClusterQueue/team-a-cq"}},
		{"workload admission", []*Object{obj("kueue.x-k8s.io", "Workload", "ml", "w", field("other-cq", "status", "admission", "clusterQueue"))}, []string{"ClusterQueue/other-cq"}},
		{"label in another namespace", []*Object{obj("kubeflow.org", "PyTorchJob", "third", "j", label("kueue.x-k8s.io/queue-name", "team-a"))}, nil},
		{"a pod group's field is not a job's", []*Object{obj("kubeflow.org", "PyTorchJob", "ml", "j", field("research", "spec", "queue"))}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := names(QueuesOf(tt.refs, candidates))
			if !slices.Equal(got, tt.want) {
				t.Errorf("QueuesOf = %v, want %v", got, tt.want)
			}
		})
	}
}
