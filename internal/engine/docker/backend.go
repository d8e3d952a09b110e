package docker

import (
	"context"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
)

// The two backends behind the Docker API: the Docker engine, and Podman
// through its Docker-compatible API. Both are a Client; they differ in
// what they can do (Podman's API changes no limit or restart policy in
// place) and in their rules (rules.go).

var (
	_ engine.Engine         = Docker{}
	_ engine.LimitUpdater   = Docker{}
	_ engine.RestartUpdater = Docker{}
	_ engine.Engine         = Podman{}
	_ interface {
		engine.Pauser
		engine.Renamer
		engine.FileCopier
		engine.FileReader
		engine.HostPaths
		engine.Images
		engine.VolumeArchiver
		engine.SnapshotRefuser
		engine.NewVolumeRoots
	} = Podman{}
)

// Docker is the Docker engine (dockerd) as the resources see it.
type Docker struct{ *Client }

// Podman is Podman's Docker-compatible API service as the resources see
// it: a Client without the abilities that API lacks.
type Podman struct{ *Client }

// Backend is the engine as the resources see it: Docker or Podman, as the
// engine answered Ping or Kind (taken for Docker when it did not say).
func (c *Client) Backend(ctx context.Context) engine.Engine {
	if c.Kind(ctx) == KindPodman {
		return Podman{c}
	}
	return Docker{c}
}

// CreateContainer creates (but does not start) a container, unless the
// Docker engine's rules refuse it (createUnder).
func (d Docker) CreateContainer(ctx context.Context, spec engine.ContainerSpec) (string, error) {
	return d.createUnder(ctx, d, spec)
}

// CreateContainer is Docker.CreateContainer under Podman's rules.
func (p Podman) CreateContainer(ctx context.Context, spec engine.ContainerSpec) (string, error) {
	return p.createUnder(ctx, p, spec)
}

// createUnder creates the container unless rules refuse it: the plan asked
// them already, so apply meets a refusal only for a value the plan did not
// know.
func (c *Client) createUnder(ctx context.Context, rules engine.Rules, spec engine.ContainerSpec) (string, error) {
	if err := engine.Refused(rules.RefuseSandbox(ctx, engine.PlannedSandbox{Spec: spec})); err != nil {
		return "", err
	}
	return c.CreateContainer(ctx, spec)
}

// UpdateLimits changes the resource limits of a container, running or not.
func (d Docker) UpdateLimits(ctx context.Context, id string, l engine.Limits) error {
	return d.updateLimits(ctx, id, l)
}

// UpdateRestartPolicy changes a container's restart policy in place.
func (d Docker) UpdateRestartPolicy(ctx context.Context, id, policy string) error {
	return d.updateRestartPolicy(ctx, id, policy)
}
