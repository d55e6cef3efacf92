package app_test

// Tests against a real kube-apiserver (etcd and kwok, no controllers), as
// the collector's integration tests run it. They skip under -short and
// when the binaries are absent, unless TRAINDOC_REQUIRE_CLUSTER is set.
//
// The control plane runs no garbage collector and no training operator:
// a fake clock stands in for the garbage collector. Whenever the watch
// waits, it removes the pods and the foregroundDeletion finalizer of a job
// being deleted, as the garbage collector would; nothing sleeps.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/traindoc/traindoc/engine/collect"
	"github.com/traindoc/traindoc/engine/watch"
	"github.com/traindoc/traindoc/engine/watch/app"
	"github.com/traindoc/traindoc/engine/watch/kube"
	"github.com/traindoc/traindoc/engine/watch/watchtest"
	"github.com/traindoc/traindoc/internal/clustertest"
)

// watchSA is the ServiceAccount of deploy/watch-rbac.yaml; the test's
// token user carries its name and groups, so the manifests' bindings apply
// to it unchanged.
var watchSA = clustertest.User{
	Name:   "system:serviceaccount:traindoc:traindoc-watch",
	Groups: []string{"system:serviceaccounts", "system:serviceaccounts:traindoc"},
}

var pytorchjobs = schema.GroupVersionResource{Group: "kubeflow.org", Version: "v1", Resource: "pytorchjobs"}

const (
	replays   = "../testdata/replay/"
	resumeArg = "exp_manager.resume_from_checkpoint={{.Checkpoint}}"
	ckpt      = "/results/conformer-xl/checkpoints/conformer-xl--val_wer=0.2140-epoch=2-step=10000.ckpt"
)

func startCluster(t *testing.T, users ...clustertest.User) *clustertest.Cluster {
	t.Helper()
	if testing.Short() {
		t.Skip("needs a control plane")
	}
	c := clustertest.Start(t, clustertest.Options{Users: users})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := clustertest.InstallCRDs(ctx, c.Config, "../../collect/testdata/crds"); err != nil {
		t.Fatalf("install CRDs: %v", err)
	}
	apply(t, c, []byte("apiVersion: v1\nkind: Namespace\nmetadata: {name: traindoc}\n---\napiVersion: v1\nkind: Namespace\nmetadata: {name: ml-research}\n"))
	for _, f := range []string{"../../../deploy/rbac.yaml", "../../../deploy/watch-rbac.yaml"} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		apply(t, c, b)
	}
	return c
}

func apply(t *testing.T, c *clustertest.Cluster, data []byte) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := clustertest.ApplyYAML(ctx, c.Config, data); err != nil {
		t.Fatal(err)
	}
}

// loadFailedJob loads the round in which asr/conformer-xl failed with an
// NCCL timeout; kwok serves its logs.
func loadFailedJob(t *testing.T, c *clustertest.Cluster) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	_, err := clustertest.LoadIntoCluster(ctx, c.Config, replays+"nccl-restart/r3", clustertest.LoadOptions{
		KubeletPort: c.KubeletPort, LogDir: filepath.Join(c.Dir, "cri-logs"),
	})
	if err != nil {
		t.Fatal(err)
	}
}

// kubeconfig writes a kubeconfig for one of the cluster's users.
func kubeconfig(t *testing.T, c *clustertest.Cluster, user string) string {
	t.Helper()
	cfg := c.ConfigFor(user)
	p := filepath.Join(t.TempDir(), "kubeconfig")
	y := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters: [{name: test, cluster: {server: %q, insecure-skip-tls-verify: true}}]
users: [{name: u, user: {token: %q}}]
contexts: [{name: test, context: {cluster: test, user: u, namespace: asr}}]
current-context: test
`, cfg.Host, cfg.BearerToken)
	if err := os.WriteFile(p, []byte(y), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// seedState replays the round before the failure into a state file: the
// watch saw the checkpoint listing then, while the pods still ran.
func seedState(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	abs, err := filepath.Abs(replays + "nccl-restart/r2")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(abs, filepath.Join(dir, "r2")); err != nil {
		t.Fatal(err)
	}
	state := filepath.Join(t.TempDir(), "state.json")
	o := app.Options{Replay: dir, State: state, Output: "text", LogLevel: "error"}
	if err := app.Watch(context.Background(), o, io.Discard, io.Discard); err != nil {
		t.Fatal(err)
	}
	return state
}

// gcClock is a fake clock that does the garbage collector's work whenever
// the watch waits.
func gcClock(t *testing.T, cfg *rest.Config) *watchtest.Clock {
	dyn := dynamic.NewForConfigOrDie(cfg)
	cs := kubernetes.NewForConfigOrDie(cfg)
	clock := watchtest.NewClock(time.Date(2026, 3, 5, 21, 30, 0, 0, time.UTC))
	clock.OnIdle = func() { collectGarbage(t, dyn, cs) }
	return clock
}

func collectGarbage(t *testing.T, dyn dynamic.Interface, cs kubernetes.Interface) {
	ctx := context.Background()
	jobs, err := dyn.Resource(pytorchjobs).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Errorf("gc: %v", err)
		return
	}
	for _, j := range jobs.Items {
		if j.GetDeletionTimestamp() == nil {
			continue
		}
		sel := "training.kubeflow.org/job-name=" + j.GetName()
		if err := cs.CoreV1().Pods(j.GetNamespace()).DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{LabelSelector: sel}); err != nil {
			t.Errorf("gc pods: %v", err)
		}
		patch := []byte(`{"metadata":{"finalizers":null}}`)
		// Another watcher's clock may have collected it first.
		if _, err := dyn.Resource(pytorchjobs).Namespace(j.GetNamespace()).Patch(ctx, j.GetName(), types.MergePatchType, patch, metav1.PatchOptions{}); err != nil && !apierrors.IsNotFound(err) {
			t.Errorf("gc finalizers: %v", err)
		}
	}
}

func watchOptions(kcfg, state string, clock watch.Clock) app.Options {
	copts := collect.DefaultOptions()
	copts.Namespace = "asr"
	copts.Timestamps = false
	return app.Options{
		Kubeconfig: kcfg, Collect: copts, Interval: time.Minute, Rounds: 2, State: state,
		Policy:    watch.Policy{Restart: true, MaxRetries: 3, RetryDelay: time.Hour, RunningGrace: 10 * time.Minute},
		ResumeArg: resumeArg, DeletePropagation: "foreground", RestartTimeout: time.Minute,
		Events: true, Annotate: true, Output: "json", LogLevel: "debug", Clock: clock,
	}
}

func decisions(t *testing.T, out string) []map[string]any {
	t.Helper()
	var ds []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if l == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("not JSON: %q", l)
		}
		if m["type"] == "decision" {
			ds = append(ds, m)
		}
	}
	return ds
}

func getJob(t *testing.T, cfg *rest.Config) *unstructured.Unstructured {
	t.Helper()
	u, err := dynamic.NewForConfigOrDie(cfg).Resource(pytorchjobs).Namespace("asr").Get(context.Background(), "conformer-xl", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// A failed PyTorchJob is recreated from its newest checkpoint, with the
// resume argument, by a watch holding only the RBAC of the manifests; it
// writes an Event and serves metrics.
func TestClusterRestartFromCheckpoint(t *testing.T) {
	t.Parallel()
	c := startCluster(t, watchSA)
	loadFailedJob(t, c)
	before := getJob(t, c.Config)
	state := seedState(t)

	clock := gcClock(t, c.Config)
	o := watchOptions(kubeconfig(t, c, watchSA.Name), state, clock)
	var addr, scraped string
	o.MetricsAddr, o.MetricsListening = "127.0.0.1:0", func(a string) { addr = a }
	gc := clock.OnIdle
	clock.OnIdle = func() {
		gc()
		// Between rounds (and while a restart waits), what Prometheus sees.
		if body := scrape(t, addr); strings.Contains(body, "traindoc_restarts_total") {
			scraped = body
		}
	}
	var out, logs bytes.Buffer
	if err := app.Watch(context.Background(), o, &out, &logs); err != nil {
		t.Fatalf("watch: %v\n%s", err, logs.String())
	}

	ds := decisions(t, out.String())
	if len(ds) != 1 || ds[0]["action"] != "restart" || ds[0]["error"] != nil || ds[0]["category"] != "exec.nccl-timeout" {
		t.Fatalf("decisions = %v\nlog:\n%s", ds, logs.String())
	}
	if ck, _ := ds[0]["checkpoint"].(map[string]any); ck["path"] != ckpt {
		t.Errorf("restarted from %v\n%s", ds[0]["checkpoint"], out.String())
	}

	job := getJob(t, c.Config)
	if job.GetUID() == before.GetUID() {
		t.Fatal("the job was not recreated")
	}
	ann := job.GetAnnotations()
	if ann[watch.AnnotationAttempt] != "1" || ann[watch.AnnotationFailure] != ds[0]["failure"] || ann[watch.AnnotationCheckpoint] != ckpt || ann[watch.AnnotationFromUID] != string(before.GetUID()) {
		t.Errorf("annotations = %v", ann)
	}
	if _, ok := job.Object["status"]; ok {
		t.Error("status kept")
	}
	for _, rt := range []string{"Master", "Worker"} {
		cs, _, _ := unstructured.NestedSlice(job.Object, "spec", "pytorchReplicaSpecs", rt, "template", "spec", "containers")
		args := cs[0].(map[string]any)["args"].([]any)
		if !strings.HasSuffix(args[0].(string), " exp_manager.resume_from_checkpoint="+ckpt) {
			t.Errorf("%s args = %q", rt, args)
		}
	}
	// The second round saw the new instance and annotated it.
	if got := ann[watch.AnnotationDiagnosis]; got == "" || got == "exec.nccl-timeout" {
		t.Errorf("diagnosis annotation on the new instance = %q", got)
	}

	evs, err := kubernetes.NewForConfigOrDie(c.Config).CoreV1().Events("asr").List(context.Background(), metav1.ListOptions{FieldSelector: "reason=" + kube.EventReason})
	if err != nil {
		t.Fatal(err)
	}
	var onFailed *corev1.Event
	for i := range evs.Items {
		if evs.Items[i].InvolvedObject.UID == before.GetUID() {
			onFailed = &evs.Items[i]
		}
	}
	if onFailed == nil || onFailed.Type != corev1.EventTypeWarning || !strings.HasPrefix(onFailed.Message, "exec.nccl-timeout (") ||
		!strings.HasSuffix(onFailed.Message, "traindoc restarts it (attempt 1) from step 10000") || onFailed.Source.Component != "traindoc" {
		t.Errorf("event on the failed instance = %+v (all: %d)", onFailed, len(evs.Items))
	}
	if len(evs.Items) != 2 {
		t.Errorf("%d events, want one per diagnosis (failed instance, new instance)\n%s", len(evs.Items), grep(logs.String(), "time="))
	}
	for _, e := range evs.Items {
		if e.InvolvedObject.UID == job.GetUID() && !strings.Contains(e.Message, "created by traindoc's restart 1 after exec.nccl-timeout, resuming from "+ckpt) {
			t.Errorf("event on the new instance: %q", e.Message)
		}
	}

	for _, want := range []string{
		`traindoc_restarts_total{reason="exec.nccl-timeout"} 1`,
		`traindoc_jobs{category="exec.nccl-timeout",health="unhealthy"} 1`,
		`traindoc_findings{category="exec.nccl-timeout"} 1`,
		`traindoc_round_duration_seconds_count 1`,
	} {
		if !strings.Contains(scraped, want+"\n") {
			t.Errorf("metrics lack %s:\n%s", want, grep(scraped, "traindoc_"))
		}
	}
}

// A watch killed in the middle of a restart (the failed instance deleted,
// the new one not yet created) leaves the restart in its state file; the
// next run finishes it, once, and never starts another for that failure.
func TestClusterKilledWatchResumes(t *testing.T) {
	t.Parallel()
	c := startCluster(t, watchSA)
	loadFailedJob(t, c)
	before := getJob(t, c.Config)
	state := seedState(t)
	kcfg := kubeconfig(t, c, watchSA.Name)

	ctx, kill := context.WithCancel(context.Background())
	clock := gcClock(t, c.Config)
	gc := clock.OnIdle
	clock.OnIdle = func() {
		// The first wait is the restart's, right after the delete: the
		// deletion completes and the process dies.
		gc()
		kill()
	}
	var out1, logs1 bytes.Buffer
	if err := app.Watch(ctx, watchOptions(kcfg, state, clock), &out1, &logs1); err != nil {
		t.Fatalf("first watch: %v", err)
	}
	if _, err := dynamic.NewForConfigOrDie(c.Config).Resource(pytorchjobs).Namespace("asr").Get(context.Background(), "conformer-xl", metav1.GetOptions{}); err == nil {
		t.Fatal("the kill came too late: the job exists")
	}
	st, err := (watch.FileStore{Path: state}).Load(context.Background())
	if err != nil || st.Jobs["asr/conformer-xl"].Pending == nil {
		t.Fatalf("no pending restart in the state: %v", err)
	}

	var out2, logs2 bytes.Buffer
	if err := app.Watch(context.Background(), watchOptions(kcfg, state, gcClock(t, c.Config)), &out2, &logs2); err != nil {
		t.Fatalf("second watch: %v\n%s", err, logs2.String())
	}
	ds := decisions(t, out2.String())
	if len(ds) != 1 || ds[0]["action"] != "restart" || ds[0]["error"] != nil || ds[0]["attempt"] != float64(1) ||
		!strings.Contains(ds[0]["reason"].(string), "finishing restart 1") {
		t.Fatalf("second run decisions = %v\n%s", ds, logs2.String())
	}
	job := getJob(t, c.Config)
	if job.GetUID() == before.GetUID() || job.GetAnnotations()[watch.AnnotationAttempt] != "1" {
		t.Errorf("job uid %s (was %s), attempt %q", job.GetUID(), before.GetUID(), job.GetAnnotations()[watch.AnnotationAttempt])
	}

	// A third run has nothing to do.
	var out3, logs3 bytes.Buffer
	if err := app.Watch(context.Background(), watchOptions(kcfg, state, gcClock(t, c.Config)), &out3, &logs3); err != nil {
		t.Fatal(err)
	}
	if ds := decisions(t, out3.String()); len(ds) != 0 {
		t.Errorf("third run decisions = %v", ds)
	}
	if after := getJob(t, c.Config); after.GetUID() != job.GetUID() {
		t.Error("the job was recreated again")
	}
	st, _ = (watch.FileStore{Path: state}).Load(context.Background())
	if js := st.Jobs["asr/conformer-xl"]; js.Pending != nil || js.Attempts != 1 {
		t.Errorf("state: pending %v, attempts %d", js.Pending, js.Attempts)
	}
}

// Two replicas with leader election and the state in a ConfigMap: one
// leads and restarts the job, the other takes over when the first is done
// and finds nothing left to do.
func TestClusterLeaderElectionRestartsOnce(t *testing.T) {
	t.Parallel()
	c := startCluster(t, watchSA)
	loadFailedJob(t, c)
	before := getJob(t, c.Config)
	kcfg := kubeconfig(t, c, watchSA.Name)

	type result struct {
		out, logs bytes.Buffer
		err       error
	}
	results := make([]*result, 2)
	var wg sync.WaitGroup
	for i, id := range []string{"watch-a", "watch-b"} {
		results[i] = &result{}
		o := watchOptions(kcfg, "configmap:traindoc/traindoc-watch-state", gcClock(t, c.Config))
		o.LeaderElect, o.LeaseNamespace, o.Identity, o.LeaseDuration = true, "traindoc", id, 3*time.Second
		wg.Add(1)
		go func(r *result) {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			r.err = app.Watch(ctx, o, &r.out, &r.logs)
		}(results[i])
	}
	wg.Wait()
	restarts := 0
	for i, r := range results {
		if r.err != nil {
			t.Fatalf("watcher %d: %v\n%s", i, r.err, r.logs.String())
		}
		if !strings.Contains(r.logs.String(), `msg=leading`) {
			t.Errorf("watcher %d never led:\n%s", i, r.logs.String())
		}
		for _, d := range decisions(t, r.out.String()) {
			if d["action"] == "restart" {
				restarts++
			}
		}
	}
	if restarts != 1 {
		t.Errorf("%d restarts, want 1", restarts)
	}
	job := getJob(t, c.Config)
	if job.GetUID() == before.GetUID() || job.GetAnnotations()[watch.AnnotationAttempt] != "1" {
		t.Errorf("job: uid changed %v, attempt %q", job.GetUID() != before.GetUID(), job.GetAnnotations()[watch.AnnotationAttempt])
	}
	st, err := (kube.ConfigMapStore{Client: kubernetes.NewForConfigOrDie(c.Config), Namespace: "traindoc", Name: "traindoc-watch-state"}).Load(context.Background())
	if err != nil || st.Jobs["asr/conformer-xl"] == nil || st.Jobs["asr/conformer-xl"].Attempts != 1 {
		t.Errorf("state in the ConfigMap: %v %+v", err, st)
	}
}

func scrape(t *testing.T, addr string) string {
	if addr == "" {
		return ""
	}
	resp, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		t.Errorf("scrape: %v", err)
		return ""
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

func grep(s, prefix string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.HasPrefix(l, prefix) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}
