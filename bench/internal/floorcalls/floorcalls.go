// Package floorcalls holds the Docker Engine API calls a sandbox needs at
// the least: create and start, inspect, force remove. bench/floor times
// them on their own; bench/noop's engine layer makes the same calls from
// inside the framework, where they share the machine with Terraform and
// the framework as the provider's calls do.
package floorcalls

import (
	"context"
	"fmt"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/network"
	"github.com/docker/docker/client"
)

// callTimeout bounds each call, so that a frozen engine fails a benchmark
// instead of hanging it.
const callTimeout = 2 * time.Minute

// Connect returns a client of the engine DOCKER_HOST (or the default
// socket) names, once it answers.
func Connect(ctx context.Context) (*client.Client, error) {
	api, err := client.NewClientWithOpts(client.FromEnv, client.WithAPIVersionNegotiation())
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	if _, err := api.Ping(ctx); err != nil {
		_ = api.Close()
		return nil, err
	}
	return api, nil
}

// CreateAndStart makes the container the provider makes for a sandbox with
// only image and network_mode = "none" set (keep-alive entrypoint,
// docker-init, no-new-privileges, restart unless-stopped, labels of the
// same number and size), starts it and returns its ID. token stands for
// the provider's create token.
func CreateAndStart(ctx context.Context, api client.APIClient, image, name string, token int) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	withInit := true
	resp, err := api.ContainerCreate(ctx,
		&container.Config{Image: image, Entrypoint: []string{"tail", "-f", "/dev/null"}, Labels: labels(image, token)},
		&container.HostConfig{
			NetworkMode: "none", Init: &withInit, SecurityOpt: []string{"no-new-privileges"},
			RestartPolicy: container.RestartPolicy{Name: container.RestartPolicyUnlessStopped},
		},
		&network.NetworkingConfig{}, nil, name)
	if err != nil {
		return "", err
	}
	return resp.ID, api.ContainerStart(ctx, resp.ID, container.StartOptions{})
}

// Inspect inspects the container id, as a refresh does.
func Inspect(ctx context.Context, api client.APIClient, id string) (container.InspectResponse, error) {
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	return api.ContainerInspect(ctx, id)
}

// Remove force-removes the container id.
func Remove(ctx context.Context, api client.APIClient, id string) error {
	return RemoveAs(ctx, api, id, false)
}

// RemoveAs force-removes the container id, and with volumes its anonymous
// volumes too, as the provider's removal asks.
func RemoveAs(ctx context.Context, api client.APIClient, id string, volumes bool) error {
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	return api.ContainerRemove(ctx, id, container.RemoveOptions{Force: true, RemoveVolumes: volumes})
}

// labels stand for the provider's: what it was configured with, a create
// token, who made it and what.
func labels(image string, token int) map[string]string {
	return map[string]string{
		"tfsandbox.configured":    fmt.Sprintf(`{"image":%q}`, image),
		"tfsandbox.create-token":  fmt.Sprintf("%032x", token),
		"tfsandbox.managed-by":    "terraform-provider-sandbox-bench-floor",
		"tfsandbox.resource-type": "sandbox_container",
	}
}
