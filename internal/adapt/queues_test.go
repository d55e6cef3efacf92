package adapt

import (
	"slices"
	"testing"

	"github.com/traindoc/traindoc/engine/evidence"
)

// queueObjects holds a Kueue-managed PyTorchJob, a Volcano-scheduled one
// and a T9k job, each with its queues, and queues nothing names.
const queueObjects = `
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata: {name: kq, namespace: ml, uid: kq-uid, labels: {kueue.x-k8s.io/queue-name: team-a}}
spec:
  pytorchReplicaSpecs:
    Worker: {replicas: 2, template: {spec: {containers: [{name: pytorch}]}}}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: Workload
metadata:
  name: pytorchjob-kq-1a2b3
  namespace: ml
  ownerReferences: [{apiVersion: kubeflow.org/v1, kind: PyTorchJob, name: kq, uid: kq-uid}]
spec: {active: false, queueName: team-a}
status:
  conditions:
  - {type: QuotaReserved, status: "False", reason: Pending, message: "waiting", lastTransitionTime: "2026-05-01T10:00:00Z"}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: LocalQueue
metadata: {name: team-a, namespace: ml}
spec: {clusterQueue: team-a-cq}
status: {pendingWorkloads: 3, admittedWorkloads: 1}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: LocalQueue
metadata: {name: team-a, namespace: other}
spec: {clusterQueue: other-cq}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: ClusterQueue
metadata: {name: team-a-cq}
spec:
  cohort: research
  resourceGroups:
  - coveredResources: [cpu, nvidia.com/gpu]
    flavors:
    - name: h100
      resources:
      - {name: cpu, nominalQuota: "200", borrowingLimit: "56"}
      - {name: nvidia.com/gpu, nominalQuota: "16"}
    - name: a100
      resources:
      - {name: cpu, nominalQuota: 100500m, borrowingLimit: "0"}
      - {name: nvidia.com/gpu, nominalQuota: "8", borrowingLimit: "0"}
status:
  flavorsReservation:
  - name: h100
    resources: [{name: nvidia.com/gpu, total: "16"}, {name: cpu, total: "120"}]
  - name: a100
    resources: [{name: nvidia.com/gpu, total: "4"}]
  conditions:
  - {type: Active, status: "True", reason: Ready, message: Can admit new workloads}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: ClusterQueue
metadata: {name: other-cq}
spec: {stopPolicy: Hold}
---
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata: {name: vq, namespace: ml, uid: vq-uid}
spec:
  runPolicy: {schedulingPolicy: {queue: research}}
  pytorchReplicaSpecs:
    Worker: {replicas: 2, template: {spec: {schedulerName: volcano, containers: [{name: pytorch}]}}}
---
apiVersion: scheduling.volcano.sh/v1beta1
kind: PodGroup
metadata:
  name: vq
  namespace: ml
  ownerReferences: [{apiVersion: kubeflow.org/v1, kind: PyTorchJob, name: vq, uid: vq-uid}]
spec:
  minMember: 2
  queue: research
  minResources: {nvidia.com/gpu: "16"}
status: {phase: Inqueue, running: 1, pending: 1}
---
apiVersion: scheduling.volcano.sh/v1beta1
kind: Queue
metadata: {name: research}
spec: {capability: {nvidia.com/gpu: "64"}}
status: {state: Closed, allocated: {nvidia.com/gpu: "24"}, inqueue: 1, running: 2}
---
apiVersion: scheduling.volcano.sh/v1beta1
kind: Queue
metadata: {name: default}
status: {state: Open}
---
apiVersion: batch.tensorstack.dev/v1beta1
kind: PyTorchTrainingJob
metadata: {name: tq, namespace: ml, uid: tq-uid}
spec:
  scheduler: {t9kScheduler: {queue: a100}}
  replicaSpecs: [{type: worker, replicas: 2, template: {spec: {containers: [{name: pytorch}]}}}]
---
apiVersion: scheduler.tensorstack.dev/v1beta1
kind: Queue
metadata: {name: a100}
spec: {closed: true, quota: {requests: {nvidia.com/gpu: "32"}}}
status: {allocated: {nvidia.com/gpu: "30"}, pods: {pending: 4, running: 12}}
`

func TestQueues(t *testing.T) {
	jobs := build(t, queueObjects)

	kq := find(t, jobs, "PyTorchJob", "kq")
	// Queues come in snapshot order (kind, namespace, name).
	if got := queueNames(kq.Queues); !slices.Equal(got, []string{"ClusterQueue /team-a-cq", "LocalQueue ml/team-a"}) {
		t.Fatalf("Kueue job queues = %v", got)
	}
	cq, lq := kq.Queues[0], kq.Queues[1]
	if lq.ClusterQueue != "team-a-cq" || lq.Counts["pendingWorkloads"] != 3 {
		t.Errorf("LocalQueue = %+v", lq)
	}
	// cpu: 200 + 56 borrowable + 100.5; GPUs: 16 nominal (no limit in a
	// cohort: a lower bound) + 8 + 0.
	if cq.Quota["cpu"] != "356500m" || cq.Quota["nvidia.com/gpu"] != "24" || !slices.Equal(cq.Borrowing, []string{"nvidia.com/gpu"}) {
		t.Errorf("ClusterQueue quota = %v borrowing %v", cq.Quota, cq.Borrowing)
	}
	if cq.Allocated["nvidia.com/gpu"] != "20" || cq.Cohort != "research" || cq.State != "" {
		t.Errorf("ClusterQueue = %+v", cq)
	}
	if len(kq.Admission) != 1 || kq.Admission[0].Active == nil || *kq.Admission[0].Active {
		t.Errorf("Workload admission = %+v", kq.Admission)
	}

	vq := find(t, jobs, "PyTorchJob", "vq")
	if got := queueNames(vq.Queues); !slices.Equal(got, []string{"Queue /research"}) {
		t.Fatalf("Volcano job queues = %v", got)
	}
	if q := vq.Queues[0]; q.State != "Closed" || q.Quota["nvidia.com/gpu"] != "64" || q.Allocated["nvidia.com/gpu"] != "24" || q.Counts["inqueue"] != 1 {
		t.Errorf("Volcano queue = %+v", q)
	}
	if a := vq.Admission[0]; a.MinResources["nvidia.com/gpu"] != "16" || a.Counts["running"] != 1 {
		t.Errorf("Volcano pod group = %+v", a)
	}

	tq := find(t, jobs, "PyTorchTrainingJob", "tq")
	if got := queueNames(tq.Queues); !slices.Equal(got, []string{"Queue /a100"}) {
		t.Fatalf("T9k job queues = %v", got)
	}
	if q := tq.Queues[0]; q.State != "Closed" || q.Quota["nvidia.com/gpu"] != "32" || q.Counts["pending"] != 4 {
		t.Errorf("T9k queue = %+v", q)
	}
}

func queueNames(qs []evidence.Queue) []string {
	var out []string
	for _, q := range qs {
		out = append(out, q.Kind+" "+q.Namespace+"/"+q.Name)
	}
	return out
}
