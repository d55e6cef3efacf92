package cli

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/traindoc/traindoc/internal/procmem"
)

// hostileJob is one failing PyTorchJob with a master pod, written into a
// generated snapshot. Every string field may hold anything an attacker who
// can start a pod controls: names, messages, log text.
type hostileJob struct {
	Namespace, Name string
	// Events are Warning event messages about the master pod.
	Events []string
	// Log is the master container's log; empty writes none. LogFile, when
	// set, writes the log itself (for logs too large to hold in memory).
	Log     string
	LogFile func(path string) error
	// Exec are in-pod command outputs by file name (nvidia-smi.txt, ...).
	Exec map[string]string
	// Env are the master container's environment variables.
	Env [][2]string
	// Annotations go on the job and the pod.
	Annotations map[string]string
	// Args are the container's arguments.
	Args []string
	// TerminationMessage is the container's last message.
	TerminationMessage string
}

func (j hostileJob) pod() string { return j.Name + "-master-0" }

// objects returns the job, its pod and its events as Kubernetes objects.
func (j hostileJob) objects() []any {
	env := []map[string]string{}
	for _, e := range j.Env {
		env = append(env, map[string]string{"name": e[0], "value": e[1]})
	}
	args := j.Args
	if args == nil {
		args = []string{"python", "train.py"}
	}
	meta := func(name string) map[string]any {
		m := map[string]any{"name": name, "namespace": j.Namespace, "uid": "uid-" + name,
			"creationTimestamp": "2026-03-14T11:00:00Z"}
		if len(j.Annotations) > 0 {
			m["annotations"] = j.Annotations
		}
		return m
	}
	container := map[string]any{"name": "pytorch", "image": "registry.example/train:1", "args": args, "env": env,
		"resources": map[string]any{"limits": map[string]any{"nvidia.com/gpu": "1", "memory": "16Gi"}}}
	job := map[string]any{
		"apiVersion": "kubeflow.org/v1", "kind": "PyTorchJob", "metadata": meta(j.Name),
		"spec": map[string]any{"pytorchReplicaSpecs": map[string]any{"Master": map[string]any{
			"replicas": 1, "restartPolicy": "Never",
			"template": map[string]any{"spec": map[string]any{"containers": []any{container}}},
		}}},
		"status": map[string]any{
			"startTime": "2026-03-14T11:00:01Z", "completionTime": "2026-03-14T11:10:00Z",
			"conditions": []any{
				map[string]any{"type": "Created", "status": "True", "reason": "PyTorchJobCreated", "lastTransitionTime": "2026-03-14T11:00:00Z"},
				map[string]any{"type": "Failed", "status": "True", "reason": "PyTorchJobFailed", "message": "PyTorchJob " + j.Name + " has failed because 1 Master replica(s) failed.", "lastTransitionTime": "2026-03-14T11:10:00Z"},
			},
			"replicaStatuses": map[string]any{"Master": map[string]any{"failed": 1}},
		},
	}
	podMeta := meta(j.pod())
	podMeta["labels"] = map[string]string{"training.kubeflow.org/job-name": j.Name, "training.kubeflow.org/replica-type": "master", "training.kubeflow.org/replica-index": "0"}
	podMeta["ownerReferences"] = []any{map[string]any{"apiVersion": "kubeflow.org/v1", "kind": "PyTorchJob", "name": j.Name, "uid": "uid-" + j.Name, "controller": true}}
	terminated := map[string]any{"exitCode": 1, "reason": "Error", "startedAt": "2026-03-14T11:00:05Z", "finishedAt": "2026-03-14T11:09:59Z"}
	if j.TerminationMessage != "" {
		terminated["message"] = j.TerminationMessage
	}
	pod := map[string]any{
		"apiVersion": "v1", "kind": "Pod", "metadata": podMeta,
		"spec": map[string]any{"nodeName": "gpu-node-1", "restartPolicy": "Never", "containers": []any{container}},
		"status": map[string]any{"phase": "Failed", "startTime": "2026-03-14T11:00:02Z",
			"containerStatuses": []any{map[string]any{"name": "pytorch", "ready": false, "restartCount": 0, "image": "registry.example/train:1",
				"state": map[string]any{"terminated": terminated}}}},
	}
	objs := []any{job, pod}
	for i, msg := range j.Events {
		objs = append(objs, map[string]any{
			"apiVersion": "v1", "kind": "Event",
			"metadata":       map[string]any{"name": j.pod() + ".ev" + string(rune('a'+i%26)), "namespace": j.Namespace},
			"involvedObject": map[string]any{"apiVersion": "v1", "kind": "Pod", "name": j.pod(), "namespace": j.Namespace, "uid": "uid-" + j.pod()},
			"type":           "Warning", "reason": "BackOff", "message": msg, "count": 1,
			"firstTimestamp": "2026-03-14T11:05:00Z", "lastTimestamp": "2026-03-14T11:05:00Z",
			"source": map[string]any{"component": "kubelet"},
		})
	}
	return objs
}

// writeHostileSnapshot writes jobs as a snapshot in dir: objects as one JSON
// List (JSON escapes any byte, NUL included, and is YAML), logs and exec
// outputs where the names make a usable path.
func writeHostileSnapshot(t testing.TB, dir string, jobs ...hostileJob) {
	t.Helper()
	var items []any
	for _, j := range jobs {
		items = append(items, j.objects()...)
	}
	list, err := json.MarshalIndent(map[string]any{"apiVersion": "v1", "kind": "List", "items": items}, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	mustWrite(t, filepath.Join(dir, "objects.json"), list)
	mustWrite(t, filepath.Join(dir, "snapshot.yaml"), []byte("collectedAt: '2026-03-14T11:30:00Z'\ncluster: hostile\n"))
	for _, j := range jobs {
		if !plainPathName(j.Namespace) || !plainPathName(j.pod()) {
			continue
		}
		logPath := filepath.Join(dir, "logs", j.Namespace, j.pod(), "pytorch.log")
		switch {
		case j.LogFile != nil:
			if err := os.MkdirAll(filepath.Dir(logPath), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := j.LogFile(logPath); err != nil {
				t.Fatal(err)
			}
		case j.Log != "":
			mustWrite(t, logPath, []byte(j.Log))
		}
		for name, out := range j.Exec {
			mustWrite(t, filepath.Join(dir, "exec", j.Namespace, j.pod(), name), []byte(out))
		}
	}
}

// plainPathName reports whether a name can be a file name as it is.
func plainPathName(s string) bool {
	return s != "" && s != "." && s != ".." && len(s) < 200 && !strings.ContainsAny(s, "/\\\x00")
}

func mustWrite(t testing.TB, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// hangGuard bounds a hostile run: no input may make traindoc hang. The
// guard is generous (a slow shared machine is not a failure); a hang is.
const hangGuard = 90 * time.Second

// cliResult is the outcome of one command line.
type cliResult struct {
	code           int
	stdout, stderr string
	peakHeap       uint64 // sampled HeapInuse, bytes
}

// runBounded runs traindoc with args and fails the test if it has not
// returned within hangGuard. With watchHeap, it samples the heap while the
// command runs; the test must then not be parallel, so that the heap is
// this command's alone.
func runBounded(t *testing.T, watchHeap bool, args ...string) cliResult {
	t.Helper()
	var out, errb bytes.Buffer
	done := make(chan int, 1)
	if watchHeap {
		runtime.GC()
	}
	var peak atomic.Uint64
	stop := func() {}
	if watchHeap {
		stop = procmem.SampleHeap(&peak, 5*time.Millisecond)
	}
	go func() { done <- runWith(args, &out, &errb) }()
	var code int
	select {
	case code = <-done:
	case <-time.After(hangGuard):
		stop()
		t.Fatalf("traindoc %s: still running after %v", strings.Join(args, " "), hangGuard)
	}
	stop()
	return cliResult{code: code, stdout: out.String(), stderr: errb.String(), peakHeap: peak.Load()}
}

// treeOf lists every path under root (relative, slash-separated, folders
// with a trailing slash), without following links.
func treeOf(t testing.TB, root string) []string {
	t.Helper()
	var paths []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			rel += "/"
		}
		paths = append(paths, rel)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(paths)
	return paths
}

func jsonUnmarshal(s string, v any) error { return json.Unmarshal([]byte(s), v) }
