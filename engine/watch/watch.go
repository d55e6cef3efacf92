// Package watch keeps diagnosing training jobs, round after round, and
// remembers what it saw: a step counter that stopped, GPUs that went idle,
// throughput that fell, a checkpoint that got old. When a job fails of a
// cause a restart can fix (a flaky node, an NCCL timeout, a stall), and
// only then, it restarts the job from its newest checkpoint, never twice
// for the same failure and never beyond a limit.
//
// A round is one snapshot (taken from a cluster, or replayed from disk)
// diagnosed by the rules. Before the rules run, the watcher adds to each
// job's evidence what earlier rounds observed (Enrich); after, it records
// one observation per job, decides what to do about failures, and
// publishes what changed. The state survives the watcher's own restarts.
package watch

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"time"

	"github.com/traindoc/traindoc/engine/diagnose"
	"github.com/traindoc/traindoc/engine/evidence"
	"github.com/traindoc/traindoc/engine/report"
	"github.com/traindoc/traindoc/engine/snapshot"
)

// Notice is what a Notifier publishes about one job.
type Notice struct {
	Kind, APIVersion, Namespace, Name, UID string
	Healthy                                bool
	// Category is the primary category; Message says it and who acts.
	Category, Message string
	// Event is set when the diagnosis changed since it was last
	// published; Annotate when the primary category did.
	Event, Annotate bool
}

// Notifier publishes diagnoses where people look: an Event on the job, an
// annotation.
type Notifier interface {
	Notify(ctx context.Context, n Notice) error
}

// Metrics receives what the watcher measures.
type Metrics interface {
	Round(rep *report.Report, d time.Duration)
	RoundFailed()
	Restarted(category string)
}

// AfterRound runs after each round with its report (to rebuild a site).
type AfterRound func(ctx context.Context, rep *report.Report) error

// Config wires a Watcher.
type Config struct {
	Diagnoser *diagnose.Diagnoser
	Source    Source
	// Store keeps the state; nil keeps it in memory.
	Store Store
	// Clock defaults to the wall clock.
	Clock Clock
	// Interval is the time between rounds; 0 runs rounds back to back
	// (replay).
	Interval time.Duration
	// Rounds stops after this many rounds (0: until the source ends or
	// the context is cancelled).
	Rounds int
	Policy Policy
	// Restarter carries out restart decisions; required when the policy
	// restarts and is not a dry run.
	Restarter Restarter
	Notifier  Notifier
	Metrics   Metrics
	After     AfterRound
	Output    *Output
	Logger    *slog.Logger
	// StrictRounds makes a round that fails an error (replay); a live
	// watch logs it and carries on.
	StrictRounds bool
}

// Watcher runs rounds.
type Watcher struct {
	cfg   Config
	clock Clock
	log   *slog.Logger
	out   *Output
	state *State
}

// New checks the configuration.
func New(cfg Config) (*Watcher, error) {
	if cfg.Diagnoser == nil || cfg.Source == nil {
		return nil, errors.New("watch: a diagnoser and a source are required")
	}
	if cfg.Policy.Restart && !cfg.Policy.DryRun && cfg.Restarter == nil {
		return nil, errors.New("watch: restarts need a restarter")
	}
	w := &Watcher{cfg: cfg, clock: cfg.Clock, log: cfg.Logger, out: cfg.Output}
	if w.clock == nil {
		w.clock = RealClock{}
	}
	if w.log == nil {
		w.log = slog.New(slog.DiscardHandler)
	}
	if w.out == nil {
		w.out = NewOutput(nil, w.log)
	}
	if w.cfg.Store == nil {
		w.cfg.Store = &MemoryStore{}
	}
	return w, nil
}

// State returns the state after the last round.
func (w *Watcher) State() *State { return w.state }

// Run loads the state and runs rounds until the source ends, Rounds is
// reached or ctx is cancelled (which is not an error).
func (w *Watcher) Run(ctx context.Context) error {
	st, err := w.cfg.Store.Load(ctx)
	if err != nil {
		return err
	}
	w.state = st
	for n := 0; w.cfg.Rounds == 0 || n < w.cfg.Rounds; n++ {
		r, err := w.cfg.Source.Next(ctx)
		switch {
		case errors.Is(err, io.EOF):
			return w.out.Err()
		case ctx.Err() != nil:
			return nil
		case err != nil:
			if w.cfg.StrictRounds {
				return err
			}
			w.roundFailed(ctx, err)
		default:
			err = w.RunRound(ctx, r)
			if r.Cleanup != nil {
				r.Cleanup()
			}
			if ctx.Err() != nil {
				return nil
			}
			if err != nil {
				if w.cfg.StrictRounds {
					return fmt.Errorf("round %s: %w", r.Name, err)
				}
				w.roundFailed(ctx, err)
			}
		}
		if w.cfg.Interval > 0 && (w.cfg.Rounds == 0 || n+1 < w.cfg.Rounds) {
			if w.clock.Sleep(ctx, w.cfg.Interval) != nil {
				return nil
			}
		}
	}
	return w.out.Err()
}

func (w *Watcher) roundFailed(ctx context.Context, err error) {
	w.log.ErrorContext(ctx, "round failed", "error", err)
	if w.cfg.Metrics != nil {
		w.cfg.Metrics.RoundFailed()
	}
}

// roundData is what the observer collects during one diagnosis.
type roundData struct {
	mu    sync.Mutex
	facts map[string]*jobFacts
}

type jobFacts struct {
	*Facts
	stepSince, logSince string
}

// RunRound diagnoses one snapshot and acts on it.
func (w *Watcher) RunRound(ctx context.Context, r *Round) error {
	if w.state == nil {
		st, err := w.cfg.Store.Load(ctx)
		if err != nil {
			return err
		}
		w.state = st
	}
	start := w.clock.Now()
	rd := &roundData{facts: map[string]*jobFacts{}}
	observe := func(snap *snapshot.Snapshot, job *evidence.Job) {
		f := TakeFacts(snap, job)
		now, err := time.Parse(time.RFC3339, job.Now)
		if err != nil {
			now = w.clock.Now()
		}
		key := job.Namespace + "/" + job.Name
		rd.mu.Lock()
		defer rd.mu.Unlock()
		stepSince, logSince := Enrich(job, f, w.state.Jobs[key], now)
		rd.facts[key] = &jobFacts{Facts: f, stepSince: stepSince, logSince: logSince}
	}
	rep, err := w.cfg.Diagnoser.DiagnoseObserved(ctx, r.Dir, observe)
	if err != nil {
		return fmt.Errorf("diagnose: %w", err)
	}
	if len(rep.Jobs) == 0 {
		w.log.WarnContext(ctx, "no training job in the round", "round", r.Name, "warnings", len(rep.Warnings))
	}
	now := w.clock.Now()
	if t, err := time.Parse(time.RFC3339, rep.CollectedAt); err == nil {
		now = t
	}
	present := map[string]*report.Job{}
	for i := range rep.Jobs {
		present[rep.Jobs[i].Key()] = &rep.Jobs[i]
	}
	w.resumePending(ctx, present, now)
	for i := range rep.Jobs {
		j := &rep.Jobs[i]
		jf := rd.facts[j.Key()]
		if jf == nil {
			jf = &jobFacts{Facts: &Facts{Kind: j.Kind, Namespace: j.Namespace, Name: j.Name, UID: j.UID, GPUUtil: []float64{}}}
		}
		w.job(ctx, j, jf, now)
	}
	w.state.prune(now)
	if err := w.cfg.Store.Save(ctx, w.state); err != nil {
		return err
	}
	if w.cfg.Metrics != nil {
		w.cfg.Metrics.Round(rep, w.clock.Now().Sub(start))
	}
	if w.cfg.After != nil {
		if err := w.cfg.After(ctx, rep); err != nil {
			w.log.ErrorContext(ctx, "after round", "error", err)
		}
	}
	w.log.DebugContext(ctx, "round done", "round", r.Name, "jobs", len(rep.Jobs), "collectedAt", rep.CollectedAt)
	return w.out.Err()
}

// job records one job's observation, decides and publishes.
func (w *Watcher) job(ctx context.Context, j *report.Job, jf *jobFacts, now time.Time) {
	js := w.state.job(j.Key())
	prev := js.last(j.UID)
	if prev == nil && len(js.History) > 0 {
		prev = &js.History[len(js.History)-1]
	}
	obs := observation(j, jf, now)
	w.out.Observation(ctx, obs, prev)
	js.Kind = j.Kind
	js.record(obs)
	ckpt := newestCheckpoint(js, now)
	d := w.cfg.Policy.decide(j, js, jf.Facts, ckpt, obs.Step, now)
	if d != nil {
		if d.Action == ActionRestart && !d.DryRun {
			w.restart(ctx, j, jf.Facts, js, d)
		}
		js.decided(*d)
		w.out.Decision(ctx, *d)
	}
	w.notify(ctx, j, js, jf.Facts, d)
}

// observation builds the round's observation of a job.
func observation(j *report.Job, jf *jobFacts, now time.Time) Observation {
	o := Observation{
		Time: now.UTC().Format(time.RFC3339), Job: j.Key(), Kind: j.Kind, UID: j.UID,
		Phase: j.Phase, Healthy: j.Healthy, GPUUtil: jf.GPUUtil,
		StepSince: jf.stepSince, LogDigest: jf.LogDigest, LogSince: jf.logSince,
	}
	if o.GPUUtil == nil {
		o.GPUUtil = []float64{}
	}
	if j.Primary != nil {
		o.Primary = j.Primary.Category
	}
	if p := j.Progress; p != nil {
		o.Step = p.LastStep
		if p.ThroughputUnit != "" {
			v := p.Throughput
			o.Throughput, o.ThroughputUnit = &v, p.ThroughputUnit
		}
	}
	if tp := jf.RawThroughput; tp != nil {
		o.Baseline, o.Samples = tp.Baseline, tp.Samples
	}
	if jf.Transport != "" {
		t := jf.Transport
		o.Transport = &t
	}
	if jf.Checkpoint != nil {
		o.Checkpoint = withAge(*jf.Checkpoint, now)
	}
	return o
}

func withAge(c Checkpoint, now time.Time) *Checkpoint {
	c.AgeSeconds = nil
	if t, err := time.Parse(time.RFC3339Nano, c.Time); err == nil {
		age := int64(now.Sub(t).Seconds())
		c.AgeSeconds = &age
	}
	return &c
}

// newestCheckpoint is the newest complete checkpoint seen for the job in
// this round or an earlier one: a failed job's pods no longer run, so the
// listing that counts is often from the round before it failed. The
// checkpoint folder outlives the instance, so every instance counts.
func newestCheckpoint(js *JobState, now time.Time) *Checkpoint {
	var best *Checkpoint
	for i := range js.History {
		c := js.History[i].Checkpoint
		if c != nil && (best == nil || c.Step >= best.Step) {
			best = c
		}
	}
	if best == nil {
		return nil
	}
	return withAge(*best, now)
}

// restart carries out a restart decision. The request is saved in the
// state before anything is deleted, so that a watcher killed in the
// middle finishes the restart on its next run instead of losing the job
// or starting it twice.
func (w *Watcher) restart(ctx context.Context, j *report.Job, f *Facts, js *JobState, d *Decision) {
	req := RestartRequest{
		Job: j.Key(), Kind: j.Kind, Namespace: j.Namespace, Name: j.Name, UID: j.UID,
		Object: f.Object, Checkpoint: d.Checkpoint, Attempt: d.Attempt,
		Category: d.Category, Failure: d.Failure, Time: d.Time,
	}
	js.Pending = &Pending{Request: req, Since: d.Time}
	prevAttempts, prevLast := js.Attempts, js.LastRestart
	js.Attempts, js.LastRestart = d.Attempt, d.Time
	if err := w.cfg.Store.Save(ctx, w.state); err != nil {
		// Without the write-ahead record a crash could repeat the
		// restart: do not start it, and decide again next round.
		js.Pending, js.Attempts, js.LastRestart = nil, prevAttempts, prevLast
		js.Failures[d.Failure].Action = ""
		d.Error = fmt.Sprintf("not restarted: %v", err)
		return
	}
	err := w.cfg.Restarter.Restart(ctx, req)
	switch {
	case err == nil:
		js.Pending = nil
		if w.cfg.Metrics != nil {
			w.cfg.Metrics.Restarted(d.Category)
		}
	case errors.Is(err, ErrNotRestartable):
		// Nothing was done and trying again would not help: the decision
		// becomes none, with why.
		js.Pending, js.Attempts, js.LastRestart = nil, prevAttempts, prevLast
		js.Failures[d.Failure].Action = ActionNone
		d.Action, d.Attempt, d.Error = ActionNone, prevAttempts, err.Error()
		d.Reason = fmt.Sprintf("%s is retryable, but the job cannot be restarted", d.Category)
	default:
		// Kept pending: the next round tries again.
		d.Error = err.Error()
	}
}

// resumePending finishes restarts a previous run (or round) left
// unfinished.
func (w *Watcher) resumePending(ctx context.Context, present map[string]*report.Job, now time.Time) {
	for _, key := range w.state.Keys() {
		js := w.state.Jobs[key]
		p := js.Pending
		if p == nil {
			continue
		}
		cur := present[key]
		if cur != nil && cur.UID != p.Request.UID {
			// The failed instance is gone and another one runs: done.
			js.Pending = nil
			continue
		}
		if w.cfg.Restarter == nil {
			continue
		}
		d := Decision{
			Time: now.UTC().Format(time.RFC3339), Job: key, UID: p.Request.UID, Action: ActionRestart,
			Category: p.Request.Category, Retryable: true, Attempt: p.Request.Attempt,
			Checkpoint: p.Request.Checkpoint, Failure: p.Request.Failure,
			Reason: fmt.Sprintf("finishing restart %d decided at %s", p.Request.Attempt, p.Since),
		}
		if amo, ok := w.cfg.Restarter.(AtMostOnce); ok && amo.AtMostOnce() {
			js.Pending = nil
			d.Action, d.Error = ActionNone, "an interrupted restart command is not run again; check the job"
		} else if err := w.cfg.Restarter.Restart(ctx, p.Request); err != nil {
			d.Error = err.Error()
			if errors.Is(err, ErrNotRestartable) {
				js.Pending = nil
			}
		} else {
			js.Pending = nil
			if w.cfg.Metrics != nil {
				w.cfg.Metrics.Restarted(p.Request.Category)
			}
		}
		js.decided(d)
		w.out.Decision(ctx, d)
	}
}

// notify publishes a job's diagnosis when it changed since it was last
// published.
func (w *Watcher) notify(ctx context.Context, j *report.Job, js *JobState, f *Facts, d *Decision) {
	if w.cfg.Notifier == nil {
		return
	}
	category := report.CategoryHealthy
	if j.Primary != nil {
		category = j.Primary.Category
	}
	announced := j.UID + " " + category
	msg := message(j, d)
	if r := restartedBy(f.Object); r != "" {
		msg += "; " + r
	}
	n := Notice{
		Kind: j.Kind, APIVersion: j.APIVersion, Namespace: j.Namespace, Name: j.Name, UID: j.UID,
		Healthy: j.Healthy, Category: category, Message: msg,
		// A healthy job seen for the first time is no news.
		Event:    (announced != js.Announced && !(js.Announced == "" && j.Healthy)) || (d != nil && d.Action != ActionNone),
		Annotate: category != js.Annotated,
	}
	if !n.Event && !n.Annotate {
		return
	}
	if err := w.cfg.Notifier.Notify(ctx, n); err != nil {
		w.log.WarnContext(ctx, "notify", "job", j.Key(), "error", err)
		return
	}
	js.Announced, js.Annotated = announced, category
}

// restartedBy says that an instance was created by a restart, read from
// the annotations the restart wrote: the Event about the failure went to
// the instance that failed, which kubectl describe no longer shows.
func restartedBy(obj map[string]any) string {
	md, _ := obj["metadata"].(map[string]any)
	ann, _ := md["annotations"].(map[string]any)
	attempt, _ := ann[AnnotationAttempt].(string)
	if attempt == "" {
		return ""
	}
	s := "created by traindoc's restart " + attempt
	if reason, _ := ann[AnnotationReason].(string); reason != "" {
		s += " after " + reason
	}
	if ck, _ := ann[AnnotationCheckpoint].(string); ck != "" {
		s += ", resuming from " + ck
	}
	return s
}

// message is an Event's text: the primary cause and who acts on it.
func message(j *report.Job, d *Decision) string {
	if j.Healthy || j.Primary == nil {
		return "healthy"
	}
	p := j.Primary
	who := "the " + cmp.Or(p.Owner, "user") + " acts"
	if d != nil {
		switch d.Action {
		case ActionRestart:
			who = fmt.Sprintf("traindoc restarts it (attempt %d)", d.Attempt)
			if d.Checkpoint != nil {
				who += fmt.Sprintf(" from step %d", d.Checkpoint.Step)
			}
			if d.DryRun {
				who = "dry run: " + who
			}
		case ActionWait:
			who = "traindoc restarts it after " + d.NotBefore
		case ActionGiveUp:
			who = fmt.Sprintf("traindoc gave up after %d restart(s); the %s acts", d.Attempt, cmp.Or(p.Owner, "user"))
		}
	}
	return fmt.Sprintf("%s (%s): %s; %s", p.Category, p.Severity, p.Title.En, who)
}
