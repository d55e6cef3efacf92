// Package kinds is the one registry of the Kubernetes kinds traindoc reads
// beyond the core ones: which API serves each, the role it plays, how its
// spec describes replicas, and how pods, workloads and scheduling gates are
// linked to a job.
//
// The live collector (engine/collect) decides with it what to fetch, and the
// snapshot adapters (internal/adapt) decide with it what belongs to a job. A
// kind known to one and not the other would be diagnosed offline but never
// collected live (or the reverse), so both read this table and call the
// link functions below instead of keeping their own lists.
package kinds

// Role says why a kind is read.
type Role int

const (
	// Job kinds are training jobs in their own right.
	Job Role = iota + 1
	// Workload kinds are created beneath a job (a JobSet under a TrainJob,
	// a batch Job under a JobSet, an MPIJob launcher or a RayJob submitter,
	// a RayCluster under a RayJob). A Standalone workload is a job itself
	// when nothing claims it.
	Workload
	// Gate kinds decide whether a job's pods may start: gang scheduling
	// pod groups and Kueue admission.
	Gate
	// Queue kinds are the queues gates and jobs wait in: a Volcano or
	// TensorStack Queue, a Kueue LocalQueue and the ClusterQueue behind
	// it. They are linked by name (QueueRef), never by owner.
	Queue
)

// Layout says how a job kind's spec describes its replica groups.
type Layout int

const (
	// NoReplicas: the kind describes no replica groups of its own.
	NoReplicas Layout = iota
	// ReplicaMap is spec.<x>ReplicaSpecs: {<type>: {replicas, restartPolicy,
	// template}}, the Kubeflow training-operator shape; status has
	// replicaStatuses keyed the same way.
	ReplicaMap
	// ReplicaList is spec.replicaSpecs: [{type, replicas, restartPolicy,
	// template}], TensorStack's shape; status.tasks reports each type.
	ReplicaList
	// RayGroups is a RayCluster spec (headGroupSpec and workerGroupSpecs),
	// at Replicas.Path (spec, or spec.rayClusterSpec for a RayJob).
	RayGroups
	// JobSetReplicas is a TrainJob: its replica groups are the replicated
	// jobs of its JobSet, or spec.trainer before the JobSet exists.
	JobSetReplicas
)

// Replicas locates a job kind's replica groups.
type Replicas struct {
	Layout Layout
	// Path is the spec field that holds them.
	Path []string
}

// LinkBy is how a workload is linked to its parent besides owner references,
// which operators do not always set.
type LinkBy int

const (
	// SameName: the workload is named after its parent.
	SameName LinkBy = iota + 1
	// ChildLabel: the workload's label Key holds the parent's name.
	ChildLabel
	// ParentField: the parent's field Path holds the workload's name.
	ParentField
)

// Link ties a workload to a parent of kind Parent.
type Link struct {
	Parent string
	By     LinkBy
	Key    string
	Path   []string
}

// Kind describes one kind.
type Kind struct {
	Kind  string
	Group string
	// Versions the API may serve, preferred first.
	Versions []string
	// Resource is the plural resource name.
	Resource string
	Role     Role
	// Replicas locates the replica groups of a Job kind.
	Replicas Replicas
	// PodLabels are pod label keys whose value names the object the pods
	// belong to, for operators that do not (always) set owner references.
	PodLabels []string
	// PodLabelField is the field whose value PodLabels carry, when it is
	// not the object's name (a RayJob's pods name its RayCluster).
	PodLabelField []string
	// ReplicaTypeLabels and ReplicaIndexLabels are pod labels naming the
	// replica group and index of the pod.
	ReplicaTypeLabels  []string
	ReplicaIndexLabels []string
	// Parents links a Workload to the objects it belongs to.
	Parents []Link
	// Standalone marks a Workload that is a job itself when no parent
	// claims it (a RayCluster whose head pod runs the training).
	Standalone bool
	// GroupKeys are the pod label and annotation keys that name the Gate
	// a pod belongs to.
	GroupKeys []string
	// NamedAfterJob marks a Gate that operators name after the job.
	NamedAfterJob bool
	// ClusterScoped marks a kind whose objects have no namespace.
	ClusterScoped bool
	// NamedBy lists where other objects name a Queue of this kind.
	NamedBy []QueueRef
}

// QueueRef is a place where an object names the queue it waits in: a
// field at Path, or a label or annotation Key.
type QueueRef struct {
	// Group and Kind of the naming object; Kind "" is any kind of the
	// group, Group "*" any group.
	Group, Kind string
	Path        []string
	Key         string
}

// APIVersion returns group/version for the preferred version.
func (k *Kind) APIVersion() string { return apiVersion(k.Group, k.Versions[0]) }

func apiVersion(group, version string) string {
	if group == "" {
		return version
	}
	return group + "/" + version
}

// Pod label keys set by the operators.
const (
	LabelKubeflowJob = "training.kubeflow.org/job-name"
	LabelTrainJob    = "trainer.kubeflow.org/trainjob-name"
	LabelJobSet      = "jobset.sigs.k8s.io/jobset-name"
	LabelRayCluster  = "ray.io/cluster"
	LabelBatchJob    = "batch.kubernetes.io/job-name"
	LabelBatchJobOld = "job-name"
	LabelT9kOwner    = "tensorstack.dev/owner-name"
	LabelT9kJob      = "batch.tensorstack.dev/job-name"
	// LabelKueueQueue names the Kueue LocalQueue a job is submitted to.
	LabelKueueQueue = "kueue.x-k8s.io/queue-name"
)

func kubeflow(kind, resource, specs string, versions ...string) Kind {
	if len(versions) == 0 {
		versions = []string{"v1"}
	}
	return Kind{
		Kind: kind, Group: "kubeflow.org", Versions: versions, Resource: resource, Role: Job,
		Replicas: Replicas{Layout: ReplicaMap, Path: []string{"spec", specs}},
		// pytorch-job-name and friends are the labels of training-operator
		// releases before 1.5.
		PodLabels:          []string{LabelKubeflowJob, "pytorch-job-name", "tf-job-name", "mpi-job-name"},
		ReplicaTypeLabels:  []string{"training.kubeflow.org/replica-type", "pytorch-replica-type", "tf-replica-type", "mpi-job-role"},
		ReplicaIndexLabels: []string{"training.kubeflow.org/replica-index", "pytorch-replica-index", "tf-replica-index"},
	}
}

// all lists every kind, jobs first. The order only makes collection
// deterministic.
var all = []Kind{
	kubeflow("PyTorchJob", "pytorchjobs", "pytorchReplicaSpecs"),
	kubeflow("TFJob", "tfjobs", "tfReplicaSpecs"),
	// training-operator serves MPIJob v1; mpi-operator serves v2beta1.
	kubeflow("MPIJob", "mpijobs", "mpiReplicaSpecs", "v1", "v2beta1"),
	kubeflow("XGBoostJob", "xgboostjobs", "xgbReplicaSpecs"),
	kubeflow("PaddleJob", "paddlejobs", "paddleReplicaSpecs"),
	kubeflow("JAXJob", "jaxjobs", "jaxReplicaSpecs"),
	{
		Kind: "TrainJob", Group: "trainer.kubeflow.org", Versions: []string{"v1alpha1"}, Resource: "trainjobs", Role: Job,
		Replicas:           Replicas{Layout: JobSetReplicas, Path: []string{"spec", "trainer"}},
		PodLabels:          []string{LabelTrainJob, LabelJobSet},
		ReplicaTypeLabels:  []string{"jobset.sigs.k8s.io/replicatedjob-name"},
		ReplicaIndexLabels: []string{"batch.kubernetes.io/job-completion-index", "jobset.sigs.k8s.io/job-index"},
	},
	{
		Kind: "PyTorchTrainingJob", Group: "batch.tensorstack.dev", Versions: []string{"v1beta1"}, Resource: "pytorchtrainingjobs", Role: Job,
		Replicas:           Replicas{Layout: ReplicaList, Path: []string{"spec", "replicaSpecs"}},
		PodLabels:          []string{LabelT9kOwner, LabelT9kJob},
		ReplicaTypeLabels:  []string{"tensorstack.dev/replica-type"},
		ReplicaIndexLabels: []string{"tensorstack.dev/replica-index"},
	},
	{
		Kind: "RayJob", Group: "ray.io", Versions: []string{"v1"}, Resource: "rayjobs", Role: Job,
		Replicas:          Replicas{Layout: RayGroups, Path: []string{"spec", "rayClusterSpec"}},
		PodLabels:         []string{LabelRayCluster},
		PodLabelField:     []string{"status", "rayClusterName"},
		ReplicaTypeLabels: []string{"ray.io/group"},
	},
	{
		Kind: "RayCluster", Group: "ray.io", Versions: []string{"v1"}, Resource: "rayclusters", Role: Workload, Standalone: true,
		Replicas:          Replicas{Layout: RayGroups, Path: []string{"spec"}},
		PodLabels:         []string{LabelRayCluster},
		ReplicaTypeLabels: []string{"ray.io/group"},
		Parents:           []Link{{Parent: "RayJob", By: ParentField, Path: []string{"status", "rayClusterName"}}},
	},
	{
		Kind: "JobSet", Group: "jobset.x-k8s.io", Versions: []string{"v1alpha2"}, Resource: "jobsets", Role: Workload,
		PodLabels: []string{LabelJobSet},
		// Trainer names the JobSet after its TrainJob.
		Parents: []Link{{Parent: "TrainJob", By: SameName}, {Parent: "TrainJob", By: ChildLabel, Key: LabelTrainJob}},
	},
	{
		Kind: "Job", Group: "batch", Versions: []string{"v1"}, Resource: "jobs", Role: Workload,
		PodLabels: []string{LabelBatchJob, LabelBatchJobOld},
		Parents:   []Link{{Parent: "JobSet", By: ChildLabel, Key: LabelJobSet}},
	},
	{
		Kind: "PodGroup", Group: "scheduling.volcano.sh", Versions: []string{"v1beta1"}, Resource: "podgroups", Role: Gate,
		GroupKeys: []string{"scheduling.k8s.io/group-name", "scheduling.volcano.sh/group-name"}, NamedAfterJob: true,
	},
	{
		// scheduler-plugins coscheduling.
		Kind: "PodGroup", Group: "scheduling.x-k8s.io", Versions: []string{"v1alpha1"}, Resource: "podgroups", Role: Gate,
		GroupKeys: []string{"scheduling.x-k8s.io/pod-group"}, NamedAfterJob: true,
	},
	{
		// TensorStack's T9k scheduler.
		Kind: "PodGroup", Group: "scheduler.tensorstack.dev", Versions: []string{"v1beta1"}, Resource: "podgroups", Role: Gate,
		GroupKeys: []string{"scheduler.tensorstack.dev/group-name", "tensorstack.dev/podgroup"}, NamedAfterJob: true,
	},
	{
		// Kueue owns its Workload through an owner reference to the job.
		Kind: "Workload", Group: "kueue.x-k8s.io", Versions: []string{"v1beta1"}, Resource: "workloads", Role: Gate,
	},
	{
		// Volcano queues are named by their pod groups, by the Kubeflow
		// jobs' schedulingPolicy (which the operator copies to the pod
		// group) and by a pod annotation.
		Kind: "Queue", Group: "scheduling.volcano.sh", Versions: []string{"v1beta1"}, Resource: "queues", Role: Queue, ClusterScoped: true,
		NamedBy: []QueueRef{
			{Group: "scheduling.volcano.sh", Kind: "PodGroup", Path: []string{"spec", "queue"}},
			{Group: "kubeflow.org", Path: []string{"spec", "runPolicy", "schedulingPolicy", "queue"}},
			{Group: "", Kind: "Pod", Key: "scheduling.volcano.sh/queue-name"},
		},
	},
	{
		// A job names its LocalQueue with a label; Kueue copies it into
		// the Workload.
		Kind: "LocalQueue", Group: "kueue.x-k8s.io", Versions: []string{"v1beta1"}, Resource: "localqueues", Role: Queue,
		NamedBy: []QueueRef{
			{Group: "kueue.x-k8s.io", Kind: "Workload", Path: []string{"spec", "queueName"}},
			{Group: "*", Key: LabelKueueQueue},
		},
	},
	{
		Kind: "ClusterQueue", Group: "kueue.x-k8s.io", Versions: []string{"v1beta1"}, Resource: "clusterqueues", Role: Queue, ClusterScoped: true,
		NamedBy: []QueueRef{
			{Group: "kueue.x-k8s.io", Kind: "LocalQueue", Path: []string{"spec", "clusterQueue"}},
			{Group: "kueue.x-k8s.io", Kind: "Workload", Path: []string{"status", "admission", "clusterQueue"}},
		},
	},
	{
		// TensorStack queues are named by the T9k scheduler's pod groups,
		// by the T9k jobs' scheduler settings and by a pod label.
		Kind: "Queue", Group: "scheduler.tensorstack.dev", Versions: []string{"v1beta1"}, Resource: "queues", Role: Queue, ClusterScoped: true,
		NamedBy: []QueueRef{
			{Group: "scheduler.tensorstack.dev", Kind: "PodGroup", Path: []string{"spec", "queue"}},
			{Group: "batch.tensorstack.dev", Path: []string{"spec", "scheduler", "t9kScheduler", "queue"}},
			{Group: "", Kind: "Pod", Key: "scheduler.tensorstack.dev/queue"},
		},
	},
}

var byGroupKind = func() map[string]*Kind {
	m := make(map[string]*Kind, len(all))
	for i := range all {
		m[all[i].Group+"/"+all[i].Kind] = &all[i]
	}
	return m
}()

// All returns every kind, in a fixed order. The result must not be changed.
func All() []Kind { return all }

// Lookup returns the kind of group and name, or nil.
func Lookup(group, kind string) *Kind { return byGroupKind[group+"/"+kind] }

// ReplicaTypeLabels returns every kind's replica type labels, in registry
// order without repeats; a pod's labels are read with them when its job's
// kind does not say.
func ReplicaTypeLabels() []string {
	return union(func(k *Kind) []string { return k.ReplicaTypeLabels })
}

// ReplicaIndexLabels is ReplicaTypeLabels for the replica index.
func ReplicaIndexLabels() []string {
	return union(func(k *Kind) []string { return k.ReplicaIndexLabels })
}

// PodLabelKeys returns every label key that names a pod's job or workload.
func PodLabelKeys() []string { return union(func(k *Kind) []string { return k.PodLabels }) }

func union(f func(*Kind) []string) []string {
	var out []string
	seen := map[string]bool{}
	for i := range all {
		for _, v := range f(&all[i]) {
			if !seen[v] {
				seen[v] = true
				out = append(out, v)
			}
		}
	}
	return out
}
