package watch_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/traindoc/traindoc/engine/diagnose"
	"github.com/traindoc/traindoc/engine/report"
	"github.com/traindoc/traindoc/engine/watch"
	"github.com/traindoc/traindoc/engine/watch/restart"
)

var (
	diagOnce sync.Once
	diag     *diagnose.Diagnoser
	diagErr  error
)

// diagnoser compiles the built-in policies once for the package's tests.
func diagnoser(t *testing.T) *diagnose.Diagnoser {
	t.Helper()
	diagOnce.Do(func() { diag, diagErr = diagnose.New(context.Background(), diagnose.Options{Version: "test"}) })
	if diagErr != nil {
		t.Fatal(diagErr)
	}
	return diag
}

// line is one JSON line of output, decoded.
type line map[string]any

func (l line) str(k string) string { s, _ := l[k].(string); return s }

func (l line) num(k string) float64 { f, _ := l[k].(float64); return f }

// step returns the line's step, -1 for null.
func (l line) step() int64 {
	if f, ok := l["step"].(float64); ok {
		return int64(f)
	}
	return -1
}

func (l line) obj(k string) line { m, _ := l[k].(map[string]any); return m }

type run struct {
	lines    []line
	reports  []*report.Report
	recorder *restart.Recorder
	watcher  *watch.Watcher
}

func (r *run) of(typ string) []line {
	var out []line
	for _, l := range r.lines {
		if l.str("type") == typ {
			out = append(out, l)
		}
	}
	return out
}

// rounds is a source over chosen snapshot folders.
type rounds struct{ dirs []string }

func (s *rounds) Next(context.Context) (*watch.Round, error) {
	if len(s.dirs) == 0 {
		return nil, io.EOF
	}
	d := s.dirs[0]
	s.dirs = s.dirs[1:]
	return &watch.Round{Dir: d, Name: filepath.Base(d)}, nil
}

func replayDirs(scenario string, names ...string) []string {
	var out []string
	for _, n := range names {
		out = append(out, filepath.Join("testdata", "replay", scenario, n))
	}
	return out
}

const resumeArg = "exp_manager.resume_from_checkpoint={{.Checkpoint}}"

type opts struct {
	policy    watch.Policy
	store     watch.Store
	restarter watch.Restarter
	source    watch.Source
	notifier  watch.Notifier
}

func replay(t *testing.T, scenario string, o opts) *run {
	t.Helper()
	src := o.source
	if src == nil {
		var err error
		if src, err = watch.NewReplay(filepath.Join("testdata", "replay", scenario)); err != nil {
			t.Fatal(err)
		}
	}
	words, err := restart.ParseWords(resumeArg)
	if err != nil {
		t.Fatal(err)
	}
	r := &run{recorder: &restart.Recorder{Resume: restart.Resume{Args: words}}}
	rs := o.restarter
	if rs == nil {
		rs = r.recorder
	}
	var buf bytes.Buffer
	w, err := watch.New(watch.Config{
		Diagnoser: diagnoser(t), Source: src, Store: o.store, Policy: o.policy, Restarter: rs, Notifier: o.notifier,
		Output: watch.NewOutput(&buf, nil), StrictRounds: true,
		After: func(_ context.Context, rep *report.Report) error { r.reports = append(r.reports, rep); return nil },
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	r.watcher = w
	for _, s := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		if s == "" {
			continue
		}
		var l line
		if err := json.Unmarshal([]byte(s), &l); err != nil {
			t.Fatalf("not a JSON line: %q: %v", s, err)
		}
		r.lines = append(r.lines, l)
	}
	return r
}

func restartPolicy() watch.Policy {
	return watch.Policy{Restart: true, MaxRetries: 3, RetryDelay: 30 * time.Minute, RunningGrace: 10 * time.Minute}
}

func wantField(t *testing.T, what string, got, want any) {
	t.Helper()
	if got != want {
		t.Errorf("%s = %v, want %v", what, got, want)
	}
}

func TestReplayStall(t *testing.T) {
	r := replay(t, "stall", opts{})
	obs := r.of("observation")
	if len(obs) != 4 {
		t.Fatalf("%d observations, want one per round", len(obs))
	}
	wantPrimary := []string{"healthy", "healthy", "healthy", "progress.stalled"}
	wantStep := []int64{1900, 2200, 2200, 2200}
	wantTime := []string{"2026-03-05T20:35:00Z", "2026-03-05T20:52:00Z", "2026-03-05T21:05:00Z", "2026-03-05T21:25:00Z"}
	for i, o := range obs {
		wantField(t, "job", o.str("job"), "asr/conformer-xl")
		wantField(t, "time", o.str("time"), wantTime[i])
		wantField(t, "primary", o.str("primary"), wantPrimary[i])
		wantField(t, "step", o.step(), wantStep[i])
		wantField(t, "phase", o.str("phase"), "Running")
		wantField(t, "transport", o.str("transport"), "IB")
		wantField(t, "throughput", o.num("throughput"), 1.09)
	}
	// The stall is dated from the round where step 2200 was first seen.
	st := findings(r.reports[3], "progress.stalled")
	if len(st) != 1 || st[0].FirstSeen != "2026-03-05T20:52:00Z" || st[0].Params["minutes"] != float64(33) {
		t.Errorf("stall finding = %+v", st)
	}
	ds := r.of("decision")
	if len(ds) != 1 {
		t.Fatalf("decisions = %v", ds)
	}
	d := ds[0]
	wantField(t, "action", d.str("action"), "none")
	wantField(t, "category", d.str("category"), "progress.stalled")
	wantField(t, "retryable", d["retryable"], true)
	if !strings.Contains(d.str("reason"), "restarts are off") {
		t.Errorf("reason = %q", d.str("reason"))
	}
}

// The stall exists only across rounds: the last snapshot alone, with no
// timestamps in its logs, looks healthy.
func TestStallNeedsHistory(t *testing.T) {
	r := replay(t, "stall", opts{source: &rounds{replayDirs("stall", "r4")}})
	if p := r.of("observation")[0].str("primary"); p != "healthy" {
		t.Errorf("one round alone: primary %s", p)
	}
}

// A watcher stopped after two rounds and started again with its state
// file sees the stall in the fourth.
func TestStallSurvivesRestartOfWatcher(t *testing.T) {
	store := watch.FileStore{Path: filepath.Join(t.TempDir(), "state.json")}
	replay(t, "stall", opts{store: store, source: &rounds{replayDirs("stall", "r1", "r2")}})
	r := replay(t, "stall", opts{store: store, source: &rounds{replayDirs("stall", "r3", "r4")}})
	obs := r.of("observation")
	if obs[1].str("primary") != "progress.stalled" {
		t.Errorf("after a restart of the watcher: %v", obs)
	}
	st, err := store.Load(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if h := st.Jobs["asr/conformer-xl"].History; len(h) != 4 {
		t.Errorf("history kept %d observations, want 4", len(h))
	}
}

func TestReplayGPUIdle(t *testing.T) {
	r := replay(t, "gpu-idle", opts{})
	obs := r.of("observation")
	if len(obs) != 3 {
		t.Fatalf("%d observations", len(obs))
	}
	gpus := func(l line) []float64 {
		var out []float64
		for _, v := range l["gpuUtil"].([]any) {
			out = append(out, v.(float64))
		}
		return out
	}
	if g := gpus(obs[0]); len(g) != 16 || slices.Min(g) < 90 {
		t.Errorf("round 1 GPUs = %v, want 16 busy", g)
	}
	for _, o := range obs[1:] {
		if g := gpus(o); len(g) != 16 || slices.Max(g) != 0 {
			t.Errorf("%s GPUs = %v, want 16 idle", o.str("time"), g)
		}
		wantField(t, "primary", o.str("primary"), "progress.gpu-idle")
	}
	wantField(t, "round 1", obs[0].str("primary"), "healthy")
	// Its logs have no timestamps: the third round knows they have not
	// moved since the first only from the earlier rounds.
	if st := findings(r.reports[1], "progress.stalled"); len(st) != 0 {
		t.Errorf("round 2 stalled already: %+v", st)
	}
	if st := findings(r.reports[2], "progress.stalled"); len(st) != 1 || st[0].FirstSeen != "2026-05-05T08:30:00Z" {
		t.Errorf("round 3 stall = %+v", st)
	}
	// An idle GPU is the user's to fix: noted once, never restarted.
	ds := r.of("decision")
	if len(ds) != 1 || ds[0].str("action") != "none" || ds[0]["retryable"] != false {
		t.Errorf("decisions = %v", ds)
	}
}

func TestReplayNCCLTimeoutRestart(t *testing.T) {
	r := replay(t, "nccl-restart", opts{policy: restartPolicy()})
	obs := r.of("observation")
	if len(obs) != 5 {
		t.Fatalf("%d observations", len(obs))
	}
	ckStep := func(l line) float64 { return l.obj("checkpoint").num("step") }
	// Step 10000 is being written in round 1 (NeMo's -unfinished marker):
	// the newest complete checkpoint is 8000, then 10000.
	wantField(t, "round 1 checkpoint", ckStep(obs[0]), float64(8000))
	wantField(t, "round 2 checkpoint", ckStep(obs[1]), float64(10000))
	wantField(t, "round 2 age", obs[1].obj("checkpoint").num("ageSeconds"), float64(994))
	wantField(t, "round 3", obs[2].str("primary"), "exec.nccl-timeout")
	wantField(t, "round 3 phase", obs[2].str("phase"), "Failed")
	if obs[3].str("uid") == obs[2].str("uid") || obs[3].str("primary") != "healthy" {
		t.Errorf("round 4 is not the new, healthy instance: %v", obs[3])
	}
	wantField(t, "round 5", obs[4].str("phase"), "Succeeded")

	ds := r.of("decision")
	if len(ds) != 2 {
		t.Fatalf("decisions = %v", ds)
	}
	const ck = "/results/conformer-xl/checkpoints/conformer-xl--val_wer=0.2140-epoch=2-step=10000.ckpt"
	d := ds[0]
	wantField(t, "action", d.str("action"), "restart")
	wantField(t, "time", d.str("time"), "2026-03-05T21:30:00Z")
	wantField(t, "category", d.str("category"), "exec.nccl-timeout")
	wantField(t, "retryable", d["retryable"], true)
	wantField(t, "attempt", d.num("attempt"), float64(1))
	wantField(t, "checkpoint", d.obj("checkpoint").str("path"), ck)
	wantField(t, "failure", d.str("failure"), obs[2].str("uid")+"@2026-03-05T21:27:10Z")

	s := ds[1].obj("summary")
	wantField(t, "final action", ds[1].str("action"), "none")
	wantField(t, "success", s["success"], true)
	wantField(t, "retries", s.num("retries"), float64(1))
	wantField(t, "finalStep", s.num("finalStep"), float64(12000))

	recs := r.recorder.Restarts()
	if len(recs) != 1 {
		t.Fatalf("%d restarts recorded", len(recs))
	}
	m := recs[0].Manifest
	if m.GetUID() != "" || m.GetResourceVersion() != "" || m.Object["status"] != nil {
		t.Error("the manifest keeps server fields")
	}
	if m.GetAnnotations()[watch.AnnotationAttempt] != "1" || m.GetAnnotations()[watch.AnnotationCheckpoint] != ck {
		t.Errorf("annotations = %v", m.GetAnnotations())
	}
	for _, rt := range []string{"Master", "Worker"} {
		cs := m.Object["spec"].(map[string]any)["pytorchReplicaSpecs"].(map[string]any)[rt].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)["containers"].([]any)
		args := cs[0].(map[string]any)["args"].([]any)
		// command is bash -c: the argument joins the script.
		if len(args) != 1 || !strings.HasSuffix(args[0].(string), "--config-name=conformer_transducer_xl exp_manager.resume_from_checkpoint="+ck) {
			t.Errorf("%s args = %q", rt, args)
		}
	}
	// What the replay's later rounds hold is what the restart builds.
	if got, want := m.GetAnnotations()[watch.AnnotationFailure], d.str("failure"); got != want {
		t.Errorf("failure annotation %q, decision %q", got, want)
	}
}

func TestReplayDryRun(t *testing.T) {
	p := restartPolicy()
	p.DryRun = true
	r := replay(t, "nccl-restart", opts{policy: p, source: &rounds{replayDirs("nccl-restart", "r1", "r2", "r3")}})
	ds := r.of("decision")
	if len(ds) != 1 || ds[0].str("action") != "restart" || ds[0]["dryRun"] != true {
		t.Errorf("decisions = %v", ds)
	}
	if n := len(r.recorder.Restarts()); n != 0 {
		t.Errorf("a dry run restarted %d job(s)", n)
	}
}

func TestReplayMissingModule(t *testing.T) {
	r := replay(t, "missing-module", opts{policy: restartPolicy()})
	obs := r.of("observation")
	wantField(t, "round 1 phase", obs[0].str("phase"), "Running")
	wantField(t, "round 2 phase", obs[1].str("phase"), "Failed")
	for _, o := range obs {
		wantField(t, "primary", o.str("primary"), "exec.missing-module")
	}
	ds := r.of("decision")
	if len(ds) != 1 {
		t.Fatalf("decisions = %v (one failure, one decision)", ds)
	}
	wantField(t, "action", ds[0].str("action"), "none")
	wantField(t, "retryable", ds[0]["retryable"], false)
	wantField(t, "category", ds[0].str("category"), "exec.missing-module")
	if !strings.Contains(ds[0].str("reason"), "not retryable") {
		t.Errorf("reason = %q", ds[0].str("reason"))
	}
	if n := len(r.recorder.Restarts()); n != 0 {
		t.Errorf("%d restarts of a missing module", n)
	}
}

func TestReplayGiveUp(t *testing.T) {
	r := replay(t, "give-up", opts{policy: restartPolicy()})
	type dec struct {
		time, action string
		attempt      float64
	}
	var got []dec
	for _, d := range r.of("decision") {
		got = append(got, dec{d.str("time"), d.str("action"), d.num("attempt")})
	}
	// Restart 2 waits 30 minutes after restart 1, restart 3 an hour
	// after restart 2; the fourth failure meets the limit.
	want := []dec{
		{"2026-03-05T21:30:00Z", "restart", 1},
		{"2026-03-05T22:45:00Z", "restart", 2},
		{"2026-03-05T23:25:00Z", "wait", 2},
		{"2026-03-05T23:50:00Z", "restart", 3},
		{"2026-03-06T00:45:00Z", "give-up", 3},
	}
	if !slices.Equal(got, want) {
		t.Errorf("decisions:\ngot  %v\nwant %v", got, want)
	}
	ds := r.of("decision")
	wantField(t, "wait until", ds[2].str("notBefore"), "2026-03-05T23:45:00Z")
	s := ds[4].obj("summary")
	if s == nil || s["success"] != false || s.num("retries") != 3 || !strings.Contains(s.str("reason"), "exec.nccl-timeout") {
		t.Errorf("give-up summary = %v", s)
	}
	if n := len(r.recorder.Restarts()); n != 3 {
		t.Errorf("%d restarts, want 3", n)
	}
	// Each restart answers a different instance's failure.
	seen := map[string]bool{}
	for _, rec := range r.recorder.Restarts() {
		if seen[rec.Request.Failure] {
			t.Errorf("failure %s restarted twice", rec.Request.Failure)
		}
		seen[rec.Request.Failure] = true
	}
}

// A failure acted on is never acted on again, even by a watcher that was
// restarted and sees the same failed instance.
func TestFailureActedOnOnce(t *testing.T) {
	store := watch.FileStore{Path: filepath.Join(t.TempDir(), "state.json")}
	first := replay(t, "give-up", opts{policy: restartPolicy(), store: store, source: &rounds{replayDirs("give-up", "r1", "r2")}})
	if n := len(first.recorder.Restarts()); n != 1 {
		t.Fatalf("first watcher: %d restarts", n)
	}
	again := replay(t, "give-up", opts{policy: restartPolicy(), store: store, source: &rounds{replayDirs("give-up", "r2", "r2")}})
	if n := len(again.recorder.Restarts()); n != 0 || len(again.of("decision")) != 0 {
		t.Errorf("the same failure acted on again: %d restarts, decisions %v", n, again.of("decision"))
	}
}

// flaky fails its first restart as a watcher killed in the middle would.
type flaky struct {
	calls int
	rec   *restart.Recorder
}

func (f *flaky) Restart(ctx context.Context, req watch.RestartRequest) error {
	f.calls++
	if f.calls == 1 {
		return errors.New("connection reset by peer")
	}
	return f.rec.Restart(ctx, req)
}

// A restart that did not finish is finished by the next run, once, with
// the same attempt number.
func TestPendingRestartIsFinished(t *testing.T) {
	store := watch.FileStore{Path: filepath.Join(t.TempDir(), "state.json")}
	words, _ := restart.ParseWords(resumeArg)
	f := &flaky{rec: &restart.Recorder{Resume: restart.Resume{Args: words}}}
	first := replay(t, "nccl-restart", opts{policy: restartPolicy(), store: store, restarter: f, source: &rounds{replayDirs("nccl-restart", "r1", "r2", "r3")}})
	d := first.of("decision")
	if len(d) != 1 || d[0].str("error") == "" {
		t.Fatalf("first run decisions = %v", d)
	}
	st, _ := store.Load(context.Background())
	if st.Jobs["asr/conformer-xl"].Pending == nil {
		t.Fatal("no pending restart in the state")
	}
	second := replay(t, "nccl-restart", opts{policy: restartPolicy(), store: store, restarter: f, source: &rounds{replayDirs("nccl-restart", "r3", "r4")}})
	recs := f.rec.Restarts()
	if len(recs) != 1 || recs[0].Request.Attempt != 1 {
		t.Fatalf("restarts after resuming = %+v", recs)
	}
	d = second.of("decision")
	if len(d) != 1 || d[0].str("action") != "restart" || d[0].str("error") != "" || !strings.Contains(d[0].str("reason"), "finishing restart 1") {
		t.Errorf("second run decisions = %v", d)
	}
	st, _ = store.Load(context.Background())
	if js := st.Jobs["asr/conformer-xl"]; js.Pending != nil || js.Attempts != 1 {
		t.Errorf("state after = pending %v, attempts %d", js.Pending, js.Attempts)
	}
}

func findings(rep *report.Report, category string) []report.Finding {
	var out []report.Finding
	for _, j := range rep.Jobs {
		for _, f := range j.Findings {
			if f.Category == category {
				out = append(out, f)
			}
		}
	}
	return out
}

// The watcher reads NCCL's transport from the signature ids the rules
// declare; renaming one in the rules must fail here, not silently.
func TestTransportSignaturesDeclared(t *testing.T) {
	declared := map[string]bool{}
	for _, s := range diagnoser(t).Engine().Signatures {
		if id, ok := s["id"].(string); ok {
			declared[id] = true
		}
	}
	for _, id := range watch.TransportSignatures() {
		if !declared[id] {
			t.Errorf("the rules declare no signature %q", id)
		}
	}
}

type notices struct{ got []watch.Notice }

func (n *notices) Notify(_ context.Context, no watch.Notice) error {
	n.got = append(n.got, no)
	return nil
}

// An Event goes out when a job's diagnosis changes, not every round, and
// not for a healthy job seen for the first time; the instance a restart
// created says so.
func TestNotices(t *testing.T) {
	n := &notices{}
	replay(t, "nccl-restart", opts{policy: restartPolicy(), notifier: n})
	var events, annotations []string
	for _, no := range n.got {
		if no.Event {
			events = append(events, no.Category+": "+no.Message)
		}
		if no.Annotate {
			annotations = append(annotations, no.Category)
		}
	}
	if len(events) != 2 {
		t.Fatalf("events = %q", events)
	}
	if !strings.HasPrefix(events[0], "exec.nccl-timeout: exec.nccl-timeout (") || !strings.HasSuffix(events[0], "; traindoc restarts it (attempt 1) from step 10000") {
		t.Errorf("event on the failure = %q", events[0])
	}
	const ck = "/results/conformer-xl/checkpoints/conformer-xl--val_wer=0.2140-epoch=2-step=10000.ckpt"
	if events[1] != "healthy: healthy; created by traindoc's restart 1 after exec.nccl-timeout, resuming from "+ck {
		t.Errorf("event on the new instance = %q", events[1])
	}
	if got := strings.Join(annotations, ","); got != "healthy,exec.nccl-timeout,healthy" {
		t.Errorf("annotations = %s", got)
	}
}

// A job a restarter cannot restart (a RayCluster, whose training was
// started inside its head pod) gets a decision that says so, and no
// attempt is counted.
func TestNotRestartable(t *testing.T) {
	st := &notRestartable{}
	r := replay(t, "nccl-restart", opts{policy: restartPolicy(), restarter: st, source: &rounds{replayDirs("nccl-restart", "r2", "r3", "r3")}})
	ds := r.of("decision")
	if len(ds) != 1 || ds[0].str("action") != "none" || ds[0].num("attempt") != 0 || !strings.Contains(ds[0].str("error"), "not restartable") {
		t.Errorf("decisions = %v", ds)
	}
	if st.calls != 1 {
		t.Errorf("restarter called %d times", st.calls)
	}
}

type notRestartable struct{ calls int }

func (n *notRestartable) Restart(context.Context, watch.RestartRequest) error {
	n.calls++
	return fmt.Errorf("recreating a RayCluster does not resume training: %w", watch.ErrNotRestartable)
}

// BenchmarkRound measures one round over a saved snapshot: reading it,
// the evidence with history added, the rules, the observation and the
// decision (policies compiled once, as in a watch).
func BenchmarkRound(b *testing.B) {
	d, err := diagnose.New(context.Background(), diagnose.Options{})
	if err != nil {
		b.Fatal(err)
	}
	w, err := watch.New(watch.Config{Diagnoser: d, Source: &rounds{}, Policy: restartPolicy(), Restarter: &restart.Recorder{}})
	if err != nil {
		b.Fatal(err)
	}
	dir := filepath.Join("testdata", "replay", "nccl-restart", "r2")
	for b.Loop() {
		if err := w.RunRound(context.Background(), &watch.Round{Dir: dir, Name: "r2"}); err != nil {
			b.Fatal(err)
		}
	}
}
