package docker

import (
	"fmt"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
)

// On a Docker engine (and Podman) a sandbox's identity is its container ID
// (a name can be changed in place), and a volume's its name.

// SandboxIdentity is the identity of the sandbox with container ID id.
func (c *Client) SandboxIdentity(id string) engine.Identity { return engine.Identity{ID: id} }

// SandboxID is the container ID an identity names.
func (c *Client) SandboxID(i engine.Identity) (string, error) {
	if i.Namespace != "" || i.Name != "" || i.UID != "" {
		return "", engine.InvalidIdentity(fmt.Sprintf("%s names a sandbox by its container ID alone: give identity.id "+
			"(docker ps --no-trunc), not namespace, name or uid, which name a pod on a cluster",
			c.Where()))
	}
	if i.ID == "" {
		return "", engine.InvalidIdentity(fmt.Sprintf("give identity.id, the sandbox's container ID on %s (docker ps --no-trunc)",
			c.Where()))
	}
	return i.ID, nil
}

// VolumeIdentity is the identity of the volume named name.
func (c *Client) VolumeIdentity(name string) engine.Identity { return engine.Identity{Name: name} }

// VolumeName is the volume an identity names.
func (c *Client) VolumeName(i engine.Identity) (string, error) {
	if i.Namespace != "" {
		return "", engine.InvalidIdentity(fmt.Sprintf("%s has no namespaces: give identity.name alone (docker volume ls)",
			c.Where()))
	}
	if i.Name == "" {
		return "", engine.InvalidIdentity(fmt.Sprintf("give identity.name, the volume's name on %s (docker volume ls)",
			c.Where()))
	}
	return i.Name, nil
}
