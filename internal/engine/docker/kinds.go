package docker

import (
	"context"

	"github.com/docker/docker/api/types/container"
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

// podmanHeader is the header Podman's API service puts on every answer,
// its Docker-compatible ones included; the Docker engine never sends it.
const podmanHeader = "Libpod-Api-Version"

// Kind asks the engine what it is, until it has answered once (Ping asks
// first). It reads the headers of a ping rather than the engine's
// version: Podman answers /version in about a second (it asks its
// runtime and conmon theirs), and every provider process asks. An engine
// that does not say is taken for Docker.
func (c *Client) Kind(ctx context.Context) Kind {
	c.kindMu.Lock()
	defer c.kindMu.Unlock()
	if c.kindKnown {
		return c.kind
	}
	err := c.within(ctx, "a ping for the engine's kind", engine.QuickCallTimeout, func(ctx context.Context) error {
		resp, err := c.get(ctx, "/_ping")
		if err != nil {
			return err
		}
		_ = resp.Body.Close()
		if resp.Header.Get(podmanHeader) != "" {
			c.kind = KindPodman
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
func normalize(k Kind, c *container.InspectResponse) {
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
