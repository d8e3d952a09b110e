package docker

import (
	"context"
	"strings"

	"github.com/docker/docker/api/types/network"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
)

// Kind asks the engine what it is, until it has answered once (Ping asks
// first). An engine that does not say is taken for Docker.
func (c *Client) Kind(ctx context.Context) engine.Kind {
	c.kindMu.Lock()
	defer c.kindMu.Unlock()
	if c.kindKnown {
		return c.kind
	}
	err := c.within(ctx, "the request for the engine's version", engine.QuickCallTimeout, func(ctx context.Context) error {
		v, err := c.api.ServerVersion(ctx)
		if err != nil {
			return err
		}
		for _, comp := range v.Components {
			if strings.HasPrefix(comp.Name, "Podman") {
				c.kind = engine.Podman
			}
		}
		return nil
	})
	c.kindKnown = err == nil
	return c.kind
}

// What an engine cannot do through the Docker API, which the provider plans
// around and the docs list.

// CanUpdateLimits reports whether the engine changes a container's limits
// in place: Podman's Docker-compatible API has no container update (Podman
// 4), so a limit change replaces the sandbox there.
func (c *Client) CanUpdateLimits(ctx context.Context) bool { return c.Kind(ctx) != engine.Podman }

// HonoursRuntime reports whether the engine runs a container under the
// runtime the create asks for: Podman's Docker-compatible API ignores it
// and uses Podman's default runtime.
func (c *Client) HonoursRuntime(ctx context.Context) bool { return c.Kind(ctx) != engine.Podman }

// normalize makes Podman's inspect data read as Docker's where they mean
// the same thing: a container with network mode "none" is on the "none"
// network (Podman lists no network), and a runtime Podman reports only as
// "oci" is unknown rather than a runtime called "oci".
func normalize(k engine.Kind, c *engine.Container) {
	if k != engine.Podman || c.ContainerJSONBase == nil || c.HostConfig == nil {
		return
	}
	if c.HostConfig.NetworkMode == "none" && c.NetworkSettings != nil && len(c.NetworkSettings.Networks) == 0 {
		c.NetworkSettings.Networks = map[string]*network.EndpointSettings{"none": {}}
	}
	if c.HostConfig.Runtime == "oci" {
		c.HostConfig.Runtime = ""
	}
}
