package watch

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"sync"
)

// Output prints observations and decisions: as JSON lines on a writer
// (-o json), and as log lines, one per job per change, on the logger.
type Output struct {
	mu   sync.Mutex
	w    io.Writer // nil: no JSON lines
	log  *slog.Logger
	errs error
}

// NewOutput writes JSON lines to w when w is not nil, and logs to log.
func NewOutput(w io.Writer, log *slog.Logger) *Output {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Output{w: w, log: log}
}

// observationLine is the JSON line of an observation: the state's extra
// fields (since-times, digests) stay out.
type observationLine struct {
	Type           string      `json:"type"`
	Time           string      `json:"time"`
	Job            string      `json:"job"`
	Kind           string      `json:"kind"`
	UID            string      `json:"uid,omitempty"`
	Phase          string      `json:"phase"`
	Healthy        bool        `json:"healthy"`
	Primary        string      `json:"primary"`
	Step           *int64      `json:"step"`
	Throughput     *float64    `json:"throughput"`
	ThroughputUnit string      `json:"throughputUnit,omitempty"`
	GPUUtil        []float64   `json:"gpuUtil"`
	Transport      *string     `json:"transport"`
	Checkpoint     *Checkpoint `json:"checkpoint"`
}

type decisionLine struct {
	Type string `json:"type"`
	Decision
}

func (o *Output) line(v any) {
	if o.w == nil {
		return
	}
	b, err := json.Marshal(v)
	if err == nil {
		_, err = o.w.Write(append(b, '\n'))
	}
	if err != nil && o.errs == nil {
		o.errs = fmt.Errorf("write output: %w", err)
	}
}

// Observation prints an observation; the log gets a line at info level
// when the job's phase, primary cause or instance changed since prev, and
// at debug level otherwise.
func (o *Output) Observation(ctx context.Context, obs Observation, prev *Observation) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.line(observationLine{
		Type: "observation", Time: obs.Time, Job: obs.Job, Kind: obs.Kind, UID: obs.UID,
		Phase: obs.Phase, Healthy: obs.Healthy, Primary: obs.Primary, Step: obs.Step,
		Throughput: obs.Throughput, ThroughputUnit: obs.ThroughputUnit, GPUUtil: obs.GPUUtil,
		Transport: obs.Transport, Checkpoint: obs.Checkpoint,
	})
	level, msg := slog.LevelDebug, "job unchanged"
	switch {
	case prev == nil:
		level, msg = slog.LevelInfo, "job seen"
	case prev.UID != obs.UID:
		level, msg = slog.LevelInfo, "job recreated"
	case prev.Phase != obs.Phase || prev.Primary != obs.Primary || prev.Healthy != obs.Healthy:
		level, msg = slog.LevelInfo, "job changed"
	}
	o.log.Log(ctx, level, msg, observationAttrs(obs)...)
}

func observationAttrs(obs Observation) []any {
	// at is the round's time: in a replay, not the time of the log line.
	attrs := []any{"at", obs.Time, "job", obs.Job, "kind", obs.Kind, "phase", obs.Phase, "primary", obs.Primary}
	if obs.Step != nil {
		attrs = append(attrs, "step", *obs.Step)
	}
	if obs.Throughput != nil {
		attrs = append(attrs, "throughput", fmt.Sprintf("%g %s", *obs.Throughput, obs.ThroughputUnit))
	}
	if len(obs.GPUUtil) > 0 {
		attrs = append(attrs, "gpuUtil", fmt.Sprintf("%.0f%% avg of %d", mean(obs.GPUUtil), len(obs.GPUUtil)))
	}
	if obs.Transport != nil {
		attrs = append(attrs, "transport", *obs.Transport)
	}
	if c := obs.Checkpoint; c != nil {
		s := fmt.Sprintf("step %d", c.Step)
		if c.AgeSeconds != nil {
			s += fmt.Sprintf(", %s old", ageText(*c.AgeSeconds))
		}
		attrs = append(attrs, "checkpoint", s)
	}
	return attrs
}

// Decision prints a decision and logs it: restarts and give-ups as
// warnings, the rest as information.
func (o *Output) Decision(ctx context.Context, d Decision) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.line(decisionLine{Type: "decision", Decision: d})
	level := slog.LevelInfo
	switch {
	case d.Error != "":
		level = slog.LevelError
	case d.Action == ActionRestart || d.Action == ActionGiveUp:
		level = slog.LevelWarn
	}
	attrs := []any{"at", d.Time, "job", d.Job, "action", d.Action, "reason", d.Reason, "category", d.Category, "retryable", d.Retryable, "attempt", d.Attempt}
	if d.Checkpoint != nil {
		attrs = append(attrs, "checkpoint", d.Checkpoint.Path)
	}
	if d.DryRun {
		attrs = append(attrs, "dryRun", true)
	}
	if d.Error != "" {
		attrs = append(attrs, "error", d.Error)
	}
	if s := d.Summary; s != nil {
		final := "unknown"
		if s.FinalStep != nil {
			final = fmt.Sprint(*s.FinalStep)
		}
		attrs = append(attrs, "summary", fmt.Sprintf("success=%t finalStep=%s retries=%d reason=%q", s.Success, final, s.Retries, s.Reason))
	}
	o.log.Log(ctx, level, "decision", attrs...)
}

// Err returns the first write error.
func (o *Output) Err() error {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.errs
}

func mean(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	var s float64
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

// ageText prints a duration in seconds as "2h05m", "7m", "40s".
func ageText(sec int64) string {
	switch {
	case sec < 0:
		return "0s"
	case sec < 60:
		return fmt.Sprintf("%ds", sec)
	case sec < 3600:
		return fmt.Sprintf("%dm", sec/60)
	}
	if sec%3600 < 60 {
		return fmt.Sprintf("%dh", sec/3600)
	}
	return fmt.Sprintf("%dh%02dm", sec/3600, sec%3600/60)
}
