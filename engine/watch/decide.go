package watch

import (
	"fmt"
	"strconv"
	"time"

	"github.com/traindoc/traindoc/engine/evidence"
	"github.com/traindoc/traindoc/engine/report"
)

// Actions a decision takes.
const (
	ActionRestart = "restart"
	ActionWait    = "wait"
	ActionGiveUp  = "give-up"
	ActionNone    = "none"
)

// Annotations a restart writes on the job it recreates; a watcher that
// lost its state reads the attempt back from them.
const (
	AnnotationAttempt    = "traindoc.dev/restart-attempt"
	AnnotationFailure    = "traindoc.dev/restart-failure"
	AnnotationReason     = "traindoc.dev/restart-reason"
	AnnotationFromUID    = "traindoc.dev/restarted-from-uid"
	AnnotationCheckpoint = "traindoc.dev/resume-checkpoint"
	// AnnotationDiagnosis holds the primary category with --annotate.
	AnnotationDiagnosis = "traindoc.dev/diagnosis"
)

// Decision is what the watcher decided about one failure of a job. It is
// printed as a JSON line ({"type":"decision",...}), logged and kept in the
// state.
type Decision struct {
	Time   string `json:"time"`
	Job    string `json:"job"`
	UID    string `json:"uid,omitempty"`
	Action string `json:"action"`
	Reason string `json:"reason"`
	// Category is the primary category the decision answers; Retryable
	// whether the taxonomy says a restart can fix it.
	Category  string `json:"category"`
	Retryable bool   `json:"retryable"`
	// Attempt is the restart this decision makes (restart), or the
	// restarts made so far.
	Attempt    int         `json:"attempt"`
	Checkpoint *Checkpoint `json:"checkpoint"`
	// Failure identifies the failure answered: the instance's UID and
	// the time the failure was first seen.
	Failure string `json:"failure,omitempty"`
	DryRun  bool   `json:"dryRun,omitempty"`
	// NotBefore is when a waiting restart may run.
	NotBefore string `json:"notBefore,omitempty"`
	// Error is set when a restart was attempted and failed.
	Error string `json:"error,omitempty"`
	// Summary closes a job's watch: it succeeded after restarts, or
	// restarts stopped at the limit.
	Summary *Summary `json:"summary,omitempty"`
}

// Summary is the outcome of a job's restarts, as the seed's auto-restart
// loop reports it.
type Summary struct {
	Success   bool   `json:"success"`
	FinalStep *int64 `json:"finalStep"`
	Retries   int    `json:"retries"`
	Reason    string `json:"reason"`
}

// Policy says when the watcher restarts a job. Restarts are off unless
// Restart is set.
type Policy struct {
	Restart    bool
	MaxRetries int
	// RetryDelay is the wait before the second restart of a job; each
	// later one waits twice as long as the one before (the first runs as
	// soon as the failure is seen).
	RetryDelay time.Duration
	DryRun     bool
	// RunningGrace is how long a job that still runs must keep a
	// retryable primary cause (a stall, a lost node the operator has not
	// noticed) before it is restarted.
	RunningGrace time.Duration
	// RequireCheckpoint refuses to restart a job with no known checkpoint
	// (it would start from the beginning).
	RequireCheckpoint bool
}

// Backoff is the wait before restart attempt n (1-based) after the
// previous one: nothing before the first, then RetryDelay, 2×, 4×...
func (p Policy) Backoff(n int) time.Duration {
	if n <= 1 || p.RetryDelay <= 0 {
		return 0
	}
	d := p.RetryDelay
	for i := 2; i < n; i++ {
		if d > 24*time.Hour {
			break
		}
		d *= 2
	}
	return d
}

// failureKey identifies one failure of one instance: a job recreated by a
// restart has a new UID, so its failures are new ones.
func failureKey(j *report.Job) string {
	at := j.Primary.FirstSeen
	if at == "" {
		at = j.Primary.ID
	}
	return j.UID + "@" + at
}

// attemptsOf is the number of restarts made for a job: the state's count,
// or the attempt annotation a restart left on the object, whichever is
// higher (the cluster remembers when the state was lost).
func attemptsOf(js *JobState, obj map[string]any) int {
	n := js.Attempts
	if md, ok := obj["metadata"].(map[string]any); ok {
		if ann, ok := md["annotations"].(map[string]any); ok {
			if s, ok := ann[AnnotationAttempt].(string); ok {
				if v, err := strconv.Atoi(s); err == nil && v > n {
					n = v
				}
			}
		}
	}
	return n
}

// decide decides what to do about one job this round. It returns nil when
// there is nothing to decide: a healthy job, a job that is not failing, a
// failure already decided.
func (p Policy) decide(j *report.Job, js *JobState, f *Facts, ckpt *Checkpoint, step *int64, now time.Time) *Decision {
	at := now.UTC().Format(time.RFC3339)
	attempts := attemptsOf(js, f.Object)
	if attempts > js.Attempts {
		js.Attempts = attempts
	}
	d := &Decision{Time: at, Job: j.Key(), UID: j.UID, Attempt: attempts, Checkpoint: ckpt}
	if j.Healthy || j.Primary == nil {
		if j.Phase == evidence.PhaseSucceeded && attempts > 0 && js.Summarized != j.UID {
			js.Summarized = j.UID
			d.Action, d.Category = ActionNone, report.CategoryHealthy
			d.Reason = fmt.Sprintf("succeeded after %d restart(s)", attempts)
			d.Summary = &Summary{Success: true, FinalStep: step, Retries: attempts, Reason: "succeeded"}
			return d
		}
		return nil
	}
	if j.Phase != evidence.PhaseFailed && j.Phase != evidence.PhaseRunning {
		return nil
	}
	key := failureKey(j)
	fl := js.Failures[key]
	if fl == nil {
		fl = &Failure{FirstSeen: at, Category: j.Primary.Category}
		js.Failures[key] = fl
	}
	if fl.Action != "" {
		return nil
	}
	d.Category, d.Retryable, d.Failure = j.Primary.Category, j.Retryable, key
	final := func(action, reason string) *Decision {
		fl.Action = action
		d.Action, d.Reason = action, reason
		return d
	}
	switch {
	case j.Phase == evidence.PhaseRunning && !j.Retryable:
		// A running job with a fault a restart cannot fix is the owner's
		// to act on; say so once.
		return final(ActionNone, fmt.Sprintf("%s is not retryable; the %s acts (the job still runs)", j.Primary.Category, j.Primary.Owner))
	case !j.Retryable:
		return final(ActionNone, fmt.Sprintf("%s is not retryable: the same run would fail the same way; the %s acts", j.Primary.Category, j.Primary.Owner))
	case !p.Restart:
		return final(ActionNone, fmt.Sprintf("%s is retryable, but restarts are off (--restart)", j.Primary.Category))
	}
	first, _ := time.Parse(time.RFC3339, fl.FirstSeen)
	if j.Phase == evidence.PhaseRunning && now.Sub(first) < p.RunningGrace {
		return p.wait(d, fl, first.Add(p.RunningGrace), fmt.Sprintf("%s while running; restart if it persists until", j.Primary.Category))
	}
	if attempts >= p.MaxRetries {
		d.Summary = &Summary{Success: false, FinalStep: step, Retries: attempts, Reason: fmt.Sprintf("%s after %d restart(s)", j.Primary.Category, attempts)}
		return final(ActionGiveUp, fmt.Sprintf("%s again after %d restart(s); --max-retries %d reached", j.Primary.Category, attempts, p.MaxRetries))
	}
	if last, err := time.Parse(time.RFC3339, js.LastRestart); err == nil {
		if notBefore := last.Add(p.Backoff(attempts + 1)); now.Before(notBefore) {
			return p.wait(d, fl, notBefore, fmt.Sprintf("%s; backing off before restart %d until", j.Primary.Category, attempts+1))
		}
	}
	if ckpt == nil && p.RequireCheckpoint {
		return final(ActionNone, fmt.Sprintf("%s is retryable, but no checkpoint is known (--require-checkpoint)", j.Primary.Category))
	}
	d.Attempt = attempts + 1
	d.DryRun = p.DryRun
	from := "from the beginning: no checkpoint is known"
	if ckpt != nil {
		from = fmt.Sprintf("from step %d", ckpt.Step)
	}
	return final(ActionRestart, fmt.Sprintf("%s is retryable: restart %d of %d %s", j.Primary.Category, d.Attempt, p.MaxRetries, from))
}

// wait announces a wait once per failure; later rounds stay quiet until
// the wait is over.
func (p Policy) wait(d *Decision, fl *Failure, until time.Time, why string) *Decision {
	if fl.Waited {
		return nil
	}
	fl.Waited = true
	d.Action = ActionWait
	d.NotBefore = until.UTC().Format(time.RFC3339)
	d.Reason = why + " " + d.NotBefore
	return d
}
