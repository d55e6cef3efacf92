package collect_test

// Integration tests against a real kube-apiserver (with etcd and kwok), built
// by hack/k8s-tools/build.sh. They skip when the binaries are absent, unless
// TRAINDOC_REQUIRE_CLUSTER is set. Each test starts its own control plane on
// random loopback ports, so they run in parallel safely.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/yaml"

	"k8s.io/client-go/rest"

	"github.com/traindoc/traindoc/engine/collect"
	"github.com/traindoc/traindoc/engine/diagnose"
	"github.com/traindoc/traindoc/internal/clustertest"
)

const basicSnapshot = "testdata/snapshots/basic"

// startWithCRDs starts a control plane with every supported job CRD
// installed. mpiVersions, when given, are the only MPIJob versions served.
func startWithCRDs(t *testing.T, opts clustertest.Options, mpiVersions ...string) *clustertest.Cluster {
	t.Helper()
	c := clustertest.Start(t, opts)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	dir := "testdata/crds"
	if len(mpiVersions) > 0 {
		dir = t.TempDir()
		if err := os.CopyFS(dir, os.DirFS("testdata/crds")); err != nil {
			t.Fatal(err)
		}
		crd := readFile(t, filepath.Join(dir, "mpijobs.kubeflow.org.yaml"))
		head, _, _ := strings.Cut(crd, "  versions:\n")
		var b strings.Builder
		b.WriteString(head + "  versions:\n")
		for i, v := range mpiVersions {
			fmt.Fprintf(&b, "  - {name: %s, served: true, storage: %v, subresources: {status: {}}, schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}}\n", v, i == 0)
		}
		if err := os.WriteFile(filepath.Join(dir, "mpijobs.kubeflow.org.yaml"), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := clustertest.InstallCRDs(ctx, c.Config, dir); err != nil {
		t.Fatalf("install CRDs: %v", err)
	}
	return c
}

func load(t *testing.T, c *clustertest.Cluster, dir string, strip bool) *clustertest.Loaded {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	loaded, err := clustertest.LoadIntoCluster(ctx, c.Config, dir, clustertest.LoadOptions{
		KubeletPort:     c.KubeletPort,
		LogDir:          filepath.Join(c.Dir, "cri-logs"),
		StripTimestamps: strip,
	})
	if err != nil {
		t.Fatalf("load %s: %v", dir, err)
	}
	if len(loaded.Repaired) > 0 {
		t.Logf("%s is not valid as is for a real API server; loaded with repairs:\n  %s", dir, strings.Join(loaded.Repaired, "\n  "))
	}
	return loaded
}

func collectInto(t *testing.T, c *clustertest.Cluster, opts collect.Options) (*collect.Result, string) {
	t.Helper()
	return collectWithin(t, c, opts, 2*time.Minute)
}

// collectWithin is collectInto with a deadline of its own.
func collectWithin(t *testing.T, c *clustertest.Cluster, opts collect.Options, limit time.Duration) (*collect.Result, string) {
	t.Helper()
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	res, err := collect.Collect(ctx, c.Config, "test", opts, dir)
	if err != nil {
		t.Fatalf("collect: %v", err)
	}
	return res, dir
}

func listNames(t *testing.T, path string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read %s: %v", path, err)
	}
	var l struct {
		Items []struct {
			Kind     string `json:"kind"`
			Metadata struct {
				Name string `json:"name"`
			} `json:"metadata"`
		} `json:"items"`
	}
	if err := yaml.Unmarshal(data, &l); err != nil {
		t.Fatalf("parse %s: %v", path, err)
	}
	var out []string
	for _, it := range l.Items {
		out = append(out, it.Kind+"/"+it.Metadata.Name)
	}
	return out
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func TestIntegrationCollectBasic(t *testing.T) {
	t.Parallel()
	c := startWithCRDs(t, clustertest.Options{})
	load(t, c, basicSnapshot, true)

	opts := collect.DefaultOptions()
	opts.Namespace = "team-a"
	opts.Timestamps = true
	res, dir := collectInto(t, c, opts)

	if want := []collect.ObjectRef{{Kind: "PyTorchJob", Namespace: "team-a", Name: "demo"}}; !slices.Equal(res.Jobs, want) {
		t.Errorf("jobs = %v, want %v", res.Jobs, want)
	}
	if len(res.Notes) != 0 {
		t.Errorf("notes = %q", res.Notes)
	}
	for file, want := range map[string][]string{
		"pytorchjobs.kubeflow.org.yaml": {"PyTorchJob/demo"},
		"pods.yaml":                     {"Pod/demo-master-0", "Pod/demo-worker-0"},
		"events.yaml":                   {"Event/demo-master-0.oom", "Event/demo.created"},
		"nodes.yaml":                    {"Node/gpu-1"},
		"resourcequotas.yaml":           {"ResourceQuota/gpu"},
	} {
		if got := listNames(t, filepath.Join(dir, file)); !slices.Equal(got, want) {
			t.Errorf("%s = %v, want %v", file, got, want)
		}
	}
	job := readFile(t, filepath.Join(dir, "pytorchjobs.kubeflow.org.yaml"))
	if strings.Contains(job, "hf_do_not_write_me") || strings.Contains(job, "managedFields") {
		t.Errorf("job file keeps a credential or managedFields:\n%s", job)
	}
	if !strings.Contains(job, "PyTorchJobRunning") {
		t.Errorf("job status (set through the status subresource) is missing:\n%s", job)
	}
	pods := readFile(t, filepath.Join(dir, "pods.yaml"))
	if !strings.Contains(pods, "OOMKilled") {
		t.Errorf("pod status is missing:\n%s", pods)
	}

	// --timestamps reproduces the timestamped file (kwok prints RFC 3339 with
	// trailing zeros trimmed, so compare parsed times).
	got := readFile(t, filepath.Join(dir, "logs", "team-a", "demo-master-0", "pytorch.log"))
	want := readFile(t, filepath.Join(basicSnapshot, "logs", "team-a", "demo-master-0", "pytorch.log"))
	if normTimes(t, got) != normTimes(t, want) {
		t.Errorf("timestamped log:\n%s\nwant:\n%s", got, want)
	}
	if _, err := os.Stat(filepath.Join(dir, "logs", "team-a", "demo-master-0", "pytorch.previous.log")); err != nil {
		t.Errorf("previous log of the restarted container: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "logs", "team-a", "demo-worker-0", "pytorch.previous.log")); err == nil {
		t.Error("a container that never restarted has no previous log")
	}

	// Without timestamps, with a tail of one line.
	opts.Timestamps, opts.LogTail = false, 1
	_, dir = collectInto(t, c, opts)
	if got := readFile(t, filepath.Join(dir, "logs", "team-a", "demo-worker-0", "pytorch.log")); got != "RuntimeError: [rank1] store timeout after 600s\n" {
		t.Errorf("tail 1 = %q", got)
	}
	opts.LogTail = 0
	_, dir = collectInto(t, c, opts)
	if got, want := readFile(t, filepath.Join(dir, "logs", "team-a", "demo-master-0", "pytorch.previous.log")),
		readFile(t, filepath.Join(basicSnapshot, "logs", "team-a", "demo-master-0", "pytorch.previous.log")); got != want {
		t.Errorf("previous log = %q, want %q", got, want)
	}
}

// normTimes rewrites a leading RFC 3339 timestamp on each line to one format.
func normTimes(t *testing.T, s string) string {
	t.Helper()
	var b strings.Builder
	for _, line := range strings.SplitAfter(s, "\n") {
		if ts, rest, ok := strings.Cut(line, " "); ok {
			if tm, err := time.Parse(time.RFC3339Nano, ts); err == nil {
				line = tm.UTC().Format(time.RFC3339Nano) + " " + rest
			}
		}
		b.WriteString(line)
	}
	return b.String()
}

func TestIntegrationKwokLifecycle(t *testing.T) {
	t.Parallel()
	c := startWithCRDs(t, clustertest.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	manifest := []byte(`
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata: {name: live, namespace: default}
spec: {}
---
apiVersion: v1
kind: Node
metadata:
  name: kwok-gpu-1
  annotations: {kwok.x-k8s.io/node: fake}
  labels: {type: kwok}
spec: {taints: [{key: kwok.x-k8s.io/node, value: fake, effect: NoSchedule}]}
status:
  capacity: {cpu: "32", memory: 256Gi, pods: "110", nvidia.com/gpu: "8"}
  allocatable: {cpu: "32", memory: 256Gi, pods: "110", nvidia.com/gpu: "8"}
---
apiVersion: v1
kind: Pod
metadata: {name: live-master-0, namespace: default, labels: {training.kubeflow.org/job-name: live}}
spec:
  nodeName: kwok-gpu-1
  tolerations: [{key: kwok.x-k8s.io/node, operator: Exists, effect: NoSchedule}]
  containers: [{name: pytorch, image: example.invalid/train:1}]
`)
	if _, err := clustertest.ApplyYAML(ctx, c.Config, manifest); err != nil {
		t.Fatal(err)
	}
	cs := kubernetes.NewForConfigOrDie(c.Config)
	// kwok drives the node to Ready and the pod to Running.
	deadline := time.Now().Add(60 * time.Second)
	for {
		p, err := cs.CoreV1().Pods("default").Get(ctx, "live-master-0", metav1.GetOptions{})
		if err == nil && p.Status.Phase == "Running" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("pod not running: %v %+v\n%s", err, p.Status, c.Log("kwok"))
		}
		time.Sleep(200 * time.Millisecond)
	}
	opts := collect.DefaultOptions()
	res, dir := collectInto(t, c, opts)
	if res.Pods != 1 {
		t.Errorf("pods = %d", res.Pods)
	}
	if nodes := readFile(t, filepath.Join(dir, "nodes.yaml")); !strings.Contains(nodes, "KubeletReady") && !strings.Contains(nodes, "type: Ready") {
		t.Errorf("node status from kwok missing:\n%s", nodes)
	}
	// There is no Logs object for this pod, so the kubelet (kwok) has no log
	// to give: expected for a container without output, noted only in debug mode.
	if len(res.Notes) != 0 {
		t.Errorf("notes = %q", res.Notes)
	}
	opts.Debug = true
	res, _ = collectInto(t, c, opts)
	if !slices.ContainsFunc(res.Notes, func(n string) bool {
		return strings.HasPrefix(n, "debug: logs of pod default/live-master-0 container pytorch not available")
	}) {
		t.Errorf("debug notes = %q", res.Notes)
	}
}

func TestIntegrationRestrictedUser(t *testing.T) {
	t.Parallel()
	c := startWithCRDs(t, clustertest.Options{Users: []clustertest.User{{Name: "viewer"}}})
	load(t, c, basicSnapshot, false)
	ctx := context.Background()
	cs := kubernetes.NewForConfigOrDie(c.Config)
	// Jobs and pods only: no events, no pods/log, no nodes, no quotas.
	role := &rbacv1.Role{
		ObjectMeta: metav1.ObjectMeta{Name: "jobs-and-pods", Namespace: "team-a"},
		Rules: []rbacv1.PolicyRule{
			{APIGroups: []string{"kubeflow.org"}, Resources: []string{"pytorchjobs"}, Verbs: []string{"get", "list"}},
			{APIGroups: []string{""}, Resources: []string{"pods"}, Verbs: []string{"get", "list"}},
		},
	}
	if _, err := cs.RbacV1().Roles("team-a").Create(ctx, role, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	rb := &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "viewer", Namespace: "team-a"},
		RoleRef:    rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "Role", Name: role.Name},
		Subjects:   []rbacv1.Subject{{Kind: "User", APIGroup: "rbac.authorization.k8s.io", Name: "viewer"}},
	}
	if _, err := cs.RbacV1().RoleBindings("team-a").Create(ctx, rb, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	opts := collect.DefaultOptions()
	opts.Namespace = "team-a"
	dir := t.TempDir()
	// RBAC changes take a moment to reach the authorizer's cache.
	var res *collect.Result
	var err error
	for range 50 {
		res, err = collect.Collect(ctx, c.ConfigFor("viewer"), "viewer", opts, dir)
		if err == nil && len(res.Jobs) == 1 {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err != nil {
		t.Fatalf("a restricted user must get a snapshot with notes, not an error: %v", err)
	}
	if len(res.Jobs) != 1 || res.Pods != 2 {
		t.Errorf("jobs = %v, pods = %d", res.Jobs, res.Pods)
	}
	for _, want := range []string{
		"events not readable in team-a: forbidden",
		"logs of pod team-a/demo-master-0 container pytorch not readable: forbidden",
		"logs of pod team-a/demo-worker-0 container pytorch not readable: forbidden",
		"nodes not readable: forbidden",
		"resourcequotas not readable in team-a: forbidden",
		"tfjobs.kubeflow.org not readable in team-a: forbidden",
	} {
		if !slices.Contains(res.Notes, want) {
			t.Errorf("missing note %q in %q", want, res.Notes)
		}
	}
	meta := readFile(t, filepath.Join(dir, "snapshot.yaml"))
	if !strings.Contains(meta, "events not readable in team-a: forbidden") {
		t.Errorf("snapshot.yaml:\n%s", meta)
	}
	// The report is produced from what was read, and the job says what it
	// was diagnosed without and why.
	rep, err := diagnose.Run(ctx, dir, diagnose.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Jobs) != 1 || !rep.Partial() {
		t.Fatalf("jobs = %d, partial = %v", len(rep.Jobs), rep.Partial())
	}
	got := map[string]bool{}
	for _, m := range rep.Jobs[0].Missing {
		got[m.What+" "+m.Object+": "+m.Reason] = true
	}
	for _, want := range []string{
		"events namespace team-a: forbidden",
		"logs pod team-a/demo-master-0 container pytorch: forbidden",
		"nodes : forbidden",
	} {
		if !got[want] {
			t.Errorf("job missing %q; has %v", want, got)
		}
	}
}

// killOnWrite kills the API server when the collector starts on the logs.
type killOnWrite struct {
	c    *clustertest.Cluster
	done bool
}

func (k *killOnWrite) Write(p []byte) (int, error) {
	if !k.done && bytes.Contains(p, []byte("logs")) {
		k.done = true
		k.c.Kill("kube-apiserver")
	}
	return len(p), nil
}

func TestIntegrationServerGoneMidway(t *testing.T) {
	t.Parallel()
	c := startWithCRDs(t, clustertest.Options{})
	// Many pods with logs, so that the collection is still fetching logs when
	// the API server disappears.
	snap := t.TempDir()
	var pods strings.Builder
	pods.WriteString("apiVersion: v1\nkind: List\nitems:\n")
	for i := range 30 {
		name := fmt.Sprintf("big-worker-%d", i)
		fmt.Fprintf(&pods, `- apiVersion: v1
  kind: Pod
  metadata: {name: %s, namespace: default, labels: {training.kubeflow.org/job-name: big}}
  spec: {nodeName: n1, containers: [{name: pytorch, image: x.invalid/y}]}
`, name)
		if err := os.MkdirAll(filepath.Join(snap, "logs", name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(snap, "logs", name, "pytorch.log"), []byte("hello\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	files := map[string]string{
		"pods.yaml": pods.String(),
		"job.yaml":  "apiVersion: kubeflow.org/v1\nkind: PyTorchJob\nmetadata: {name: big, namespace: default}\nspec: {}\n",
	}
	for f, data := range files {
		if err := os.WriteFile(filepath.Join(snap, f), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	load(t, c, snap, false)

	opts := collect.DefaultOptions()
	opts.Concurrency, opts.QPS, opts.Burst = 1, 5, 1
	opts.RequestTimeout = 5 * time.Second
	opts.Progress = &killOnWrite{c: c}
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	start := time.Now()
	res, err := collect.Collect(ctx, c.Config, "test", opts, dir)
	elapsed := time.Since(start)
	if !errors.Is(err, collect.ErrUnreachable) {
		t.Fatalf("err = %v, want ErrUnreachable", err)
	}
	if ctx.Err() != nil {
		t.Fatalf("collection hung until the test's deadline (%s)", elapsed)
	}
	t.Logf("collection ended %s after start: %v", elapsed.Round(time.Millisecond), err)
	if res == nil || res.Pods != 30 {
		t.Fatalf("want a partial result with the 30 pods, got %+v", res)
	}
	meta := readFile(t, filepath.Join(dir, "snapshot.yaml"))
	if !strings.Contains(meta, "collection incomplete") {
		t.Errorf("snapshot.yaml lacks the incompleteness note:\n%s", meta)
	}
	if got := listNames(t, filepath.Join(dir, "pods.yaml")); len(got) != 30 {
		t.Errorf("pods.yaml has %d pods", len(got))
	}
}

// fixturesDir holds the snapshot fixtures shared with the offline engine;
// roundTripDir holds snapshots of kinds no fixture uses, so that the round
// trip covers every kind of the registry.
const (
	fixturesDir  = "../../fixtures"
	roundTripDir = "testdata/roundtrip"
)

// roundTripSnapshots returns the directory of every snapshot the round trip
// loads: the fixtures with an expected.yaml, then the round-trip testdata.
func roundTripSnapshots(t *testing.T) []string {
	t.Helper()
	var dirs []string
	for _, root := range []string{fixturesDir, roundTripDir} {
		entries, err := os.ReadDir(root)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, e := range entries {
			if !e.IsDir() {
				continue
			}
			if _, err := os.Stat(filepath.Join(root, e.Name(), "expected.yaml")); root == fixturesDir && err != nil {
				continue
			}
			names = append(names, e.Name())
		}
		sort.Strings(names)
		for _, n := range names {
			dirs = append(dirs, filepath.Join(root, n))
		}
	}
	return dirs
}

// TestIntegrationSecretsNeverWritten loads objects, an event and a log
// carrying credentials into a real API server, collects them, and reads
// every file written: none of the credentials may be in any of them, while
// the evidence around them stays.
func TestIntegrationSecretsNeverWritten(t *testing.T) {
	t.Parallel()
	const dir = "testdata/snapshots/secrets"
	seeded := []string{
		"Regi5try-Pa55-0001",                       // annotation named *-password
		"Mlfl0w-Pa55-0002",                         // password in a URL in an annotation
		"hf_Se3dedTokenValue0003abcdefghijkl",      // argument after --hf-token
		"Db-Pa55-0004",                             // env DB_PASS
		"0a1b2c3d4e5f60718293a4b5c6d7e8f900000005", // env WANDB_KEY
		"hf-auth-0006",                             // env HF_AUTH
		"Sess10n-C00kie-0007",                      // annotation named *-session-cookie
		"Ev3nt-Pa55-0008",                          // password in a URL in an event message
		"Be4rerT0kenValue0009xyz",                  // bearer token in a log line
		"MIIEpAIBAAKCAQEAPr1vateKeyB0dy0010",       // private key block in a log
	}
	// The seeds are really in the input, or the test proves nothing.
	var input strings.Builder
	_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			input.WriteString(readFile(t, p))
		}
		return nil
	})
	for _, s := range seeded {
		if !strings.Contains(input.String(), s) {
			t.Fatalf("seed %q is not in %s", s, dir)
		}
	}

	c := startWithCRDs(t, clustertest.Options{})
	load(t, c, dir, false)
	opts := collect.DefaultOptions()
	opts.Namespace = "vault-test"
	opts.Timestamps = false
	res, out := collectInto(t, c, opts)
	if len(res.Jobs) != 1 || res.Logs != 1 {
		t.Fatalf("jobs %v, %d logs; notes %q", res.Jobs, res.Logs, res.Notes)
	}
	var written strings.Builder
	files := 0
	err := filepath.WalkDir(out, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data := readFile(t, p)
		written.WriteString(data)
		files++
		for _, s := range seeded {
			if strings.Contains(data, s) {
				rel, _ := filepath.Rel(out, p)
				t.Errorf("%s holds the secret %q", rel, s)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, keep := range []string{"NCCL_DEBUG", "FailedMount", "403 Forbidden", "step 10 loss 1.93", "BEGIN RSA PRIVATE KEY"} {
		if !strings.Contains(written.String(), keep) {
			t.Errorf("the %d files written lost %q", files, keep)
		}
	}
}

// TestIntegrationSlowServer puts a proxy in front of the API server that
// answers log requests slowly: each request is bounded by the client-side
// timeout, the rest of the snapshot is collected, and the report says which
// logs the diagnosis was made without and why.
func TestIntegrationSlowServer(t *testing.T) {
	t.Parallel()
	c := startWithCRDs(t, clustertest.Options{})
	load(t, c, basicSnapshot, true)

	target, err := url.Parse(c.Config.Host)
	if err != nil {
		t.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(target)
	proxy.Transport, err = rest.TransportFor(c.Config)
	if err != nil {
		t.Fatal(err)
	}
	release := make(chan struct{})
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/log") {
			select { // far longer than the client waits
			case <-release:
			case <-r.Context().Done():
			case <-time.After(time.Minute):
			}
		}
		proxy.ServeHTTP(w, r)
	}))
	defer slow.Close()
	defer close(release)

	cfg := &rest.Config{Host: slow.URL}
	opts := collect.DefaultOptions()
	opts.Namespace = "team-a"
	opts.RequestTimeout = 300 * time.Millisecond
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	start := time.Now()
	res, err := collect.Collect(ctx, cfg, "slow", opts, dir)
	if err != nil {
		t.Fatalf("slow log requests must not fail the collection: %v", err)
	}
	if elapsed := time.Since(start); elapsed > 30*time.Second {
		t.Errorf("collection took %s: the per-request timeout did not hold", elapsed)
	}
	if len(res.Jobs) != 1 || res.Pods != 2 {
		t.Fatalf("jobs = %v, pods = %d: the objects must be collected", res.Jobs, res.Pods)
	}
	rep, err := diagnose.Run(ctx, dir, diagnose.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Jobs) != 1 || !rep.Partial() {
		t.Fatalf("jobs = %d, partial = %v", len(rep.Jobs), rep.Partial())
	}
	var logs []string
	for _, m := range rep.Jobs[0].Missing {
		if m.What == "logs" {
			logs = append(logs, m.Object+": "+m.Reason)
		}
	}
	for _, want := range []string{
		"pod team-a/demo-master-0 container pytorch: timed out",
		"pod team-a/demo-worker-0 container pytorch: timed out",
	} {
		if !slices.Contains(logs, want) {
			t.Errorf("missing logs = %q, want %q", logs, want)
		}
	}
}
