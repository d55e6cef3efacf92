package adapt

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/traindoc/traindoc/engine/evidence"
	"github.com/traindoc/traindoc/engine/snapshot"
)

func build(t *testing.T, objects string) []*evidence.Job {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "objects.yaml"), []byte(objects), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := snapshot.Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Warnings) > 0 {
		t.Fatalf("warnings: %q", s.Warnings)
	}
	return Build(s)
}

func find(t *testing.T, jobs []*evidence.Job, kind, name string) *evidence.Job {
	t.Helper()
	for _, j := range jobs {
		if j.Kind == kind && j.Name == name {
			return j
		}
	}
	t.Fatalf("no %s %s among %d jobs", kind, name, len(jobs))
	return nil
}

func group(t *testing.T, j *evidence.Job, typ string) evidence.ReplicaGroup {
	t.Helper()
	for _, g := range j.Replicas {
		if g.Type == typ {
			return g
		}
	}
	t.Fatalf("%s has no replica group %q (%+v)", j.Name, typ, j.Replicas)
	return evidence.ReplicaGroup{}
}

func podNames(j *evidence.Job) []string {
	var out []string
	for _, p := range j.Pods {
		out = append(out, p.Name)
	}
	return out
}

const pytorchJob = `
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata: {name: train, namespace: ml, uid: job-1, creationTimestamp: "2026-03-01T10:00:00Z"}
spec:
  nprocPerNode: "8"
  elasticPolicy: {minReplicas: 2, maxReplicas: 4}
  runPolicy: {backoffLimit: 3, cleanPodPolicy: None}
  pytorchReplicaSpecs:
    Master:
      replicas: 1
      template:
        spec:
          containers:
          - name: pytorch
            image: img
            resources: {limits: {nvidia.com/gpu: "8", vpc.amazonaws.com/efa: "4"}}
            volumeMounts: [{name: dshm, mountPath: /dev/shm}]
          volumes: [{name: dshm, emptyDir: {medium: Memory, sizeLimit: 64Gi}}]
    Worker:
      replicas: 3
      template:
        spec:
          containers: [{name: pytorch, image: img, resources: {limits: {nvidia.com/gpu: "8"}}}]
status:
  conditions:
  - {type: Created, status: "True", reason: PyTorchJobCreated, lastTransitionTime: "2026-03-01T10:00:00Z"}
  - {type: Running, status: "False", reason: PyTorchJobRunning, lastTransitionTime: "2026-03-01T10:05:00Z"}
  - {type: Failed, status: "True", reason: PyTorchJobFailed, message: "master failed", lastTransitionTime: "2026-03-01T11:00:00Z"}
  replicaStatuses: {Master: {failed: 1}, Worker: {active: 2}}
---
apiVersion: v1
kind: Pod
metadata:
  name: train-master-0
  namespace: ml
  uid: p-m0
  labels: {training.kubeflow.org/job-name: train, training.kubeflow.org/replica-type: master, training.kubeflow.org/replica-index: "0"}
  ownerReferences: [{apiVersion: kubeflow.org/v1, kind: PyTorchJob, name: train, uid: job-1, controller: true}]
spec: {nodeName: n1, containers: [{name: pytorch, image: img}]}
status:
  phase: Failed
  containerStatuses:
  - name: pytorch
    restartCount: 2
    state: {terminated: {exitCode: 137, reason: OOMKilled, finishedAt: "2026-03-01T10:59:00Z"}}
---
apiVersion: v1
kind: Pod
metadata:
  name: train-worker-0
  namespace: ml
  labels: {training.kubeflow.org/job-name: train, training.kubeflow.org/replica-type: worker}
spec: {nodeName: n2, containers: [{name: pytorch}]}
status: {phase: Running}
---
apiVersion: v1
kind: Pod
metadata:
  name: train-worker-1
  namespace: other
  labels: {training.kubeflow.org/job-name: train, training.kubeflow.org/replica-type: worker}
status: {phase: Running}
---
apiVersion: v1
kind: Node
metadata: {name: n1}
status:
  capacity: {nvidia.com/gpu: "8", vpc.amazonaws.com/efa: "4"}
  conditions: [{type: Ready, status: "True"}]
---
apiVersion: v1
kind: Event
metadata: {name: e1, namespace: ml}
involvedObject: {kind: Pod, name: train-master-0, namespace: ml}
reason: BackOff
message: Back-off restarting failed container
type: Warning
count: 3
firstTimestamp: "2026-03-01T10:30:00Z"
lastTimestamp: "2026-03-01T10:40:00Z"
---
apiVersion: events.k8s.io/v1
kind: Event
metadata: {name: e2, namespace: ml}
regarding: {kind: Pod, name: train-master-0, namespace: ml}
reason: BackOff
note: Back-off restarting failed container
type: Warning
deprecatedCount: 2
deprecatedFirstTimestamp: "2026-03-01T10:20:00Z"
deprecatedLastTimestamp: "2026-03-01T10:50:00Z"
---
apiVersion: v1
kind: Event
metadata: {name: e3, namespace: ml}
involvedObject: {kind: Pod, name: unrelated, namespace: ml}
reason: Pulled
message: pulled
type: Normal
`

func TestPyTorchJob(t *testing.T) {
	j := find(t, build(t, pytorchJob), "PyTorchJob", "train")
	if j.Phase != evidence.PhaseFailed || j.Status.Phase != "Failed" || j.Status.Message != "master failed" {
		t.Errorf("phase %q status %+v", j.Phase, j.Status)
	}
	if got := podNames(j); len(got) != 2 || got[0] != "train-master-0" || got[1] != "train-worker-0" {
		t.Errorf("pods = %v (the pod in another namespace must not be linked)", got)
	}
	m := group(t, j, "Master")
	if m.Expected != 1 || m.Created != 1 || m.Failed != 1 || m.Restarts != 2 || m.Reported["failed"] != 1 {
		t.Errorf("Master group = %+v", m)
	}
	if m.Template.GPULimit != 8 || m.Template.EFA != 4 || !m.Template.ShmMemory || m.Template.ShmSizeLimit != "64Gi" {
		t.Errorf("Master template = %+v", m.Template)
	}
	w := group(t, j, "Worker")
	if w.Expected != 3 || w.Created != 1 || w.Running != 1 || w.Template.ShmMemory || *w.MinReplicas != 2 || *w.MaxReplicas != 4 {
		t.Errorf("Worker group = %+v", w)
	}
	if j.Spec.ProcsPerNodeCount != 8 || *j.Spec.RunPolicy.BackoffLimit != 3 || j.Spec.Elastic == nil {
		t.Errorf("spec = %+v", j.Spec)
	}
	if j.Pods[0].ReplicaType != "Master" || j.Pods[0].ReplicaIndex == nil || *j.Pods[0].ReplicaIndex != 0 {
		t.Errorf("master pod type/index = %q/%v", j.Pods[0].ReplicaType, j.Pods[0].ReplicaIndex)
	}
	c := j.Pods[0].Containers[0]
	if c.State.State != "terminated" || *c.State.ExitCode != 137 || c.State.Reason != "OOMKilled" {
		t.Errorf("container state = %+v", c.State)
	}
	if len(j.Nodes) != 1 || j.Nodes[0].Name != "n1" || j.Nodes[0].GPU != 8 || j.Nodes[0].EFA != 4 || j.Nodes[0].Ready != "True" {
		t.Errorf("nodes = %+v", j.Nodes)
	}
	// The two BackOff events (one per events API) merge into one.
	if len(j.Events) != 1 {
		t.Fatalf("events = %+v", j.Events)
	}
	e := j.Events[0]
	if e.Count != 5 || e.FirstTime != "2026-03-01T10:20:00Z" || e.LastTime != "2026-03-01T10:50:00Z" {
		t.Errorf("merged event = %+v", e)
	}
	if j.Now != "2026-03-01T11:00:00Z" {
		t.Errorf("now = %q, want the newest time in the snapshot", j.Now)
	}
}

const trainJob = `
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata: {name: tj, namespace: ml, uid: tj-1}
spec:
  runtimeRef: {name: torch-distributed}
  trainer: {numNodes: 2, numProcPerNode: 4, resourcesPerNode: {limits: {nvidia.com/gpu: "4"}}}
status: {}
---
apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata:
  name: tj
  namespace: ml
  uid: js-1
  ownerReferences: [{kind: TrainJob, name: tj, uid: tj-1, controller: true}]
spec:
  replicatedJobs:
  - name: node
    replicas: 1
    template:
      spec:
        parallelism: 2
        template: {spec: {containers: [{name: node, resources: {limits: {nvidia.com/gpu: "4"}}}]}}
---
apiVersion: batch/v1
kind: Job
metadata:
  name: tj-node-0
  namespace: ml
  uid: j-1
  ownerReferences: [{kind: JobSet, name: tj, uid: js-1, controller: true}]
---
apiVersion: v1
kind: Pod
metadata:
  name: tj-node-0-0-abcde
  namespace: ml
  labels: {jobset.sigs.k8s.io/replicatedjob-name: node, batch.kubernetes.io/job-completion-index: "0"}
  ownerReferences: [{kind: Job, name: tj-node-0, uid: j-1, controller: true}]
status: {phase: Running}
---
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata: {name: broken, namespace: ml, uid: tj-2}
spec: {trainer: {numNodes: 4}}
---
apiVersion: v1
kind: Event
metadata: {name: ev, namespace: ml}
involvedObject: {kind: TrainJob, name: broken, namespace: ml}
reason: JobsCreationFailed
message: "admission webhook denied the request"
type: Warning
`

func TestTrainJob(t *testing.T) {
	jobs := build(t, trainJob)
	j := find(t, jobs, "TrainJob", "tj")
	if got := podNames(j); len(got) != 1 || got[0] != "tj-node-0-0-abcde" {
		t.Errorf("pods = %v, want the pod owned through Job and JobSet", got)
	}
	g := group(t, j, "node")
	if g.Expected != 2 || g.Created != 1 || g.Running != 1 || g.Template.GPULimit != 4 {
		t.Errorf("node group = %+v", g)
	}
	if j.Phase != evidence.PhaseRunning || len(j.Children) != 2 {
		t.Errorf("phase %q children %+v", j.Phase, j.Children)
	}
	if j.Spec.ProcsPerNodeCount != 4 {
		t.Errorf("procs per node = %d", j.Spec.ProcsPerNodeCount)
	}
	// Empty conditions and no JobSet: pending, and the events still link.
	b := find(t, jobs, "TrainJob", "broken")
	if b.Phase != evidence.PhasePending || len(b.Events) != 1 || b.Events[0].Reason != "JobsCreationFailed" {
		t.Errorf("broken: phase %q events %+v", b.Phase, b.Events)
	}
	if g := group(t, b, "node"); g.Expected != 4 || g.Created != 0 {
		t.Errorf("broken node group = %+v", g)
	}
}

const t9kJob = `
apiVersion: batch.tensorstack.dev/v1beta1
kind: PyTorchTrainingJob
metadata: {name: t9, namespace: ml, uid: t9-1}
spec:
  runMode: {debug: {enable: true}}
  torchrunConfig: {enable: true, procPerNode: "4", maxRestarts: 3}
  elastic: {enable: true, minReplicas: 4, maxReplicas: 2}
  scheduler: {t9kScheduler: {queue: gpu-a100}}
  replicaSpecs:
  - {type: master, replicas: 1, template: {spec: {containers: [{name: pytorch}]}}}
  - {type: worker, replicas: 2, template: {spec: {containers: [{name: pytorch}]}}}
status:
  phase: Paused
  aggregate: {creating: 0, pending: 0, running: 0, succeeded: 0, failed: 1, deleted: 2}
  tasks:
  - type: worker
    restartCount: 1
    replicaStatus:
    - name: t9-worker-0
      uid: w0
      phase: Failed
      containers: [{name: pytorch, state: terminated, exitCode: 139}]
`

func TestT9k(t *testing.T) {
	j := find(t, build(t, t9kJob), "PyTorchTrainingJob", "t9")
	if j.Phase != evidence.PhaseSuspended || j.Status.Phase != "Paused" || j.Status.Counts["deleted"] != 2 {
		t.Errorf("phase %q status %+v", j.Phase, j.Status)
	}
	if !j.Spec.RunMode.Debug || j.Spec.Scheduler.Queue != "gpu-a100" || j.Spec.ProcsPerNodeCount != 4 || *j.Spec.Elastic.MinReplicas != 4 {
		t.Errorf("spec = %+v", j.Spec)
	}
	// The task status stands in for the deleted pod.
	if len(j.Pods) != 1 || j.Pods[0].Name != "t9-worker-0" || *j.Pods[0].Containers[0].State.ExitCode != 139 {
		t.Fatalf("pods = %+v", j.Pods)
	}
	if g := group(t, j, "worker"); g.Expected != 2 || g.Failed != 1 {
		t.Errorf("worker group = %+v", g)
	}
}

const rayJob = `
apiVersion: ray.io/v1
kind: RayJob
metadata: {name: rj, namespace: ml, uid: rj-1}
spec:
  entrypoint: python train.py
  rayClusterSpec:
    headGroupSpec: {template: {spec: {containers: [{name: ray-head}]}}}
    workerGroupSpecs:
    - {groupName: gpu, replicas: 2, minReplicas: 1, maxReplicas: 4, template: {spec: {containers: [{name: ray-worker, resources: {limits: {nvidia.com/gpu: "1"}}}]}}}
status: {jobStatus: RUNNING, jobDeploymentStatus: Running, rayClusterName: rj-raycluster-x}
---
apiVersion: ray.io/v1
kind: RayCluster
metadata:
  name: rj-raycluster-x
  namespace: ml
  uid: rc-1
  ownerReferences: [{kind: RayJob, name: rj, uid: rj-1, controller: true}]
status: {state: ready}
---
apiVersion: v1
kind: Pod
metadata: {name: rj-raycluster-x-head-1, namespace: ml, labels: {ray.io/cluster: rj-raycluster-x, ray.io/node-type: head, ray.io/group: headgroup}}
status: {phase: Running}
---
apiVersion: v1
kind: Pod
metadata: {name: rj-raycluster-x-gpu-worker-2, namespace: ml, labels: {ray.io/cluster: rj-raycluster-x, ray.io/node-type: worker, ray.io/group: gpu}}
status: {phase: Pending}
---
apiVersion: ray.io/v1
kind: RayCluster
metadata: {name: standalone, namespace: ml, uid: rc-2}
spec:
  suspend: true
  headGroupSpec: {template: {spec: {containers: [{name: ray-head}]}}}
status: {state: suspended}
`

func TestRay(t *testing.T) {
	jobs := build(t, rayJob)
	if len(jobs) != 2 {
		t.Fatalf("jobs = %d, want the RayJob and the standalone RayCluster only", len(jobs))
	}
	j := find(t, jobs, "RayJob", "rj")
	if j.Phase != evidence.PhaseRunning || j.Status.Phase != "RUNNING" || j.Spec.Entrypoint != "python train.py" {
		t.Errorf("phase %q status %+v", j.Phase, j.Status)
	}
	if h := group(t, j, "head"); h.Created != 1 || h.Running != 1 {
		t.Errorf("head = %+v", h)
	}
	if w := group(t, j, "gpu"); w.Expected != 2 || w.Created != 1 || w.Pending != 1 || *w.MaxReplicas != 4 || w.Template.GPULimit != 1 {
		t.Errorf("gpu group = %+v", w)
	}
	if s := find(t, jobs, "RayCluster", "standalone"); s.Phase != evidence.PhaseSuspended || !s.Spec.Suspend {
		t.Errorf("standalone: %q %+v", s.Phase, s.Spec)
	}
}

// TestRayClusterNamedByRayJob: KubeRay does not always set an owner
// reference on the RayCluster it creates; the RayJob's status names it,
// and the live collector treats it as the job's workload, so the adapters
// must too.
func TestRayClusterNamedByRayJob(t *testing.T) {
	objs := strings.Replace(rayJob, "  ownerReferences: [{kind: RayJob, name: rj, uid: rj-1, controller: true}]\n", "", 1)
	jobs := build(t, objs)
	var got []string
	for _, j := range jobs {
		got = append(got, j.Kind+"/"+j.Name)
	}
	if want := []string{"RayJob/rj", "RayCluster/standalone"}; !slices.Equal(got, want) {
		t.Fatalf("jobs = %v, want %v", got, want)
	}
	j := find(t, jobs, "RayJob", "rj")
	if len(j.Children) != 1 || j.Children[0].Name != "rj-raycluster-x" {
		t.Errorf("children = %+v", j.Children)
	}
}

const jaxAndGates = `
apiVersion: kubeflow.org/v1
kind: JAXJob
metadata: {name: jax, namespace: ml, uid: jax-1}
spec:
  runPolicy: {schedulingPolicy: {queue: research}}
  jaxReplicaSpecs:
    Worker:
      replicas: 2
      template: {spec: {schedulerName: scheduler-plugins-scheduler, containers: [{name: jax, image: jax:0.4, resources: {limits: {google.com/tpu: "4"}}}]}}
status:
  conditions: [{type: Created, status: "True", lastTransitionTime: "2026-03-01T10:00:00Z"}]
  replicaStatuses: {Worker: {active: 0}}
---
apiVersion: v1
kind: Pod
metadata:
  name: jax-worker-0
  namespace: ml
  labels: {training.kubeflow.org/job-name: jax, training.kubeflow.org/replica-type: worker, training.kubeflow.org/replica-index: "0", scheduling.x-k8s.io/pod-group: jax}
  ownerReferences: [{kind: JAXJob, name: jax, uid: jax-1, controller: true}]
status: {phase: Pending}
---
apiVersion: scheduling.x-k8s.io/v1alpha1
kind: PodGroup
metadata: {name: jax, namespace: ml, ownerReferences: [{kind: JAXJob, name: jax, uid: jax-1, controller: true}]}
spec: {minMember: 2}
status: {phase: Pending}
---
apiVersion: batch.tensorstack.dev/v1beta1
kind: PyTorchTrainingJob
metadata: {name: sft, namespace: ml, uid: sft-1}
spec:
  scheduler: {t9kScheduler: {queue: a100}}
  replicaSpecs:
  - {type: worker, replicas: 4, template: {spec: {containers: [{name: pytorch, image: img}]}}}
status: {phase: Pending}
---
apiVersion: v1
kind: Pod
metadata:
  name: sft-worker-0
  namespace: ml
  labels: {tensorstack.dev/owner-name: sft, scheduler.tensorstack.dev/group-name: sft}
status: {phase: Pending}
---
apiVersion: scheduler.tensorstack.dev/v1beta1
kind: PodGroup
metadata: {name: sft, namespace: ml}
spec: {minMember: 4, queue: a100}
status:
  conditions: [{type: GroupScheduled, status: "False", reason: Unschedulable, message: "3/4 pods can be scheduled"}]
`

func TestJAXJobAndGates(t *testing.T) {
	jobs := build(t, jaxAndGates)
	jax := find(t, jobs, "JAXJob", "jax")
	if g := group(t, jax, "Worker"); g.Expected != 2 || g.Created != 1 {
		t.Errorf("worker group = %+v", g)
	}
	if len(jax.Admission) != 1 || jax.Admission[0].APIVersion != "scheduling.x-k8s.io/v1alpha1" || *jax.Admission[0].MinMember != 2 {
		t.Errorf("JAXJob admission = %+v", jax.Admission)
	}
	sft := find(t, jobs, "PyTorchTrainingJob", "sft")
	if !slices.Equal(podNames(sft), []string{"sft-worker-0"}) {
		t.Errorf("pods = %v", podNames(sft))
	}
	if len(sft.Admission) != 1 || sft.Admission[0].APIVersion != "scheduler.tensorstack.dev/v1beta1" || sft.Admission[0].Queue != "a100" {
		t.Errorf("T9k admission = %+v", sft.Admission)
	}
}
