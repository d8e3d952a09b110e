package engine

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"
)

// Every engine call has a deadline suited to it, within the caller's own
// (a resource's create or delete timeout, or Terraform's cancellation).
const (
	// QuickCallTimeout bounds calls the engine answers at once when it is
	// well: ping, inspect, list, update, rename, unpause.
	QuickCallTimeout = 30 * time.Second
	// SlowCallTimeout bounds calls that do real work: create, start, remove,
	// copying files. A runtime such as gVisor can take seconds to start.
	SlowCallTimeout = 2 * time.Minute
)

// inFlight counts the engine calls under way in this process, and held
// the operations that must finish before it exits.
var inFlight, held atomic.Int64

// Busy reports whether any engine call or held operation is under way in
// this process, for example the removal of what a cancelled create left.
func Busy() bool { return inFlight.Load() > 0 || held.Load() > 0 }

// InFlight counts a call of another backend (package kube) as under way,
// for Busy; it returns the function that ends it.
func InFlight() (done func()) {
	inFlight.Add(1)
	return func() { inFlight.Add(-1) }
}

// Uncancelled is ctx without its cancellation but with its deadline, for a
// call of another backend that makes something (see uncancelled).
func Uncancelled(ctx context.Context) (context.Context, context.CancelFunc) { return uncancelled(ctx) }

// Hold marks an operation that must run to its end before the provider
// exits, even when terraform is gone (a create, whose undo removes what it
// made); it returns the function that ends the hold.
func Hold() (release func()) {
	held.Add(1)
	return func() { held.Add(-1) }
}

// uncancelled is ctx without its cancellation but with its deadline, for a
// call that makes something: Ctrl-C or a lost terraform cancels the
// request, yet the engine goes on with what it was asked (Podman takes
// seconds to make a container), so a create cut off that way would leave
// a container that appears only after the provider looked for it by its
// token. The call runs to its answer instead, and the caller, whose own
// context is cancelled, removes what it made.
func uncancelled(ctx context.Context) (context.Context, context.CancelFunc) {
	out := context.WithoutCancel(ctx)
	if deadline, ok := ctx.Deadline(); ok {
		return context.WithDeadline(out, deadline)
	}
	return out, func() {}
}

// UnansweredError says that the engine did not answer a call within its
// deadline: it is frozen, overloaded or out of reach.
type UnansweredError struct {
	Endpoint string
	Call     string
	After    time.Duration
	// Earlier is set when this call was not sent because an earlier one
	// went unanswered moments ago.
	Earlier bool
	// Where and Check name another backend and the command that checks
	// it; empty for the Docker engine at Endpoint.
	Where, Check string
}

func (e *UnansweredError) Error() string {
	where, check := "the Docker engine at "+e.Endpoint, "docker -H "+e.Endpoint+" info"
	if e.Where != "" {
		where, check = e.Where, e.Check
	}
	what := fmt.Sprintf("%s did not answer %s within %s", where, e.Call, e.After)
	if e.Earlier {
		what = fmt.Sprintf("%s did not answer an earlier call (%s) within %s, so this one "+
			"was not sent", where, e.Call, e.After)
	}
	return what + ": it is frozen, overloaded or out of reach. Check it with `" + check +
		"`, restart it if it hangs, then run Terraform again"
}

// IsUnanswered reports whether err says the engine did not answer in time.
func IsUnanswered(err error) bool {
	var u *UnansweredError
	return errors.As(err, &u)
}
