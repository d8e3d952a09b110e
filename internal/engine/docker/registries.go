package docker

import (
	"context"
	"errors"
	"io"

	"github.com/docker/docker/api/types/image"
	"github.com/docker/docker/api/types/registry"
	"github.com/docker/docker/pkg/jsonmessage"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
)

// UseRegistries gives the client the provider's registry credentials, which
// its pulls send.
func (c *Client) UseRegistries(r engine.Registries) { c.registries = r }

// pull pulls ref, with the credentials the provider has for its registry,
// and reads the progress stream to its end, returning the first error the
// engine reports in it. It has no deadline of its own: a pull takes as
// long as the image is large, within the caller's (the create timeout). A
// pull the registry refused for its credentials is a RegistryAuthError. A
// reference that names no registry (an image ID) is pulled as it is.
func (c *Client) pull(ctx context.Context, ref string) error {
	host, hostErr := engine.RegistryHost(ref)
	var auth engine.RegistryAuth
	opts := image.PullOptions{}
	if hostErr == nil && c.registries != nil {
		found, ok, err := c.registries.For(host)
		if err != nil {
			return err
		}
		if ok {
			auth = found
			if opts.RegistryAuth, err = registry.EncodeAuthConfig(authConfig(found)); err != nil {
				return err
			}
		}
	}
	err := c.pullWith(ctx, ref, opts)
	if hostErr == nil && refusedCredentials(err) {
		return &engine.RegistryAuthError{Host: host, Auth: auth, Err: err}
	}
	return err
}

// authConfig is the Docker API's form of a registry's credentials.
func authConfig(a engine.RegistryAuth) registry.AuthConfig {
	return registry.AuthConfig{Username: a.Username, Password: a.Password, IdentityToken: a.IdentityToken,
		ServerAddress: a.Host}
}

// dockerHubKey is the key Docker Hub's credentials go by.
const dockerHubKey = "https://index.docker.io/v1/"

// buildAuth are the credentials a build's pulls of its base images may
// need: every registry the provider has credentials for, under the keys the
// engine's builder looks them up by.
func (c *Client) buildAuth() (map[string]registry.AuthConfig, error) {
	if c.registries == nil {
		return nil, nil
	}
	out := map[string]registry.AuthConfig{}
	for _, host := range c.registries.Hosts() {
		auth, ok, err := c.registries.For(host)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		key := host
		if host == "docker.io" {
			key = dockerHubKey
		}
		out[key] = authConfig(auth)
	}
	return out, nil
}

func (c *Client) pullWith(ctx context.Context, ref string, opts image.PullOptions) error {
	rc, err := c.api.ImagePull(ctx, ref, opts)
	if err != nil {
		return err
	}
	defer func() { _ = rc.Close() }()
	return jsonmessage.DisplayJSONMessagesStream(rc, io.Discard, 0, false, nil)
}

// refusedCredentials says whether a pull failed for its credentials, from
// the engine's class of the error or the words of the pull's stream.
func refusedCredentials(err error) bool {
	if err == nil {
		return false
	}
	var stream *jsonmessage.JSONError
	if errors.As(err, &stream) {
		return engine.CredentialsRefused(err, stream.Message)
	}
	return engine.CredentialsRefused(err, "")
}
