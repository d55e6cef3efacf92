// Package evidence defines the normalised record of one training job that the
// Rego rules read as their input. Every job kind is adapted into this one
// shape, so a rule never needs to know whether it is looking at a PyTorchJob,
// a TrainJob or a RayJob.
//
// Times are RFC 3339 strings (UTC) so that rules can compare and parse them
// with time.parse_rfc3339_ns, and so the record serialises the same way in
// JSON, in Rego and in test fixtures. Absent values are omitted.
package evidence

// Normalised job phases.
const (
	PhasePending   = "Pending"
	PhaseRunning   = "Running"
	PhaseSucceeded = "Succeeded"
	PhaseFailed    = "Failed"
	PhaseSuspended = "Suspended"
	PhaseUnknown   = "Unknown"
)

// Ref names a Kubernetes object.
type Ref struct {
	Kind       string `json:"kind"`
	APIVersion string `json:"apiVersion,omitempty"`
	Namespace  string `json:"namespace,omitempty"`
	Name       string `json:"name"`
	UID        string `json:"uid,omitempty"`
}

// Job is everything known about one training job at snapshot time.
type Job struct {
	Ref
	Labels      map[string]string `json:"labels,omitempty"`
	Annotations map[string]string `json:"annotations,omitempty"`
	CreatedAt   string            `json:"createdAt,omitempty"`

	// Phase is the normalised phase: Pending, Running, Succeeded, Failed,
	// Suspended or Unknown.
	Phase string `json:"phase"`
	// Status is the kind's own view of itself, kept alongside the phase.
	Status KindStatus `json:"status"`

	Replicas []ReplicaGroup `json:"replicas"`
	Spec     Spec           `json:"spec"`

	Pods      []Pod       `json:"pods"`
	Events    []Event     `json:"events"`
	Nodes     []Node      `json:"nodes"`
	Quotas    []Quota     `json:"quotas,omitempty"`
	Admission []Admission `json:"admission,omitempty"`
	// Queues are the queues the job, its gates or its pods name, and the
	// ClusterQueue behind a Kueue LocalQueue.
	Queues []Queue `json:"queues,omitempty"`
	// Children are the workload objects beneath the job: the JobSet and
	// batch Jobs of a TrainJob, the RayCluster of a RayJob.
	Children []Child `json:"children,omitempty"`

	// Progress is what the logs and in-pod outputs say about training.
	Progress Progress `json:"progress"`

	// Now is the snapshot time: collectedAt, or the newest time seen.
	Now string `json:"now"`
	// Notes are things that could not be read (forbidden resources, files
	// that did not parse) and that rules may want to qualify findings with.
	Notes []string `json:"notes,omitempty"`
}

// KindStatus is the job kind's own status vocabulary.
type KindStatus struct {
	// Phase is the kind's phase or state string as written by its
	// controller (T9k phase, RayJob jobStatus, RayCluster state, ...).
	Phase string `json:"phase,omitempty"`
	// DeploymentStatus is RayJob's jobDeploymentStatus.
	DeploymentStatus string      `json:"deploymentStatus,omitempty"`
	Reason           string      `json:"reason,omitempty"`
	Message          string      `json:"message,omitempty"`
	Conditions       []Condition `json:"conditions"`
	StartTime        string      `json:"startTime,omitempty"`
	CompletionTime   string      `json:"completionTime,omitempty"`
	// BackoffCount is the number of restarts performed (T9k backoffCount,
	// RayJob failed attempts).
	BackoffCount int `json:"backoffCount,omitempty"`
	// Counts are aggregate counts the controller reports, by state name
	// (T9k aggregate, RayCluster ready/desired workers).
	Counts map[string]int `json:"counts,omitempty"`
}

// Condition is a status condition of any object.
type Condition struct {
	Type               string `json:"type"`
	Status             string `json:"status"`
	Reason             string `json:"reason,omitempty"`
	Message            string `json:"message,omitempty"`
	LastTransitionTime string `json:"lastTransitionTime,omitempty"`
}

// ReplicaGroup is one replica type (Master, Worker, Launcher, a Ray worker
// group, a JobSet replicated job) with expected, created and per-state counts.
type ReplicaGroup struct {
	Type     string `json:"type"`
	Expected int    `json:"expected"`
	// MinReplicas and MaxReplicas are elastic bounds where the kind has them.
	MinReplicas *int `json:"minReplicas,omitempty"`
	MaxReplicas *int `json:"maxReplicas,omitempty"`
	// Created is the number of pods of this type found in the snapshot.
	Created   int `json:"created"`
	Pending   int `json:"pending"`
	Running   int `json:"running"`
	Succeeded int `json:"succeeded"`
	Failed    int `json:"failed"`
	Unknown   int `json:"unknown"`
	Restarts  int `json:"restarts"`
	// Reported are the counts the controller writes in its status
	// (replicaStatuses active/succeeded/failed, aggregate, ...).
	Reported      map[string]int `json:"reported,omitempty"`
	RestartPolicy string         `json:"restartPolicy,omitempty"`
	Template      PodTemplate    `json:"template"`
}

// PodTemplate holds the facts of a replica's pod template that spec rules use.
type PodTemplate struct {
	// GPURequest and GPULimit are per pod, summed over containers, for
	// nvidia.com/gpu (and amd.com/gpu).
	GPURequest int64 `json:"gpuRequest"`
	GPULimit   int64 `json:"gpuLimit"`
	// EFA is the number of vpc.amazonaws.com/efa devices requested per pod.
	EFA int64 `json:"efa"`
	// RDMA is the number of RDMA/InfiniBand devices requested (rdma/*).
	RDMA int64 `json:"rdma"`
	// ShmMemory is true when a memory-backed emptyDir is mounted at /dev/shm.
	ShmMemory bool `json:"shmMemory"`
	// ShmSizeLimit is that emptyDir's sizeLimit, when set.
	ShmSizeLimit string `json:"shmSizeLimit,omitempty"`
	// HostIPC shares the host's /dev/shm.
	HostIPC       bool              `json:"hostIPC,omitempty"`
	NodeSelector  map[string]string `json:"nodeSelector,omitempty"`
	HasAffinity   bool              `json:"hasAffinity,omitempty"`
	Tolerations   []Toleration      `json:"tolerations,omitempty"`
	SchedulerName string            `json:"schedulerName,omitempty"`
	Containers    []ContainerSpec   `json:"containers"`
}

// Toleration is a pod toleration.
type Toleration struct {
	Key      string `json:"key,omitempty"`
	Operator string `json:"operator,omitempty"`
	Value    string `json:"value,omitempty"`
	Effect   string `json:"effect,omitempty"`
}

// ContainerSpec is a container of a pod template or pod.
type ContainerSpec struct {
	Name    string            `json:"name"`
	Image   string            `json:"image,omitempty"`
	Command []string          `json:"command,omitempty"`
	Args    []string          `json:"args,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
	// Requests and Limits are resource quantities as written.
	Requests map[string]string `json:"requests,omitempty"`
	Limits   map[string]string `json:"limits,omitempty"`
}

// Spec holds the job-level spec facts spec rules need.
type Spec struct {
	Suspend bool `json:"suspend"`
	// ProcsPerNode is the processes-per-node setting as written ("8",
	// "auto", "gpu"); ProcsPerNodeCount is its value when numeric, else 0.
	ProcsPerNode      string    `json:"procsPerNode,omitempty"`
	ProcsPerNodeCount int       `json:"procsPerNodeCount"`
	Elastic           *Elastic  `json:"elastic,omitempty"`
	RunPolicy         RunPolicy `json:"runPolicy"`
	RunMode           RunMode   `json:"runMode"`
	Scheduler         Scheduler `json:"scheduler"`
	Torchrun          *Torchrun `json:"torchrun,omitempty"`
	Runtime           string    `json:"runtime,omitempty"`
	Entrypoint        string    `json:"entrypoint,omitempty"`
}

// Elastic are elastic-training bounds.
type Elastic struct {
	Enabled          bool `json:"enabled"`
	MinReplicas      *int `json:"minReplicas,omitempty"`
	MaxReplicas      *int `json:"maxReplicas,omitempty"`
	ExpectedReplicas *int `json:"expectedReplicas,omitempty"`
	MaxRestarts      *int `json:"maxRestarts,omitempty"`
}

// RunPolicy are the retry and deadline limits.
type RunPolicy struct {
	BackoffLimit          *int   `json:"backoffLimit,omitempty"`
	ActiveDeadlineSeconds *int64 `json:"activeDeadlineSeconds,omitempty"`
	CleanPodPolicy        string `json:"cleanPodPolicy,omitempty"`
}

// RunMode is TensorStack's debug and pause modes.
type RunMode struct {
	Debug bool `json:"debug"`
	Pause bool `json:"pause"`
}

// Scheduler names the gang scheduler or queue the job goes through.
type Scheduler struct {
	Name          string `json:"name,omitempty"`
	Queue         string `json:"queue,omitempty"`
	PriorityClass string `json:"priorityClass,omitempty"`
	MinAvailable  *int   `json:"minAvailable,omitempty"`
}

// Torchrun is TensorStack's torchrunConfig.
type Torchrun struct {
	Enabled     bool   `json:"enabled"`
	MaxRestarts *int   `json:"maxRestarts,omitempty"`
	ProcPerNode string `json:"procPerNode,omitempty"`
	RdzvBackend string `json:"rdzvBackend,omitempty"`
}

// Pod is one replica pod.
type Pod struct {
	Name         string `json:"name"`
	Namespace    string `json:"namespace"`
	UID          string `json:"uid,omitempty"`
	ReplicaType  string `json:"replicaType"`
	ReplicaIndex *int   `json:"replicaIndex,omitempty"`
	NodeName     string `json:"nodeName,omitempty"`
	// PodIP is status.podIP: Ray and NCCL name peers by address.
	PodIP     string `json:"podIP,omitempty"`
	Phase     string `json:"phase"`
	Reason    string `json:"reason,omitempty"`
	Message   string `json:"message,omitempty"`
	CreatedAt string `json:"createdAt,omitempty"`
	StartTime string `json:"startTime,omitempty"`
	DeletedAt string `json:"deletedAt,omitempty"`
	// Conditions are PodScheduled, Initialized, Ready, DisruptionTarget...
	Conditions     []Condition `json:"conditions"`
	InitContainers []Container `json:"initContainers,omitempty"`
	Containers     []Container `json:"containers"`
	// Exec holds parsed in-pod command outputs (exec/<pod>/*.txt).
	Exec *ExecOutputs `json:"exec,omitempty"`
}

// Container is a container's spec facts, states and log evidence.
type Container struct {
	ContainerSpec
	Ready        bool           `json:"ready"`
	RestartCount int            `json:"restartCount"`
	State        ContainerState `json:"state"`
	LastState    ContainerState `json:"lastState"`
	// Logs are the scanned log files of this container: the current
	// instance and, when present, the previous one.
	Logs []LogFile `json:"logs,omitempty"`
}

// ContainerState is one of waiting, running or terminated.
type ContainerState struct {
	// State is "waiting", "running", "terminated" or "" when unknown.
	State      string `json:"state,omitempty"`
	Reason     string `json:"reason,omitempty"`
	Message    string `json:"message,omitempty"`
	ExitCode   *int   `json:"exitCode,omitempty"`
	Signal     int    `json:"signal,omitempty"`
	StartedAt  string `json:"startedAt,omitempty"`
	FinishedAt string `json:"finishedAt,omitempty"`
}

// Event is a deduplicated Kubernetes event about the job or one of its
// objects (pods, child workloads, pod groups).
type Event struct {
	Type    string `json:"type"`
	Reason  string `json:"reason"`
	Message string `json:"message"`
	Object  Ref    `json:"object"`
	Count   int    `json:"count"`
	// FirstTime and LastTime bound the occurrences.
	FirstTime string `json:"firstTime,omitempty"`
	LastTime  string `json:"lastTime,omitempty"`
	Source    string `json:"source,omitempty"`
}

// Node is a node that one of the job's pods is or was placed on.
type Node struct {
	Name          string            `json:"name"`
	Ready         string            `json:"ready"`
	Unschedulable bool              `json:"unschedulable,omitempty"`
	Conditions    []Condition       `json:"conditions"`
	Taints        []Taint           `json:"taints,omitempty"`
	Labels        map[string]string `json:"labels,omitempty"`
	Capacity      map[string]string `json:"capacity,omitempty"`
	Allocatable   map[string]string `json:"allocatable,omitempty"`
	GPU           int64             `json:"gpu"`
	EFA           int64             `json:"efa"`
}

// Taint is a node taint.
type Taint struct {
	Key       string `json:"key"`
	Value     string `json:"value,omitempty"`
	Effect    string `json:"effect"`
	TimeAdded string `json:"timeAdded,omitempty"`
}

// Quota is a ResourceQuota in the job's namespace.
type Quota struct {
	Name string            `json:"name"`
	Hard map[string]string `json:"hard"`
	Used map[string]string `json:"used"`
}

// Admission is a gang-scheduling or queueing object that gates the job:
// a Volcano or T9k PodGroup, or a Kueue Workload.
type Admission struct {
	Ref
	Phase     string `json:"phase,omitempty"`
	Queue     string `json:"queue,omitempty"`
	MinMember *int   `json:"minMember,omitempty"`
	// MinResources is what a pod group needs at once (spec.minResources).
	MinResources map[string]string `json:"minResources,omitempty"`
	// ClusterQueue is the ClusterQueue that admitted a Kueue Workload
	// (status.admission.clusterQueue).
	ClusterQueue string `json:"clusterQueue,omitempty"`
	// Active is a Kueue Workload's spec.active, when set.
	Active *bool `json:"active,omitempty"`
	// Counts are a pod group's pods by phase (status.running, pending,
	// succeeded, failed).
	Counts     map[string]int `json:"counts,omitempty"`
	Conditions []Condition    `json:"conditions"`
	// CreatedAt is the gate's creationTimestamp.
	CreatedAt string `json:"createdAt,omitempty"`
}

// Queue is a queue a job waits in: a Volcano or TensorStack Queue, a Kueue
// LocalQueue or ClusterQueue. Quantities are as Kubernetes writes them.
type Queue struct {
	Ref
	// State is Open, Closed, Closing or Unknown for a Volcano queue
	// (status.state), Closed for a TensorStack queue with spec.closed, the
	// stopPolicy (Hold, HoldAndDrain) of a Kueue queue that is stopped;
	// empty when the queue says nothing.
	State string `json:"state,omitempty"`
	// ClusterQueue is the ClusterQueue a LocalQueue feeds.
	ClusterQueue string `json:"clusterQueue,omitempty"`
	// Cohort is a Kueue ClusterQueue's cohort, whose unused quota it may
	// borrow.
	Cohort string `json:"cohort,omitempty"`
	// Quota is the most the queue hands out per resource: a Volcano
	// queue's capability, a TensorStack queue's quota.requests, a Kueue
	// ClusterQueue's nominal quota plus borrowing limit summed over its
	// flavors (nominal alone when it may not borrow).
	Quota map[string]string `json:"quota,omitempty"`
	// Borrowing lists the resources whose Quota is a lower bound: a Kueue
	// ClusterQueue in a cohort with no borrowing limit for them.
	Borrowing []string `json:"borrowing,omitempty"`
	// Allocated is what the queue has handed out: status.allocated of a
	// Volcano or TensorStack queue, a Kueue ClusterQueue's
	// flavorsReservation summed over flavors.
	Allocated map[string]string `json:"allocated,omitempty"`
	// Counts are the queue's workloads or pod groups by state (Volcano
	// pending, inqueue, running; Kueue pendingWorkloads,
	// admittedWorkloads, reservingWorkloads).
	Counts     map[string]int `json:"counts,omitempty"`
	Conditions []Condition    `json:"conditions"`
}

// Child is a workload object beneath the job.
type Child struct {
	Ref
	Phase      string         `json:"phase,omitempty"`
	Conditions []Condition    `json:"conditions"`
	Counts     map[string]int `json:"counts,omitempty"`
}
