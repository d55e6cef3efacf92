package restart

import (
	"context"
	"sync"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/traindoc/traindoc/engine/watch"
)

// Recorder is the restarter of replays: it builds what a restart would
// create (the manifest, or the command's words) and records it, touching
// no cluster. A request Recreate or Command would refuse is refused the
// same way.
type Recorder struct {
	Resume  Resume
	Command *Command

	mu       sync.Mutex
	restarts []Recorded
}

// Recorded is one recorded restart.
type Recorded struct {
	Request  watch.RestartRequest
	Manifest *unstructured.Unstructured
	Argv     []string
}

// Restart records the restart of req.
func (r *Recorder) Restart(_ context.Context, req watch.RestartRequest) error {
	rec := Recorded{Request: req}
	var err error
	if r.Command != nil {
		rec.Argv, err = r.Command.Argv(req)
	} else {
		rec.Manifest, err = Build(req, r.Resume)
	}
	if err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.restarts = append(r.restarts, rec)
	return nil
}

// Restarts returns what was recorded, in order.
func (r *Recorder) Restarts() []Recorded {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Recorded(nil), r.restarts...)
}
