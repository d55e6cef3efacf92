package watch

import (
	"context"
	"errors"
)

// RestartRequest is everything a restarter needs to start a failed job
// again from its newest checkpoint. It is stored in the state before the
// restart starts, so it holds the job's object as the snapshot had it.
type RestartRequest struct {
	Job       string `json:"job"`
	Kind      string `json:"kind"`
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	// UID is the failed instance: only that instance may be deleted.
	UID string `json:"uid"`
	// Object is the job's stored object.
	Object     map[string]any `json:"object,omitempty"`
	Checkpoint *Checkpoint    `json:"checkpoint,omitempty"`
	Attempt    int            `json:"attempt"`
	// Category is the primary cause the restart answers; Failure the
	// failure's key (uid@time).
	Category string `json:"category"`
	Failure  string `json:"failure"`
	Time     string `json:"time"`
}

// Restarter starts a failed job again. Restart must be safe to call again
// for the same request after an interruption: a watcher killed in the
// middle of a restart finishes it on its next run.
type Restarter interface {
	Restart(ctx context.Context, req RestartRequest) error
}

// ErrNotRestartable marks a job a restarter cannot restart (a kind it does
// not know, a job with no stored object); the watcher records it and does
// not try again.
var ErrNotRestartable = errors.New("not restartable")

// AtMostOnce is implemented by restarters whose action cannot be safely
// repeated (a user command): an interrupted restart of theirs is reported,
// not run again.
type AtMostOnce interface {
	AtMostOnce() bool
}
