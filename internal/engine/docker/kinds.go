package docker

import (
	"context"
	"strings"

	"github.com/docker/docker/api/types/network"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
)

// Kind is which engine serves the Docker API at an endpoint.
type Kind int

const (
	// KindDocker is the Docker engine (dockerd).
	KindDocker Kind = iota
	// KindPodman is Podman's Docker-compatible API service.
	KindPodman
)

func (k Kind) String() string {
	if k == KindPodman {
		return "Podman"
	}
	return "Docker"
}

// Kind asks the engine what it is, until it has answered once (Ping asks
// first). An engine that does not say is taken for Docker.
func (c *Client) Kind(ctx context.Context) Kind {
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
				c.kind = KindPodman
			}
		}
		return nil
	})
	c.kindKnown = err == nil
	return c.kind
}

// normalize makes Podman's inspect data read as Docker's where they mean
// the same thing: a container with network mode "none" is on the "none"
// network (Podman lists no network), and a runtime Podman reports only as
// "oci" is unknown rather than a runtime called "oci".
func normalize(k Kind, c *engine.Container) {
	if k != KindPodman || c.ContainerJSONBase == nil || c.HostConfig == nil {
		return
	}
	if c.HostConfig.NetworkMode == "none" && c.NetworkSettings != nil && len(c.NetworkSettings.Networks) == 0 {
		c.NetworkSettings.Networks = map[string]*network.EndpointSettings{"none": {}}
	}
	if c.HostConfig.Runtime == "oci" {
		c.HostConfig.Runtime = ""
	}
}
