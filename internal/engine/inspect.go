package engine

import (
	"context"
	"fmt"

	"golang.org/x/sync/errgroup"
)

// inspectors is how many containers InspectAll inspects at once: enough
// to hide a remote engine's or a cluster's round trips (a pod is two
// reads), few enough not to crowd an engine that also serves a plan.
const inspectors = 8

// InspectAll inspects the containers ids names with inspect (a backend's
// InspectContainer), a few at a time, and returns them in the order of
// ids, leaving out those gone meanwhile. The first error, naming its
// container, ends the rest.
func InspectAll(ctx context.Context, inspect func(context.Context, string) (Sandbox, error), ids []string) ([]Sandbox, error) {
	found := make([]*Sandbox, len(ids))
	g, ctx := errgroup.WithContext(ctx)
	g.SetLimit(inspectors)
	for i, id := range ids {
		g.Go(func() error {
			c, err := inspect(ctx, id)
			switch {
			case IsNotFound(err):
				return nil
			case err != nil:
				return fmt.Errorf("container %s: %w", ShortID(id), err)
			}
			found[i] = &c
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	out := make([]Sandbox, 0, len(ids))
	for _, c := range found {
		if c != nil {
			out = append(out, *c)
		}
	}
	return out, nil
}
