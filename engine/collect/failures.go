package collect

import (
	"context"
	"errors"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/traindoc/traindoc/engine/redact"
	"github.com/traindoc/traindoc/engine/snapshot"
)

// note records something that could not be read. Notes are de-duplicated
// and sorted, so the same cluster state gives the same snapshot.yaml.
func (c *collector) note(format string, args ...any) {
	// Notes quote API errors, which may quote a URL with its credentials.
	n := redact.String(fmt.Sprintf(format, args...))
	c.mu.Lock()
	c.notes[n] = true
	c.mu.Unlock()
}

// miss records, besides the note, what could not be read in structured
// form (snapshot.yaml's missing list).
func (c *collector) miss(m snapshot.Missing) {
	m.Reason = redact.String(m.Reason)
	c.mu.Lock()
	c.missing[m] = true
	c.mu.Unlock()
}

// failedMiss is failed for a read whose loss a job's report names: the
// note, and the structured entry with the reason.
func (c *collector) failedMiss(ctx context.Context, err error, m snapshot.Missing, format string, args ...any) bool {
	gone := c.failed(ctx, err, format, args...)
	if !gone || isTransport(err) {
		m.Reason = reason(err)
		c.miss(m)
	}
	return gone
}

func (c *collector) debugf(format string, args ...any) {
	if c.opts.Debug {
		c.note("debug: "+format, args...)
	}
}

// reason condenses an API error into the short form used in notes.
func reason(err error) string {
	switch {
	case apierrors.IsForbidden(err):
		return "forbidden"
	case apierrors.IsUnauthorized(err):
		return "unauthorized"
	case apierrors.IsNotFound(err):
		return "not found"
	case errors.Is(err, context.DeadlineExceeded):
		return "timed out"
	case errors.Is(err, context.Canceled):
		return "cancelled"
	}
	msg := err.Error()
	if len(msg) > 300 {
		msg = msg[:300] + "..."
	}
	return msg
}

// isTransport reports whether err came from the connection rather than from
// the API server (which always answers with a Status). A request that ran
// out of its own client-side time is not: a slow answer to one request (a
// long log, an overloaded kubelet) says nothing about the next one, so it
// is recorded as timed out and collection goes on.
func isTransport(err error) bool {
	var st apierrors.APIStatus
	return err != nil && !errors.As(err, &st) && !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded)
}

// failed records a failed read as a note. It returns true when the API
// server is gone and the caller should stop issuing requests.
func (c *collector) failed(ctx context.Context, err error, format string, args ...any) bool {
	if ctx.Err() != nil {
		return true
	}
	what := fmt.Sprintf(format, args...)
	if isTransport(err) {
		c.mu.Lock()
		if c.unreachable == nil {
			c.unreachable = fmt.Errorf("%s: %w", what, err)
		}
		c.mu.Unlock()
		return true
	}
	c.note("%s: %s", what, reason(err))
	return false
}

func (c *collector) gone(ctx context.Context) bool {
	if ctx.Err() != nil {
		return true
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.unreachable != nil
}

// reqCtx bounds one API request so that a server that stops answering
// (rather than closing connections) cannot hang the collection.
func (c *collector) reqCtx(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, c.opts.RequestTimeout)
}
