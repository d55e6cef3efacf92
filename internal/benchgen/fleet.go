package benchgen

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// Fleet describes a snapshot of PyTorchJobs.
type Fleet struct {
	Namespace string
	// Jobs and PodsPerJob size the fleet (one master and workers).
	Jobs       int
	PodsPerJob int
	// EventsPerJob is how many Event objects each job gets, spread over
	// its pods and the job: scheduling, image pulls, probes, back-offs.
	EventsPerJob int
	// Nodes the pods are spread over.
	Nodes int
	// LogBytes is the size of each pod's log; 0 writes none.
	LogBytes int64
	// LogVariants > 0 writes only that many distinct logs per ending and
	// hard-links the others to them: a fleet of large logs then costs
	// disk for the variants only, and every pod still has its own file.
	LogVariants int
	// FailEvery makes every FailEvery-th job fail (a rank's CUDA OOM and
	// its peers' NCCL timeouts); 0 keeps every job healthy.
	FailEvery int
	Seed      uint64
	// JobPrefix names the jobs <prefix>-<n>.
	JobPrefix string
}

var collectedAt = time.Date(2026, 3, 14, 12, 0, 0, 0, time.UTC)

// WriteSnapshot writes the fleet as a snapshot directory (layout v2).
func WriteSnapshot(dir string, f Fleet) error {
	if f.Namespace == "" {
		f.Namespace = "bench"
	}
	if f.JobPrefix == "" {
		f.JobPrefix = "train"
	}
	if f.Nodes <= 0 {
		f.Nodes = max(1, f.Jobs*f.PodsPerJob)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	meta := fmt.Sprintf("collectedAt: %q\ncluster: bench\nnamespace: %s\n", collectedAt.Format(time.RFC3339), f.Namespace)
	if err := os.WriteFile(filepath.Join(dir, "snapshot.yaml"), []byte(meta), 0o644); err != nil {
		return err
	}
	g := &gen{f: f, r: newRNG(f.Seed), variants: map[string]string{}}
	var jobs, pods, events []any
	for j := range f.Jobs {
		job, jp, je, err := g.job(dir, j)
		if err != nil {
			return err
		}
		jobs = append(jobs, job)
		pods = append(pods, jp...)
		events = append(events, je...)
	}
	nodes := make([]any, 0, f.Nodes)
	for n := range f.Nodes {
		nodes = append(nodes, node(n))
	}
	for name, items := range map[string][]any{"jobs.json": jobs, "pods.json": pods, "events.json": events, "nodes.json": nodes} {
		if err := writeList(filepath.Join(dir, name), items); err != nil {
			return err
		}
	}
	return nil
}

type gen struct {
	f        Fleet
	r        *rng
	uid      int
	variants map[string]string // ending/variant -> path of the first copy
}

func (g *gen) newUID() string {
	g.uid++
	return fmt.Sprintf("%08x-0000-4000-8000-%012x", g.f.Seed&0xffffffff, g.uid)
}

func nodeName(n int) string { return fmt.Sprintf("gpu-node-%05d", n) }

func (g *gen) job(dir string, j int) (job any, pods, events []any, err error) {
	f := g.f
	name := fmt.Sprintf("%s-%05d", f.JobPrefix, j)
	uid := g.newUID()
	failing := f.FailEvery > 0 && j%f.FailEvery == f.FailEvery-1
	created := collectedAt.Add(-3 * time.Hour)
	ts := func(t time.Time) string { return t.Format(time.RFC3339) }
	conds := []any{
		map[string]any{"type": "Created", "status": "True", "reason": "PyTorchJobCreated", "lastTransitionTime": ts(created)},
		map[string]any{"type": "Running", "status": boolStr(!failing), "reason": "PyTorchJobRunning", "lastTransitionTime": ts(created.Add(2 * time.Minute))},
	}
	if failing {
		conds = append(conds, map[string]any{"type": "Failed", "status": "True", "reason": "PyTorchJobFailed", "message": "PyTorchJob " + name + " is failed because 1 Worker replica(s) failed.", "lastTransitionTime": ts(collectedAt.Add(-10 * time.Minute))})
	}
	workers := max(f.PodsPerJob-1, 0)
	tpl := func(replicas int) map[string]any {
		return map[string]any{
			"replicas": replicas, "restartPolicy": "Never",
			"template": map[string]any{"spec": map[string]any{"containers": []any{container()}}},
		}
	}
	specs := map[string]any{"Master": tpl(1)}
	if workers > 0 {
		specs["Worker"] = tpl(workers)
	}
	job = map[string]any{
		"apiVersion": "kubeflow.org/v1", "kind": "PyTorchJob",
		"metadata": map[string]any{"name": name, "namespace": f.Namespace, "uid": uid, "creationTimestamp": ts(created)},
		"spec":     map[string]any{"pytorchReplicaSpecs": specs, "nprocPerNode": "8"},
		"status":   map[string]any{"conditions": conds, "startTime": ts(created)},
	}
	perPod := 0
	if f.PodsPerJob > 0 {
		perPod = f.EventsPerJob / f.PodsPerJob
	}
	for p := range f.PodsPerJob {
		role, idx := "master", 0
		if p > 0 {
			role, idx = "worker", p-1
		}
		pod := fmt.Sprintf("%s-%s-%d", name, role, idx)
		node := nodeName((j*f.PodsPerJob + p) % f.Nodes)
		ending := Healthy
		if failing {
			ending = NCCLTimeout
			if p == f.PodsPerJob-1 {
				ending = CUDAOOM
			}
		}
		pods = append(pods, g.pod(name, uid, pod, role, idx, node, ending, created))
		events = append(events, g.podEvents(pod, node, perPod, created)...)
		if f.LogBytes > 0 {
			if err := g.log(dir, pod, p, ending); err != nil {
				return nil, nil, nil, err
			}
		}
	}
	for len(events) < f.EventsPerJob {
		events = append(events, g.event("PyTorchJob", name, "Normal", "SuccessfulCreatePod", "Created pod: "+name+"-worker-"+strconv.Itoa(len(events)), "pytorchjob-controller", created, 1))
	}
	return job, pods, events, nil
}

func boolStr(b bool) string {
	if b {
		return "True"
	}
	return "False"
}

func container() map[string]any {
	res := map[string]any{"cpu": "96", "memory": "1000Gi", "nvidia.com/gpu": "8"}
	return map[string]any{
		"name": "pytorch", "image": "nvcr.io/nvidia/pytorch:24.05-py3",
		"command":   []any{"torchrun", "--nproc_per_node=8", "train.py"},
		"resources": map[string]any{"limits": res, "requests": res},
		"env":       []any{map[string]any{"name": "NCCL_DEBUG", "value": "INFO"}},
	}
}

func (g *gen) pod(job, jobUID, name, role string, idx int, node string, ending Ending, created time.Time) any {
	ts := func(t time.Time) string { return t.Format(time.RFC3339) }
	started := created.Add(90 * time.Second)
	state := map[string]any{"running": map[string]any{"startedAt": ts(started)}}
	phase := "Running"
	switch ending {
	case CUDAOOM:
		phase = "Failed"
		state = map[string]any{"terminated": map[string]any{"exitCode": 1, "reason": "Error", "startedAt": ts(started), "finishedAt": ts(collectedAt.Add(-11 * time.Minute))}}
	case NCCLTimeout:
		phase = "Failed"
		state = map[string]any{"terminated": map[string]any{"exitCode": 134, "reason": "Error", "startedAt": ts(started), "finishedAt": ts(collectedAt.Add(-10 * time.Minute))}}
	}
	return map[string]any{
		"apiVersion": "v1", "kind": "Pod",
		"metadata": map[string]any{
			"name": name, "namespace": g.f.Namespace, "uid": g.newUID(), "creationTimestamp": ts(created.Add(time.Second)),
			"labels": map[string]any{
				"training.kubeflow.org/job-name": job, "training.kubeflow.org/replica-type": role,
				"training.kubeflow.org/replica-index": strconv.Itoa(idx),
			},
			"ownerReferences": []any{map[string]any{"apiVersion": "kubeflow.org/v1", "kind": "PyTorchJob", "name": job, "uid": jobUID, "controller": true}},
		},
		"spec": map[string]any{"nodeName": node, "containers": []any{container()}},
		"status": map[string]any{
			"phase": phase, "podIP": fmt.Sprintf("10.%d.%d.%d", 1+g.uid>>16&0xff, g.uid>>8&0xff, g.uid&0xff), "startTime": ts(created.Add(2 * time.Second)),
			"conditions": []any{
				map[string]any{"type": "PodScheduled", "status": "True", "lastTransitionTime": ts(created.Add(2 * time.Second))},
				map[string]any{"type": "Ready", "status": boolStr(phase == "Running"), "lastTransitionTime": ts(started)},
			},
			"containerStatuses": []any{map[string]any{
				"name": "pytorch", "ready": phase == "Running", "restartCount": 0,
				"image": "nvcr.io/nvidia/pytorch:24.05-py3", "state": state,
			}},
		},
	}
}

// podEvents are n events about one pod: its start-up, then probes and
// back-offs that repeat with different counts and messages, as a busy
// cluster records them.
func (g *gen) podEvents(pod, node string, n int, created time.Time) []any {
	base := []struct{ typ, reason, msg, src string }{
		{"Normal", "Scheduled", "Successfully assigned " + g.f.Namespace + "/" + pod + " to " + node, "default-scheduler"},
		{"Normal", "Pulling", `Pulling image "nvcr.io/nvidia/pytorch:24.05-py3"`, "kubelet"},
		{"Normal", "Pulled", `Successfully pulled image "nvcr.io/nvidia/pytorch:24.05-py3" in 41.2s (41.2s including waiting)`, "kubelet"},
		{"Normal", "Created", "Created container pytorch", "kubelet"},
		{"Normal", "Started", "Started container pytorch", "kubelet"},
	}
	var out []any
	for i := 0; i < n; i++ {
		t := created.Add(time.Duration(2+i) * time.Second)
		if i < len(base) {
			b := base[i]
			out = append(out, g.event("Pod", pod, b.typ, b.reason, b.msg, b.src, t, 1))
			continue
		}
		// What piles up on a busy cluster: a probe that keeps failing
		// with other numbers each time, and routine image checks.
		switch g.r.intn(4) {
		case 0, 1:
			out = append(out, g.event("Pod", pod, "Warning", "Unhealthy", fmt.Sprintf("Readiness probe failed: command \"sh -c nvidia-smi -L\" timed out after %ds (attempt %d)", 10+g.r.intn(3), i), "kubelet", t, 1+g.r.intn(30)))
		case 2:
			out = append(out, g.event("Pod", pod, "Normal", "Pulled", fmt.Sprintf("Container image \"nvcr.io/nvidia/pytorch:24.05-py3\" already present on machine (check %d)", i), "kubelet", t, 1+g.r.intn(5)))
		default:
			out = append(out, g.event("Pod", pod, "Normal", "LeaderElection", fmt.Sprintf("%s became leader of shard %d", pod, g.r.intn(1000)), "elastic-agent", t, 1))
		}
	}
	return out
}

func (g *gen) event(kind, name, typ, reason, msg, src string, t time.Time, count int) any {
	ts := t.Format(time.RFC3339)
	return map[string]any{
		"apiVersion": "v1", "kind": "Event",
		"metadata":       map[string]any{"name": fmt.Sprintf("%s.%x", name, g.r.next()&0xffffffffffff), "namespace": g.f.Namespace, "creationTimestamp": ts},
		"involvedObject": map[string]any{"kind": kind, "name": name, "namespace": g.f.Namespace},
		"type":           typ, "reason": reason, "message": msg, "count": count,
		"firstTimestamp": ts, "lastTimestamp": t.Add(time.Duration(count-1) * 10 * time.Second).Format(time.RFC3339),
		"source": map[string]any{"component": src},
	}
}

func node(n int) any {
	return map[string]any{
		"apiVersion": "v1", "kind": "Node",
		"metadata": map[string]any{"name": nodeName(n), "labels": map[string]any{"nvidia.com/gpu.product": "NVIDIA-H100-80GB-HBM3", "nvidia.com/gpu.count": "8"}},
		"status": map[string]any{
			"capacity":    map[string]any{"cpu": "192", "memory": "2Ti", "nvidia.com/gpu": "8"},
			"allocatable": map[string]any{"cpu": "190", "memory": "1900Gi", "nvidia.com/gpu": "8"},
			"conditions":  []any{map[string]any{"type": "Ready", "status": "True", "reason": "KubeletReady", "lastTransitionTime": "2026-03-01T00:00:00Z"}},
		},
	}
}

// logEnd is when a pod's log ends: a running pod's just before the
// snapshot, a failed one's before its container finished.
func logEnd(e Ending) time.Time {
	if e == Healthy {
		return collectedAt.Add(-20 * time.Second)
	}
	return collectedAt.Add(-12 * time.Minute)
}

// log writes (or links) the log of one pod.
func (g *gen) log(dir, pod string, p int, ending Ending) error {
	path := filepath.Join(dir, "logs", g.f.Namespace, pod, "pytorch.log")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	key := ""
	seed := g.f.Seed ^ uint64(len(g.variants)+1)*0x51ed27
	if g.f.LogVariants > 0 {
		key = fmt.Sprintf("%d/%d", ending, p%g.f.LogVariants)
		if first, ok := g.variants[key]; ok {
			return os.Link(first, path)
		}
	}
	out, err := os.Create(path)
	if err != nil {
		return err
	}
	err = WriteLog(out, LogOptions{
		Size: g.f.LogBytes, Seed: seed, Host: pod, Ranks: 8, RankBase: 8 * p,
		End: logEnd(ending), Ending: ending, Timestamps: true,
	})
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err == nil && key != "" {
		g.variants[key] = path
	}
	return err
}

func writeList(path string, items []any) error {
	out, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(out, 1<<20)
	if items == nil {
		items = []any{}
	}
	err = json.NewEncoder(w).Encode(map[string]any{"apiVersion": "v1", "kind": "List", "items": items})
	if err == nil {
		err = w.Flush()
	}
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	return err
}
