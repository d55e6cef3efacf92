package collect

import (
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// role says why a kind is collected.
type role int

const (
	// roleJob kinds are training jobs in their own right: they are listed,
	// filtered by Options.Jobs and Options.Selector, and everything else is
	// collected because it belongs to one of them.
	roleJob role = iota
	// roleChild kinds are the workload beneath a job (a JobSet under a
	// TrainJob, a batch Job under a JobSet or an MPIJob, a RayCluster under a
	// RayJob). They are collected when owned by, or named after, a job; they
	// become jobs themselves only when named explicitly in Options.Jobs (or,
	// for RayCluster, when no RayJob owns them).
	roleChild
	// roleContext kinds explain scheduling (gang scheduling, quota admission)
	// and are collected when they refer to a collected object.
	roleContext
)

// kindInfo describes one custom or built-in kind the collector knows about.
type kindInfo struct {
	GVR  schema.GroupVersionResource
	Kind string
	Role role
	// JobLabel is the pod label that carries the job's name for operators
	// that do not (always) set owner references on their pods.
	JobLabel string
}

// GVK returns the group, version and kind of k.
func (k kindInfo) GVK() schema.GroupVersionKind { return k.GVR.GroupVersion().WithKind(k.Kind) }

func gvr(group, version, resource string) schema.GroupVersionResource {
	return schema.GroupVersionResource{Group: group, Version: version, Resource: resource}
}

const (
	labelKubeflowJob = "training.kubeflow.org/job-name"
	labelTrainJob    = "trainer.kubeflow.org/trainjob-name"
	labelJobSet      = "jobset.sigs.k8s.io/jobset-name"
	labelRayCluster  = "ray.io/cluster"
	labelBatchJob    = "batch.kubernetes.io/job-name"
	labelBatchJobOld = "job-name"
)

// knownKinds lists every dynamic kind in collection order. Order matters
// only for determinism: results are sorted before they are written.
var knownKinds = []kindInfo{
	{GVR: gvr("kubeflow.org", "v1", "pytorchjobs"), Kind: "PyTorchJob", Role: roleJob, JobLabel: labelKubeflowJob},
	{GVR: gvr("kubeflow.org", "v1", "tfjobs"), Kind: "TFJob", Role: roleJob, JobLabel: labelKubeflowJob},
	{GVR: gvr("kubeflow.org", "v1", "mpijobs"), Kind: "MPIJob", Role: roleJob, JobLabel: labelKubeflowJob},
	{GVR: gvr("kubeflow.org", "v2beta1", "mpijobs"), Kind: "MPIJob", Role: roleJob, JobLabel: labelKubeflowJob},
	{GVR: gvr("kubeflow.org", "v1", "xgboostjobs"), Kind: "XGBoostJob", Role: roleJob, JobLabel: labelKubeflowJob},
	{GVR: gvr("kubeflow.org", "v1", "paddlejobs"), Kind: "PaddleJob", Role: roleJob, JobLabel: labelKubeflowJob},
	{GVR: gvr("trainer.kubeflow.org", "v1alpha1", "trainjobs"), Kind: "TrainJob", Role: roleJob, JobLabel: labelTrainJob},
	{GVR: gvr("batch.tensorstack.dev", "v1beta1", "pytorchtrainingjobs"), Kind: "PyTorchTrainingJob", Role: roleJob},
	{GVR: gvr("ray.io", "v1", "rayjobs"), Kind: "RayJob", Role: roleJob},
	{GVR: gvr("ray.io", "v1", "rayclusters"), Kind: "RayCluster", Role: roleChild, JobLabel: labelRayCluster},
	{GVR: gvr("jobset.x-k8s.io", "v1alpha2", "jobsets"), Kind: "JobSet", Role: roleChild, JobLabel: labelJobSet},
	{GVR: gvr("batch", "v1", "jobs"), Kind: "Job", Role: roleChild, JobLabel: labelBatchJob},
	{GVR: gvr("scheduling.volcano.sh", "v1beta1", "podgroups"), Kind: "PodGroup", Role: roleContext},
	{GVR: gvr("kueue.x-k8s.io", "v1beta1", "workloads"), Kind: "Workload", Role: roleContext},
}

// podGroupAnnotations name the PodGroup a pod belongs to (Volcano, and the
// scheduler-plugins coscheduling label/annotation).
var podGroupAnnotations = []string{
	"scheduling.k8s.io/group-name",
	"scheduling.volcano.sh/group-name",
	"scheduling.x-k8s.io/pod-group",
}
