package kube

import (
	"fmt"
	"strings"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
)

// On a cluster a sandbox's identity is its pod's namespace, name and UID
// (its ID, podID, joins them), and a volume's its claim's namespace and
// name. Both are in the provider's namespace: an identity that names
// another is refused, since that namespace's pods are no sandboxes of this
// provider configuration.

// SandboxIdentity is the identity of the sandbox with ID id.
func (c *Client) SandboxIdentity(id string) engine.Identity {
	parts := strings.Split(id, "/")
	if len(parts) != 3 {
		return engine.Identity{ID: id}
	}
	return engine.Identity{Namespace: parts[0], Name: parts[1], UID: parts[2]}
}

// SandboxID is the ID an identity names: the pod's namespace, name and UID
// when it gives the UID, else its namespace and name, whose pod is then
// read by name.
func (c *Client) SandboxID(i engine.Identity) (string, error) {
	if i.ID != "" {
		return "", engine.InvalidIdentity(fmt.Sprintf("%s names a sandbox by its pod: give identity.name (and uid, "+
			"namespace), not id, which names a container on a Docker engine", c.Where()))
	}
	if err := c.inNamespace(i); err != nil {
		return "", err
	}
	if i.Name == "" {
		return "", engine.InvalidIdentity(fmt.Sprintf("give identity.name, the sandbox's pod name in namespace %s "+
			"(kubectl get pods -n %s)", c.namespace, c.namespace))
	}
	if i.UID == "" {
		return c.namespace + "/" + i.Name, nil
	}
	return c.namespace + "/" + i.Name + "/" + i.UID, nil
}

// VolumeIdentity is the identity of the volume (claim) named name.
func (c *Client) VolumeIdentity(name string) engine.Identity {
	return engine.Identity{Namespace: c.namespace, Name: name}
}

// VolumeName is the claim an identity names.
func (c *Client) VolumeName(i engine.Identity) (string, error) {
	if err := c.inNamespace(i); err != nil {
		return "", err
	}
	if i.Name == "" {
		return "", engine.InvalidIdentity(fmt.Sprintf("give identity.name, the volume's claim name in namespace %s "+
			"(kubectl get pvc -n %s)", c.namespace, c.namespace))
	}
	return i.Name, nil
}

// inNamespace refuses an identity in another namespace than the provider's.
func (c *Client) inNamespace(i engine.Identity) error {
	if i.Namespace == "" || i.Namespace == c.namespace {
		return nil
	}
	return engine.InvalidIdentity(fmt.Sprintf("identity.namespace is %q, but this provider's sandboxes and volumes are in %q: "+
		"set the provider's kubernetes.namespace to %q to import from there",
		i.Namespace, c.namespace, i.Namespace))
}
