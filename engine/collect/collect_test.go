package collect

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	fakediscovery "k8s.io/client-go/discovery/fake"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	"sigs.k8s.io/yaml"

	"github.com/traindoc/traindoc/engine/redact"
	"github.com/traindoc/traindoc/internal/kinds"
)

// env is a fake cluster: typed objects go to the clientset, unstructured
// ones to the dynamic client, and every known kind is "served".
type env struct {
	cs    *fake.Clientset
	dyn   *dynamicfake.FakeDynamicClient
	execs []string
}

func newEnv(t *testing.T, objs ...runtime.Object) *env {
	t.Helper()
	var typed, dyn []runtime.Object
	for _, o := range objs {
		if _, ok := o.(*unstructured.Unstructured); ok {
			dyn = append(dyn, o)
		} else {
			typed = append(typed, o)
		}
	}
	listKinds := map[schema.GroupVersionResource]string{}
	byGV := map[string]*metav1.APIResourceList{}
	for _, k := range knownKinds {
		listKinds[k.GVR] = k.Kind + "List"
		gv := k.GVR.GroupVersion().String()
		if byGV[gv] == nil {
			byGV[gv] = &metav1.APIResourceList{GroupVersion: gv}
		}
		byGV[gv].APIResources = append(byGV[gv].APIResources, metav1.APIResource{Name: k.GVR.Resource, Kind: k.Kind, Namespaced: !k.ClusterScoped})
	}
	e := &env{
		cs:  fake.NewClientset(typed...),
		dyn: dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), listKinds, dyn...),
	}
	fd := e.cs.Discovery().(*fakediscovery.FakeDiscovery)
	for _, l := range byGV {
		fd.Resources = append(fd.Resources, l)
	}
	return e
}

func (e *env) collect(t *testing.T, opts Options) (*Result, string, error) {
	t.Helper()
	dir := t.TempDir()
	c := newCollector(opts, clients{
		core:      e.cs,
		dynamic:   e.dyn,
		discovery: e.cs.Discovery().(*fakediscovery.FakeDiscovery),
		exec: func(_ context.Context, ns, pod, container string, cmd []string, stdout, _ io.Writer) error {
			e.execs = append(e.execs, pod+"/"+container+": "+strings.Join(cmd, " "))
			_, err := io.WriteString(stdout, "output of "+strings.Join(cmd, " ")+"\n")
			return err
		},
	})
	c.now = func() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) }
	c.cluster, c.context = "https://cluster.example", "test"
	res, err := c.run(context.Background(), dir)
	return res, dir, err
}

func uobj(apiVersion, kind, ns, name string, mutate ...func(*unstructured.Unstructured)) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{}}
	u.SetAPIVersion(apiVersion)
	u.SetKind(kind)
	u.SetNamespace(ns)
	u.SetName(name)
	for _, m := range mutate {
		m(u)
	}
	return u
}

func withLabels(l map[string]string) func(*unstructured.Unstructured) {
	return func(u *unstructured.Unstructured) { u.SetLabels(l) }
}

func withOwner(kind, name string) func(*unstructured.Unstructured) {
	return func(u *unstructured.Unstructured) {
		u.SetOwnerReferences([]metav1.OwnerReference{{Kind: kind, Name: name, APIVersion: "x/v1", UID: "u"}})
	}
}

type podOpt func(*corev1.Pod)

func pod(ns, name string, opts ...podOpt) *corev1.Pod {
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: corev1.PodSpec{
			NodeName:   "node-1",
			Containers: []corev1.Container{{Name: "main"}},
		},
		Status: corev1.PodStatus{Phase: corev1.PodRunning},
	}
	for _, o := range opts {
		o(p)
	}
	return p
}

func podLabels(l map[string]string) podOpt { return func(p *corev1.Pod) { p.Labels = l } }
func podOwner(kind, name string) podOpt {
	return func(p *corev1.Pod) {
		p.OwnerReferences = []metav1.OwnerReference{{Kind: kind, Name: name, APIVersion: "x/v1", UID: "u"}}
	}
}

func event(ns, name, kind, obj string) *corev1.Event {
	return &corev1.Event{
		ObjectMeta:     metav1.ObjectMeta{Namespace: ns, Name: name},
		InvolvedObject: corev1.ObjectReference{Kind: kind, Namespace: ns, Name: obj},
		Reason:         "Test",
	}
}

// readList reads a List file written by the collector and returns "Kind/name" of its items.
func readList(t *testing.T, path string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read %s: %v", path, err)
	}
	var l struct {
		Kind  string `json:"kind"`
		Items []struct {
			Kind     string `json:"kind"`
			Metadata struct {
				Name          string `json:"name"`
				ManagedFields []any  `json:"managedFields"`
			} `json:"metadata"`
		} `json:"items"`
	}
	if err := yaml.Unmarshal(data, &l); err != nil {
		t.Fatalf("parse %s: %v", path, err)
	}
	if l.Kind != "List" {
		t.Errorf("%s: kind = %q, want List", path, l.Kind)
	}
	var out []string
	for _, it := range l.Items {
		if it.Kind == "" {
			t.Errorf("%s: item %s has no kind", path, it.Metadata.Name)
		}
		if it.Metadata.ManagedFields != nil {
			t.Errorf("%s: item %s keeps managedFields", path, it.Metadata.Name)
		}
		out = append(out, it.Kind+"/"+it.Metadata.Name)
	}
	return out
}

func kubeflowFixture() []runtime.Object {
	gpu := corev1.ResourceList{"nvidia.com/gpu": resource.MustParse("1")}
	return []runtime.Object{
		uobj("kubeflow.org/v1", "PyTorchJob", "ml", "train", func(u *unstructured.Unstructured) {
			u.SetManagedFields([]metav1.ManagedFieldsEntry{{Manager: "kubectl"}})
			env := []any{map[string]any{"name": "HF_TOKEN", "value": "hf_secret"}, map[string]any{"name": "NCCL_DEBUG", "value": "INFO"}}
			_ = unstructured.SetNestedSlice(u.Object, []any{map[string]any{"name": "pytorch", "env": env}},
				"spec", "pytorchReplicaSpecs", "Master", "template", "spec", "containers")
		}),
		uobj("kubeflow.org/v1", "PyTorchJob", "other", "elsewhere"),
		uobj("scheduling.volcano.sh/v1beta1", "PodGroup", "ml", "train"),
		uobj("scheduling.volcano.sh/v1beta1", "PodGroup", "ml", "unrelated"),
		pod("ml", "train-master-0", podLabels(map[string]string{kinds.LabelKubeflowJob: "train"}), func(p *corev1.Pod) {
			p.Spec.Containers[0].Resources.Limits = gpu
			p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "main", RestartCount: 2}}
		}),
		pod("ml", "train-worker-0", podOwner("PyTorchJob", "train")),
		pod("ml", "pending-0", podOwner("PyTorchJob", "train"), func(p *corev1.Pod) { p.Spec.NodeName = ""; p.Status.Phase = corev1.PodPending }),
		pod("ml", "notebook", podLabels(map[string]string{"app": "jupyter"})),
		event("ml", "e1", "Pod", "train-master-0"),
		event("ml", "e2", "PyTorchJob", "train"),
		event("ml", "e3", "Pod", "notebook"),
		&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-1"}},
		&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-2"}},
		&corev1.ResourceQuota{ObjectMeta: metav1.ObjectMeta{Namespace: "ml", Name: "gpu-quota"}},
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ml", Name: "prompts"}, Data: map[string]string{
			"PyTorchJob.tmpl": "explain {{.}}", "README": "not a template", "../evil.tmpl": "x",
		}},
	}
}

func TestCollectKubeflowJob(t *testing.T) {
	e := newEnv(t, kubeflowFixture()...)
	opts := DefaultOptions()
	opts.Namespace = "ml"
	opts.Exec = true
	opts.PromptConfigMap = "ml/prompts"
	res, dir, err := e.collect(t, opts)
	if err != nil {
		t.Fatalf("collect: %v", err)
	}
	if want := []ObjectRef{{Kind: "PyTorchJob", Namespace: "ml", Name: "train"}}; !slices.Equal(res.Jobs, want) {
		t.Errorf("jobs = %v, want %v", res.Jobs, want)
	}
	checks := map[string][]string{
		"pytorchjobs.kubeflow.org.yaml": {"PyTorchJob/train"},
		"pods.yaml":                     {"Pod/pending-0", "Pod/train-master-0", "Pod/train-worker-0"},
		"events.yaml":                   {"Event/e1", "Event/e2"},
		// pending-0 is unscheduled, so every node is scheduling context.
		"nodes.yaml":                           {"Node/node-1", "Node/node-2"},
		"resourcequotas.yaml":                  {"ResourceQuota/gpu-quota"},
		"podgroups.scheduling.volcano.sh.yaml": {"PodGroup/train"},
	}
	for file, want := range checks {
		if got := readList(t, filepath.Join(dir, file)); !slices.Equal(got, want) {
			t.Errorf("%s = %v, want %v", file, got, want)
		}
	}
	for _, f := range []string{
		"logs/ml/train-master-0/main.log", "logs/ml/train-master-0/main.previous.log", "logs/ml/train-worker-0/main.log",
		"exec/ml/train-master-0/nvidia-smi.txt", "prompts/PyTorchJob.tmpl", "prompts/_._evil.tmpl", "snapshot.yaml",
	} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("missing %s: %v", f, err)
		}
	}
	for _, f := range []string{"logs/ml/pending-0", "logs/ml/train-worker-0/main.previous.log", "prompts/README", "evil.tmpl"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
			t.Errorf("unexpected %s", f)
		}
	}
	job, _ := os.ReadFile(filepath.Join(dir, "pytorchjobs.kubeflow.org.yaml"))
	if bytes.Contains(job, []byte("hf_secret")) || !bytes.Contains(job, []byte("INFO")) {
		t.Errorf("credential env values must be redacted, others kept:\n%s", job)
	}
	if len(res.Notes) != 0 {
		t.Errorf("notes = %q, want none", res.Notes)
	}
	var meta SnapshotMeta
	data, _ := os.ReadFile(filepath.Join(dir, "snapshot.yaml"))
	if err := yaml.Unmarshal(data, &meta); err != nil {
		t.Fatal(err)
	}
	if meta.CollectedAt != "2026-01-02T03:04:05Z" || meta.Namespace != "ml" || meta.Context != "test" {
		t.Errorf("snapshot.yaml = %+v", meta)
	}
}

func TestCollectIsDeterministic(t *testing.T) {
	var dumps []string
	for range 2 {
		e := newEnv(t, kubeflowFixture()...)
		opts := DefaultOptions()
		opts.Namespace = "ml"
		_, dir, err := e.collect(t, opts)
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				data, _ := os.ReadFile(p)
				rel, _ := filepath.Rel(dir, p)
				b.WriteString("== " + rel + "\n" + string(data))
			}
			return nil
		})
		dumps = append(dumps, b.String())
	}
	if dumps[0] != dumps[1] {
		t.Errorf("two collections of the same state differ:\n%s\n----\n%s", dumps[0], dumps[1])
	}
}

func forbid(verb, resource string) k8stesting.ReactionFunc {
	return func(a k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewForbidden(schema.GroupResource{Resource: resource}, "", errors.New("no"))
	}
}

func TestForbiddenBecomesNotes(t *testing.T) {
	tests := []struct {
		name      string
		verb, res string
		subres    string
		wantNote  string
		wantFiles []string
	}{
		{name: "events", verb: "list", res: "events", wantNote: "events not readable in ml: forbidden", wantFiles: []string{"pods.yaml"}},
		{name: "nodes", verb: "*", res: "nodes", wantNote: "nodes not readable: forbidden", wantFiles: []string{"events.yaml"}},
		{name: "pods", verb: "list", res: "pods", wantNote: "pods not readable in ml: forbidden", wantFiles: []string{"pytorchjobs.kubeflow.org.yaml"}},
		{name: "quota", verb: "list", res: "resourcequotas", wantNote: "resourcequotas not readable in ml: forbidden"},
		{name: "logs", verb: "get", res: "pods", subres: "log", wantNote: "logs of pod ml/train-worker-0 container main not readable: forbidden"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, kubeflowFixture()...)
			e.cs.PrependReactor(tt.verb, tt.res, func(a k8stesting.Action) (bool, runtime.Object, error) {
				if a.GetSubresource() != tt.subres {
					return false, nil, nil
				}
				return forbid(tt.verb, tt.res)(a)
			})
			opts := DefaultOptions()
			opts.Namespace = "ml"
			res, dir, err := e.collect(t, opts)
			if err != nil {
				t.Fatalf("a forbidden resource must not fail the collection: %v", err)
			}
			if !slices.Contains(res.Notes, tt.wantNote) {
				t.Errorf("notes = %q, want %q", res.Notes, tt.wantNote)
			}
			data, _ := os.ReadFile(filepath.Join(dir, "snapshot.yaml"))
			if !bytes.Contains(data, []byte(tt.wantNote)) {
				t.Errorf("snapshot.yaml lacks the note:\n%s", data)
			}
			for _, f := range tt.wantFiles {
				if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
					t.Errorf("missing %s: %v", f, err)
				}
			}
		})
	}
}

func TestLogsThroughFakeStream(t *testing.T) {
	// The fake clientset answers every log request with "fake logs"; the
	// point here is the file layout and the request options.
	e := newEnv(t, kubeflowFixture()...)
	var got []*corev1.PodLogOptions
	e.cs.PrependReactor("get", "pods", func(a k8stesting.Action) (bool, runtime.Object, error) {
		if ga, ok := a.(k8stesting.GenericAction); ok && a.GetSubresource() == "log" {
			if o, ok := ga.GetValue().(*corev1.PodLogOptions); ok {
				got = append(got, o)
			}
		}
		return false, nil, nil
	})
	opts := DefaultOptions()
	opts.Namespace, opts.LogTail, opts.LogBytes, opts.Timestamps, opts.Concurrency = "ml", 100, 4096, true, 1
	_, dir, err := e.collect(t, opts)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, "logs", "ml", "train-worker-0", "main.log"))
	if err != nil || string(data) != "fake logs" {
		t.Errorf("log = %q, %v", data, err)
	}
	for _, o := range got {
		if o.TailLines == nil || *o.TailLines != 100 || o.LimitBytes == nil || *o.LimitBytes != 4096 || !o.Timestamps {
			t.Errorf("log options = %+v", o)
		}
	}
}

func TestTrainJobAndRay(t *testing.T) {
	objs := []runtime.Object{
		uobj("trainer.kubeflow.org/v1alpha1", "TrainJob", "ml", "tj"),
		uobj("jobset.x-k8s.io/v1alpha2", "JobSet", "ml", "tj"),
		uobj("batch/v1", "Job", "ml", "tj-node-0", withLabels(map[string]string{kinds.LabelJobSet: "tj"})),
		uobj("batch/v1", "Job", "ml", "unrelated-cron"),
		pod("ml", "tj-node-0-0", podLabels(map[string]string{kinds.LabelJobSet: "tj"})),
		pod("ml", "tj-node-0-1", podOwner("Job", "tj-node-0")),
		uobj("ray.io/v1", "RayJob", "ml", "rj", func(u *unstructured.Unstructured) {
			_ = unstructured.SetNestedField(u.Object, "rj-raycluster-abc", "status", "rayClusterName")
		}),
		uobj("ray.io/v1", "RayCluster", "ml", "rj-raycluster-abc"),
		uobj("ray.io/v1", "RayCluster", "ml", "owned", withOwner("RayJob", "rj")),
		uobj("ray.io/v1", "RayCluster", "ml", "interactive"),
		pod("ml", "rj-head", podLabels(map[string]string{kinds.LabelRayCluster: "rj-raycluster-abc", "ray.io/node-type": "head"})),
		uobj("kueue.x-k8s.io/v1beta1", "Workload", "ml", "jobset-tj-1", withOwner("JobSet", "tj")),
	}
	e := newEnv(t, objs...)
	opts := DefaultOptions()
	opts.Namespace = "ml"
	opts.Exec = true
	res, dir, err := e.collect(t, opts)
	if err != nil {
		t.Fatal(err)
	}
	wantJobs := []string{"RayCluster/ml/interactive", "RayJob/ml/rj", "TrainJob/ml/tj"}
	var gotJobs []string
	for _, j := range res.Jobs {
		gotJobs = append(gotJobs, j.String())
	}
	if !slices.Equal(gotJobs, wantJobs) {
		t.Errorf("jobs = %v, want %v", gotJobs, wantJobs)
	}
	checks := map[string][]string{
		"jobsets.jobset.x-k8s.io.yaml":        {"JobSet/tj"},
		"jobs.batch.yaml":                     {"Job/tj-node-0"},
		"rayclusters.ray.io.yaml":             {"RayCluster/interactive", "RayCluster/owned", "RayCluster/rj-raycluster-abc"},
		"pods.yaml":                           {"Pod/rj-head", "Pod/tj-node-0-0", "Pod/tj-node-0-1"},
		"workloads.kueue.x-k8s.io.yaml":       {"Workload/jobset-tj-1"},
		"trainjobs.trainer.kubeflow.org.yaml": {"TrainJob/tj"},
	}
	for file, want := range checks {
		if got := readList(t, filepath.Join(dir, file)); !slices.Equal(got, want) {
			t.Errorf("%s = %v, want %v", file, got, want)
		}
	}
	wantExec := []string{"rj-head/main: ray job list", "rj-head/main: ray status"}
	slices.Sort(e.execs)
	if !slices.Equal(e.execs, wantExec) {
		t.Errorf("execs = %v, want %v", e.execs, wantExec)
	}
}

func TestJobFilter(t *testing.T) {
	objs := []runtime.Object{
		uobj("kubeflow.org/v1", "PyTorchJob", "a", "one", withLabels(map[string]string{"team": "x"})),
		uobj("kubeflow.org/v1", "PyTorchJob", "a", "two"),
		uobj("kubeflow.org/v1", "TFJob", "b", "one"),
		uobj("batch/v1", "Job", "a", "plain"),
	}
	tests := []struct {
		name      string
		opts      Options
		want      []string
		wantNotes []string
	}{
		{name: "namespace", opts: Options{Namespace: "a"}, want: []string{"PyTorchJob/a/one", "PyTorchJob/a/two"}},
		{name: "all namespaces by name", opts: Options{AllNamespaces: true, Jobs: []string{"one"}}, want: []string{"PyTorchJob/a/one", "TFJob/b/one"}},
		{name: "ns/name", opts: Options{Namespace: "a", Jobs: []string{"b/one"}}, want: []string{"TFJob/b/one"}},
		{name: "selector", opts: Options{Namespace: "a", Selector: "team=x"}, want: []string{"PyTorchJob/a/one"}},
		{name: "explicit batch job", opts: Options{Namespace: "a", Jobs: []string{"plain"}}, want: []string{"Job/a/plain"}},
		{name: "missing", opts: Options{Namespace: "a", Jobs: []string{"nope"}}, wantNotes: []string{"job nope not found"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, objs...)
			tt.opts.Previous = true
			res, _, err := e.collect(t, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, j := range res.Jobs {
				got = append(got, j.String())
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("jobs = %v, want %v", got, tt.want)
			}
			if !slices.Equal(res.Notes, tt.wantNotes) {
				t.Errorf("notes = %q, want %q", res.Notes, tt.wantNotes)
			}
		})
	}
}

func TestUnservedKindsAreSilent(t *testing.T) {
	e := newEnv(t, pod("default", "x"))
	fd := e.cs.Discovery().(*fakediscovery.FakeDiscovery)
	fd.Resources = nil // nothing but the core API
	for _, debug := range []bool{false, true} {
		opts := DefaultOptions()
		opts.Debug = debug
		res, _, err := e.collect(t, opts)
		if err != nil {
			t.Fatal(err)
		}
		if debug != (len(res.Notes) > 0) {
			t.Errorf("debug=%v: notes = %q", debug, res.Notes)
		}
	}
}

func TestUnreachableDiscovery(t *testing.T) {
	e := newEnv(t)
	e.cs.PrependReactor("get", "resource", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, errors.New("dial tcp 127.0.0.1:1: connect: connection refused")
	})
	_, _, err := e.collect(t, DefaultOptions())
	if !errors.Is(err, ErrUnreachable) {
		t.Fatalf("err = %v, want ErrUnreachable", err)
	}
}

func TestSafeJoin(t *testing.T) {
	root := t.TempDir()
	tests := []struct {
		elems []string
		want  string
	}{
		{[]string{"logs", "pod-a", "main.log"}, "logs/pod-a/main.log"},
		{[]string{"logs", "../../etc", "passwd"}, "logs/_._.._etc/passwd"},
		{[]string{"logs", "..", "x"}, "logs/_../x"},
		{[]string{"logs", ".", "x"}, "logs/_./x"},
		{[]string{"logs", "", "x"}, "logs/_/x"},
		{[]string{"exec", "a/b\\c\x00d", "n.txt"}, "exec/a_b_c_d/n.txt"},
		{[]string{"logs", ".hidden", "x"}, "logs/_hidden/x"},
	}
	for _, tt := range tests {
		got, err := safeJoin(root, tt.elems...)
		if err != nil {
			t.Errorf("safeJoin(%q): %v", tt.elems, err)
			continue
		}
		rel, _ := filepath.Rel(root, got)
		if filepath.ToSlash(rel) != tt.want {
			t.Errorf("safeJoin(%q) = %s, want %s", tt.elems, rel, tt.want)
		}
	}
}

func TestRedactObject(t *testing.T) {
	obj := map[string]any{
		"metadata": map[string]any{"annotations": map[string]any{
			"example.com/db-password": "hunter2",
			"example.com/endpoint":    "https://ml:s3cr3t-pw@mlflow.internal/api",
			"sidecar.istio.io/inject": "false",
		}},
		"message": "pull from https://bot:" + "gh-pw-123" + "@registry.example.com failed",
		"spec": map[string]any{"containers": []any{map[string]any{
			"command": []any{"torchrun", "--nproc_per_node", "8", "train.py", "--hf-token", "hf_abc", "--wandb-key=0123", "--lr", "1e-4"},
			"args":    []any{"--password", "--", "x"},
			"env": []any{
				map[string]any{"name": "AWS_SECRET_ACCESS_KEY", "value": "s"},
				map[string]any{"name": "DB_PASS", "value": "p"},
				map[string]any{"name": "WANDB_KEY", "value": "k"},
				map[string]any{"name": "HF_AUTH", "value": "a"},
				map[string]any{"name": "MASTER_ADDR", "value": "train-master-0"},
				map[string]any{"name": "TOKENIZERS_PARALLELISM", "value": "false"},
				map[string]any{"name": "DATABASE_URL", "value": "postgres://ml:pw-123@db:5432/runs"},
				map[string]any{"name": "GITHUB_TOKEN", "valueFrom": map[string]any{"secretKeyRef": map[string]any{"name": "gh"}}},
			},
		}}},
	}
	redactObject(obj)
	ctr := obj["spec"].(map[string]any)["containers"].([]any)[0].(map[string]any)
	var env []any
	for _, e := range ctr["env"].([]any) {
		env = append(env, e.(map[string]any)["value"])
	}
	wantEnv := []any{redact.Mask, redact.Mask, redact.Mask, redact.Mask, "train-master-0", "false", "postgres://ml:" + redact.Mask + "@db:5432/runs", nil}
	if !slices.Equal(env, wantEnv) {
		t.Errorf("env = %q, want %q", env, wantEnv)
	}
	wantCmd := []any{"torchrun", "--nproc_per_node", "8", "train.py", "--hf-token", redact.Mask, "--wandb-key=" + redact.Mask, "--lr", "1e-4"}
	if got := ctr["command"].([]any); !slices.Equal(got, wantCmd) {
		t.Errorf("command = %q, want %q", got, wantCmd)
	}
	// A flag after a secret flag is not its value.
	if got, want := ctr["args"].([]any), []any{"--password", "--", "x"}; !slices.Equal(got, want) {
		t.Errorf("args = %q, want %q", got, want)
	}
	ann := obj["metadata"].(map[string]any)["annotations"].(map[string]any)
	if ann["example.com/db-password"] != redact.Mask || ann["example.com/endpoint"] != "https://ml:"+redact.Mask+"@mlflow.internal/api" || ann["sidecar.istio.io/inject"] != "false" {
		t.Errorf("annotations = %q", ann)
	}
	if m := obj["message"].(string); strings.Contains(m, "gh-pw-123") {
		t.Errorf("message = %q", m)
	}
}

// TestSameNamesInTwoNamespaces: with -A, two namespaces commonly run a job
// of the same name with pods of the same names. Each pod's logs and exec
// outputs must land in its own folder, not overwrite the other's.
func TestSameNamesInTwoNamespaces(t *testing.T) {
	gpu := corev1.ResourceList{"nvidia.com/gpu": resource.MustParse("1")}
	var objs []runtime.Object
	for _, ns := range []string{"team-a", "team-b"} {
		objs = append(objs,
			uobj("kubeflow.org/v1", "PyTorchJob", ns, "train"),
			pod(ns, "train-master-0", podOwner("PyTorchJob", "train"), func(p *corev1.Pod) {
				p.Spec.Containers[0].Resources.Limits = gpu
			}))
	}
	e := newEnv(t, objs...)
	opts := DefaultOptions()
	opts.AllNamespaces, opts.Exec = true, true
	res, dir, err := e.collect(t, opts)
	if err != nil {
		t.Fatal(err)
	}
	if res.Logs != 2 || res.Exec != 2 {
		t.Errorf("wrote %d logs and %d exec outputs, want 2 and 2", res.Logs, res.Exec)
	}
	for _, f := range []string{
		"logs/team-a/train-master-0/main.log", "logs/team-b/train-master-0/main.log",
		"exec/team-a/train-master-0/nvidia-smi.txt", "exec/team-b/train-master-0/nvidia-smi.txt",
	} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("missing %s: %v", f, err)
		}
	}
}

// TestKindsOfTheRegistry: kinds that the adapters diagnose offline must be
// collected live: a JAXJob, a T9k PodGroup and a scheduler-plugins PodGroup
// were once read from snapshots but never collected.
func TestKindsOfTheRegistry(t *testing.T) {
	objs := []runtime.Object{
		uobj("kubeflow.org/v1", "JAXJob", "ml", "jax"),
		pod("ml", "jax-worker-0", podOwner("JAXJob", "jax"), podLabels(map[string]string{"scheduling.x-k8s.io/pod-group": "jax"})),
		uobj("scheduling.x-k8s.io/v1alpha1", "PodGroup", "ml", "jax", withOwner("JAXJob", "jax")),
		uobj("batch.tensorstack.dev/v1beta1", "PyTorchTrainingJob", "ml", "sft"),
		// T9k labels its pods; owner references are not always there.
		pod("ml", "sft-worker-0", podLabels(map[string]string{kinds.LabelT9kOwner: "sft", "scheduler.tensorstack.dev/group-name": "sft"})),
		uobj("scheduler.tensorstack.dev/v1beta1", "PodGroup", "ml", "sft"),
		uobj("scheduler.tensorstack.dev/v1beta1", "PodGroup", "ml", "someone-else"),
	}
	e := newEnv(t, objs...)
	opts := DefaultOptions()
	opts.Namespace = "ml"
	res, dir, err := e.collect(t, opts)
	if err != nil {
		t.Fatal(err)
	}
	var gotJobs []string
	for _, j := range res.Jobs {
		gotJobs = append(gotJobs, j.String())
	}
	if want := []string{"JAXJob/ml/jax", "PyTorchTrainingJob/ml/sft"}; !slices.Equal(gotJobs, want) {
		t.Errorf("jobs = %v, want %v", gotJobs, want)
	}
	for file, want := range map[string][]string{
		"jaxjobs.kubeflow.org.yaml":                      {"JAXJob/jax"},
		"pods.yaml":                                      {"Pod/jax-worker-0", "Pod/sft-worker-0"},
		"podgroups.scheduling.x-k8s.io.yaml":             {"PodGroup/jax"},
		"podgroups.scheduler.tensorstack.dev.yaml":       {"PodGroup/sft"},
		"pytorchtrainingjobs.batch.tensorstack.dev.yaml": {"PyTorchTrainingJob/sft"},
	} {
		if got := readList(t, filepath.Join(dir, file)); !slices.Equal(got, want) {
			t.Errorf("%s = %v, want %v", file, got, want)
		}
	}
}

// TestQueues: the queues a job waits in are collected with it: a Kueue
// LocalQueue named by the job's label and the ClusterQueue behind it, a
// Volcano queue named by the pod group; queues nobody names are not.
func TestQueues(t *testing.T) {
	field := func(v string, path ...string) func(*unstructured.Unstructured) {
		return func(u *unstructured.Unstructured) { _ = unstructured.SetNestedField(u.Object, v, path...) }
	}
	objs := []runtime.Object{
		uobj("kubeflow.org/v1", "PyTorchJob", "ml", "kq", withLabels(map[string]string{kinds.LabelKueueQueue: "team-a"})),
		uobj("kueue.x-k8s.io/v1beta1", "LocalQueue", "ml", "team-a", field("team-a-cq", "spec", "clusterQueue")),
		uobj("kueue.x-k8s.io/v1beta1", "LocalQueue", "ml", "team-b", field("team-b-cq", "spec", "clusterQueue")),
		uobj("kueue.x-k8s.io/v1beta1", "ClusterQueue", "", "team-a-cq"),
		uobj("kueue.x-k8s.io/v1beta1", "ClusterQueue", "", "team-b-cq"),
		uobj("kubeflow.org/v1", "PyTorchJob", "ml", "vq"),
		uobj("scheduling.volcano.sh/v1beta1", "PodGroup", "ml", "vq", withOwner("PyTorchJob", "vq"), field("research", "spec", "queue")),
		uobj("scheduling.volcano.sh/v1beta1", "Queue", "", "research"),
		uobj("scheduling.volcano.sh/v1beta1", "Queue", "", "default"),
	}
	e := newEnv(t, objs...)
	opts := DefaultOptions()
	opts.Namespace = "ml"
	res, dir, err := e.collect(t, opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Notes) != 0 {
		t.Errorf("notes = %q", res.Notes)
	}
	for file, want := range map[string][]string{
		"localqueues.kueue.x-k8s.io.yaml":   {"LocalQueue/team-a"},
		"clusterqueues.kueue.x-k8s.io.yaml": {"ClusterQueue/team-a-cq"},
		"queues.scheduling.volcano.sh.yaml": {"Queue/research"},
	} {
		if got := readList(t, filepath.Join(dir, file)); !slices.Equal(got, want) {
			t.Errorf("%s = %v, want %v", file, got, want)
		}
	}
}
