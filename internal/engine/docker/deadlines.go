package docker

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
)

// health remembers an unanswered call for as long as a call may take, so
// that the calls after it fail at once instead of each waiting out its own
// deadline: a frozen engine fails a plan of many sandboxes within one
// deadline, not one per sandbox.
type health struct {
	mu          sync.Mutex
	unanswered  *engine.UnansweredError
	failingTill time.Time
}

func (h *health) check() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.unanswered == nil || time.Now().After(h.failingTill) {
		return nil
	}
	earlier := *h.unanswered
	earlier.Earlier = true
	return &earlier
}

func (h *health) record(err *engine.UnansweredError) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.unanswered, h.failingTill = err, time.Now().Add(err.After)
}

// within runs call with its deadline. A call the engine does not answer in
// time returns an *UnansweredError naming the endpoint, unless the caller's
// own context ended first: then the caller's error stands.
func (c *Client) within(ctx context.Context, call string, limit time.Duration, f func(context.Context) error) error {
	if err := c.health.check(); err != nil {
		return err
	}
	defer engine.InFlight()()
	callCtx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	err := f(callCtx)
	if err != nil && ctx.Err() == nil && errors.Is(callCtx.Err(), context.DeadlineExceeded) {
		unanswered := &engine.UnansweredError{Endpoint: c.endpoint, Call: call, After: limit}
		c.health.record(unanswered)
		return unanswered
	}
	return err
}

// stopMargin is added to a stop's grace period.
const stopMargin = 30 * time.Second
