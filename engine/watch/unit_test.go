package watch

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/traindoc/traindoc/engine/evidence"
	"github.com/traindoc/traindoc/engine/report"
)

func TestBackoff(t *testing.T) {
	p := Policy{RetryDelay: time.Minute}
	want := []time.Duration{0, 0, time.Minute, 2 * time.Minute, 4 * time.Minute, 8 * time.Minute}
	for n, w := range want {
		if got := p.Backoff(n); got != w {
			t.Errorf("Backoff(%d) = %s, want %s", n, got, w)
		}
	}
	if got := (Policy{RetryDelay: time.Hour}).Backoff(60); got > 96*time.Hour {
		t.Errorf("backoff grows without bound: %s", got)
	}
}

func i64(v int64) *int64 { return &v }

func TestEnrich(t *testing.T) {
	t0 := time.Date(2026, 3, 5, 20, 0, 0, 0, time.UTC)
	js := &JobState{History: []Observation{
		{Time: "2026-03-05T19:45:00Z", UID: "u1", Step: i64(100), StepSince: "2026-03-05T19:45:00Z", LogDigest: "d1", LogSince: "2026-03-05T19:45:00Z",
			ThroughputUnit: "samples/s", Baseline: 200, Samples: 12},
	}}
	tests := []struct {
		name                      string
		uid                       string
		progress                  evidence.Progress
		digest                    string
		wantStepTime, wantLogTime string
		wantBaseline              float64
		wantSamples               int
	}{
		{"unchanged step and logs", "u1", evidence.Progress{LastStep: i64(100)}, "d1", "2026-03-05T19:45:00Z", "2026-03-05T19:45:00Z", 0, 0},
		{"step moved", "u1", evidence.Progress{LastStep: i64(150)}, "d2", "2026-03-05T20:00:00Z", "2026-03-05T20:00:00Z", 0, 0},
		{"timestamps win", "u1", evidence.Progress{LastStep: i64(100), LastStepTime: "2026-03-05T19:59:00Z", LastLogTime: "2026-03-05T19:59:30Z"}, "d1", "2026-03-05T19:59:00Z", "2026-03-05T19:59:30Z", 0, 0},
		{"another instance", "u2", evidence.Progress{LastStep: i64(100)}, "d1", "", "", 0, 0},
		{"lost baseline", "u1", evidence.Progress{Throughput: &evidence.Throughput{Unit: "samples/s", Baseline: 80, Recent: 80, Samples: 3}}, "", "", "", 200, 15},
		{"baseline of another unit", "u1", evidence.Progress{Throughput: &evidence.Throughput{Unit: "tokens/s", Baseline: 80, Recent: 80, Samples: 3}}, "", "", "", 80, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			job := &evidence.Job{Ref: evidence.Ref{UID: tt.uid}, Progress: tt.progress}
			Enrich(job, &Facts{LogDigest: tt.digest}, js, t0)
			p := job.Progress
			if p.LastStepTime != tt.wantStepTime || p.LastLogTime != tt.wantLogTime {
				t.Errorf("lastStepTime %q lastLogTime %q, want %q %q", p.LastStepTime, p.LastLogTime, tt.wantStepTime, tt.wantLogTime)
			}
			if tt.wantBaseline != 0 && (p.Throughput.Baseline != tt.wantBaseline || p.Throughput.Samples != tt.wantSamples) {
				t.Errorf("throughput = %+v", *p.Throughput)
			}
		})
	}
}

func TestDecide(t *testing.T) {
	now := time.Date(2026, 3, 5, 21, 30, 0, 0, time.UTC)
	failed := func(cat string, retryable bool) *report.Job {
		return &report.Job{Namespace: "ml", Name: "gpt", UID: "u1", Phase: "Failed", Retryable: retryable,
			Primary: &report.Finding{ID: "x-1", Category: cat, Owner: "user", FirstSeen: "2026-03-05T21:27:10Z"}}
	}
	annotated := map[string]any{"metadata": map[string]any{"annotations": map[string]any{AnnotationAttempt: "3"}}}
	tests := []struct {
		name   string
		job    *report.Job
		policy Policy
		js     *JobState
		obj    map[string]any
		want   string // action, "" for no decision
		reason string
	}{
		{"not retryable", failed("exec.cuda-oom", false), Policy{Restart: true, MaxRetries: 3}, &JobState{}, nil, ActionNone, "not retryable"},
		{"restart off", failed("node.failure", true), Policy{MaxRetries: 3}, &JobState{}, nil, ActionNone, "restarts are off"},
		{"restart", failed("node.failure", true), Policy{Restart: true, MaxRetries: 3}, &JobState{}, nil, ActionRestart, "restart 1 of 3"},
		{"limit", failed("node.failure", true), Policy{Restart: true, MaxRetries: 3}, &JobState{Attempts: 3}, nil, ActionGiveUp, "--max-retries 3"},
		// The state was lost; the recreated object remembers the attempt.
		{"limit from annotation", failed("node.failure", true), Policy{Restart: true, MaxRetries: 3}, &JobState{}, annotated, ActionGiveUp, "after 3 restart(s)"},
		{"backoff", failed("node.failure", true), Policy{Restart: true, MaxRetries: 5, RetryDelay: time.Hour}, &JobState{Attempts: 1, LastRestart: "2026-03-05T21:00:00Z"}, nil, ActionWait, "until 2026-03-05T22:00:00Z"},
		{"backoff over", failed("node.failure", true), Policy{Restart: true, MaxRetries: 5, RetryDelay: 10 * time.Minute}, &JobState{Attempts: 1, LastRestart: "2026-03-05T21:00:00Z"}, nil, ActionRestart, "restart 2 of 5"},
		{"already decided", failed("node.failure", true), Policy{Restart: true, MaxRetries: 3},
			&JobState{Failures: map[string]*Failure{"u1@2026-03-05T21:27:10Z": {Action: ActionRestart}}}, nil, "", ""},
		{"pending job", &report.Job{Namespace: "ml", Name: "gpt", UID: "u1", Phase: "Pending", Retryable: true, Primary: &report.Finding{Category: "sched.insufficient-gpu"}},
			Policy{Restart: true, MaxRetries: 3}, &JobState{}, nil, "", ""},
		{"healthy", &report.Job{Namespace: "ml", Name: "gpt", UID: "u1", Phase: "Running", Healthy: true, Primary: &report.Finding{Category: "healthy"}},
			Policy{Restart: true, MaxRetries: 3}, &JobState{}, nil, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.js.Failures == nil {
				tt.js.Failures = map[string]*Failure{}
			}
			d := tt.policy.decide(tt.job, tt.js, &Facts{Object: tt.obj}, nil, nil, now)
			switch {
			case tt.want == "" && d != nil:
				t.Errorf("decision %+v, want none", d)
			case tt.want != "" && d == nil:
				t.Errorf("no decision, want %s", tt.want)
			case d != nil && (d.Action != tt.want || !strings.Contains(d.Reason, tt.reason)):
				t.Errorf("decision %s %q, want %s %q", d.Action, d.Reason, tt.want, tt.reason)
			}
		})
	}
}

// A running job's retryable fault waits out the grace period before a
// restart, and the wait is announced once.
func TestDecideRunningGrace(t *testing.T) {
	p := Policy{Restart: true, MaxRetries: 3, RunningGrace: 10 * time.Minute}
	js := &JobState{Failures: map[string]*Failure{}}
	j := &report.Job{Namespace: "ml", Name: "gpt", UID: "u1", Phase: "Running", Retryable: true,
		Primary: &report.Finding{ID: "s", Category: "progress.stalled", FirstSeen: "2026-03-05T20:52:00Z"}}
	t0 := time.Date(2026, 3, 5, 21, 25, 0, 0, time.UTC)
	steps := []struct {
		at   time.Duration
		want string
	}{{0, ActionWait}, {5 * time.Minute, ""}, {10 * time.Minute, ActionRestart}, {15 * time.Minute, ""}}
	for _, s := range steps {
		d := p.decide(j, js, &Facts{}, nil, nil, t0.Add(s.at))
		got := ""
		if d != nil {
			got = d.Action
		}
		if got != s.want {
			t.Errorf("+%s: %q, want %q", s.at, got, s.want)
		}
	}
}

func TestFileStore(t *testing.T) {
	dir := t.TempDir()
	fs := FileStore{Path: filepath.Join(dir, "sub", "state.json")}
	ctx := context.Background()
	st, err := fs.Load(ctx)
	if err != nil || len(st.Jobs) != 0 {
		t.Fatalf("missing file: %v %v", st, err)
	}
	st.job("ml/gpt").Attempts = 2
	if err := fs.Save(ctx, st); err != nil {
		t.Fatal(err)
	}
	back, err := fs.Load(ctx)
	if err != nil || back.Jobs["ml/gpt"].Attempts != 2 {
		t.Fatalf("round trip: %+v %v", back, err)
	}
	// No temporary file is left beside the state.
	entries, _ := os.ReadDir(filepath.Dir(fs.Path))
	if len(entries) != 1 {
		t.Errorf("files beside the state: %v", entries)
	}
	if err := os.WriteFile(fs.Path, []byte(`{"version": 99, "jobs": {}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := fs.Load(ctx); err == nil || !strings.Contains(err.Error(), "version 99") {
		t.Errorf("a newer state was read: %v", err)
	}
}

func TestStatePrune(t *testing.T) {
	st := NewState()
	st.job("ml/old").LastSeen = "2026-01-01T00:00:00Z"
	st.job("ml/pending").LastSeen = "2026-01-01T00:00:00Z"
	st.Jobs["ml/pending"].Pending = &Pending{}
	st.job("ml/new").LastSeen = "2026-03-01T00:00:00Z"
	st.prune(time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC))
	if got := strings.Join(st.Keys(), ","); got != "ml/new,ml/pending" {
		t.Errorf("kept %s", got)
	}
}

func TestAgeText(t *testing.T) {
	for sec, want := range map[int64]string{-5: "0s", 40: "40s", 420: "7m", 7200: "2h", 7500: "2h05m"} {
		if got := ageText(sec); got != want {
			t.Errorf("ageText(%d) = %q, want %q", sec, got, want)
		}
	}
}

func TestMessage(t *testing.T) {
	j := &report.Job{Primary: &report.Finding{Category: "exec.nccl-timeout", Severity: "error", Owner: "platform", Title: report.Text{En: "NCCL collective timed out"}}}
	if got := message(j, nil); got != "exec.nccl-timeout (error): NCCL collective timed out; the platform acts" {
		t.Errorf("message = %q", got)
	}
	d := &Decision{Action: ActionRestart, Attempt: 2, Checkpoint: &Checkpoint{Step: 10000}}
	if got := message(j, d); !strings.HasSuffix(got, "; traindoc restarts it (attempt 2) from step 10000") {
		t.Errorf("message = %q", got)
	}
}
