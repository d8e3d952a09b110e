package kube

import (
	"context"
	"errors"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
)

// Every call to the API server has a deadline within the caller's, counts
// as under way for the provider's exit (engine.Busy), and returns the
// cluster's errors classified as the engine's are (errdefs), so that the
// resources test them the same way whichever backend answered.

// call runs f as one call to the cluster, named what for an unanswered
// call's error.
func (c *Client) call(ctx context.Context, what string, limit time.Duration, f func(context.Context) error) error {
	defer engine.InFlight()()
	callCtx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	err := f(callCtx)
	if err != nil && ctx.Err() == nil && errors.Is(callCtx.Err(), context.DeadlineExceeded) {
		return &engine.UnansweredError{Endpoint: c.server, Call: what, After: limit, Where: c.Where(),
			Check: kubectl{c}.prefix() + " get --raw /readyz"}
	}
	return classify(err)
}

// classify gives a cluster's error the errdefs class of its status.
func classify(err error) error {
	switch {
	case err == nil:
		return nil
	case apierrors.IsNotFound(err):
		return notFound{err}
	case apierrors.IsAlreadyExists(err), apierrors.IsConflict(err):
		return conflict{err}
	case apierrors.IsForbidden(err), apierrors.IsUnauthorized(err):
		return forbidden{err}
	case apierrors.IsInvalid(err), apierrors.IsBadRequest(err):
		return invalid{err}
	case apierrors.IsInternalError(err):
		return internal{err}
	case apierrors.IsServiceUnavailable(err), apierrors.IsTooManyRequests(err), apierrors.IsTimeout(err),
		apierrors.IsServerTimeout(err):
		return unavailable{err}
	}
	return err
}

type (
	notFound    struct{ error }
	conflict    struct{ error }
	forbidden   struct{ error }
	invalid     struct{ error }
	internal    struct{ error }
	unavailable struct{ error }
)

func (notFound) NotFound()          {}
func (conflict) Conflict()          {}
func (forbidden) Forbidden()        {}
func (invalid) InvalidParameter()   {}
func (internal) System()            {}
func (unavailable) Unavailable()    {}
func (e notFound) Unwrap() error    { return e.error }
func (e conflict) Unwrap() error    { return e.error }
func (e forbidden) Unwrap() error   { return e.error }
func (e invalid) Unwrap() error     { return e.error }
func (e internal) Unwrap() error    { return e.error }
func (e unavailable) Unwrap() error { return e.error }
func isForbidden(err error) bool    { return apierrors.IsForbidden(err) || apierrors.IsUnauthorized(err) }
