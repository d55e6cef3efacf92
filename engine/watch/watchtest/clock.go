// Package watchtest holds test doubles for the watcher: a clock that
// never sleeps.
package watchtest

import (
	"context"
	"sync"
	"time"
)

// Clock is a fake clock: Sleep advances it at once. It counts the sleeps
// so that tests can check what was waited for.
type Clock struct {
	mu     sync.Mutex
	now    time.Time
	slept  []time.Duration
	OnIdle func() // called at each Sleep, before the time moves
}

// NewClock starts a clock at t.
func NewClock(t time.Time) *Clock { return &Clock{now: t} }

// Now returns the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Sleep moves the clock on by d without waiting.
func (c *Clock) Sleep(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if c.OnIdle != nil {
		c.OnIdle()
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	c.slept = append(c.slept, d)
	return ctx.Err()
}

// Slept returns the durations slept, in order.
func (c *Clock) Slept() []time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]time.Duration(nil), c.slept...)
}
