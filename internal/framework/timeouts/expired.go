package timeouts

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Expired is the cause of a context that a resource's own timeout ended:
// an error names that timeout, not a deadline an engine call or a wait
// ran into.
type Expired struct {
	Attr  string // "timeouts.create", or an action's "timeout"
	After time.Duration
}

func (e *Expired) Error() string {
	return fmt.Sprintf("took longer than %s (%s)", e.Attr, Short(e.After))
}

// Within bounds ctx by the timeout attr of after, with that cause.
func Within(ctx context.Context, attr string, after time.Duration) (context.Context, context.CancelFunc) {
	return context.WithTimeoutCause(ctx, after, &Expired{Attr: attr, After: after})
}

// ExpiredIn is the timeout that ended ctx, or nil.
func ExpiredIn(ctx context.Context) *Expired {
	var e *Expired
	if errors.As(context.Cause(ctx), &e) {
		return e
	}
	return nil
}
