// Package engine is the only package that talks to the Docker Engine API.
// It holds one API client per provider instance, one file per concern
// (client, containers, ports, images, files, exec, labels, errors), and
// returns the engine's own errors, classified by errdefs and wrapped with
// what was being done.
package engine

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/docker/docker/client"
)

// Config says which engine to reach and how. The provider builds it from
// its configuration.
type Config struct {
	// Host is the engine's address, such as unix:///var/run/docker.sock
	// or tcp://127.0.0.1:2375. Empty means DOCKER_HOST, then the local
	// socket.
	Host string
}

// Client talks to one Docker engine.
type Client struct {
	api      *client.Client
	endpoint string
	health   health
}

// ResolveHost returns the endpoint the provider uses: host when it is set,
// else DOCKER_HOST, else the engine's local unix socket.
func ResolveHost(host string) string {
	if host != "" {
		return host
	}
	if env := os.Getenv(client.EnvOverrideHost); env != "" {
		return env
	}
	return client.DefaultDockerHost
}

// New builds a client for the engine cfg names. It negotiates the API
// version with the engine on first use and does not contact the engine
// itself: call Ping for that.
func New(cfg Config) (*Client, error) {
	endpoint := ResolveHost(cfg.Host)
	if err := refuseUnsupportedTLS(endpoint); err != nil {
		return nil, err
	}
	api, err := client.NewClientWithOpts(
		client.WithHost(endpoint),
		client.WithAPIVersionNegotiation(),
		client.WithUserAgent("terraform-provider-sandbox"),
	)
	if err != nil {
		return nil, fmt.Errorf("invalid Docker engine endpoint %q: %w", endpoint, err)
	}
	return &Client{api: api, endpoint: endpoint}, nil
}

// refuseUnsupportedTLS fails when the environment asks for TLS to a TCP
// endpoint. This version speaks plain HTTP only, and it never connects
// without verifying the engine's certificate, so it refuses rather than
// downgrade.
func refuseUnsupportedTLS(endpoint string) error {
	if !strings.HasPrefix(endpoint, "tcp://") {
		return nil
	}
	for _, key := range []string{client.EnvTLSVerify, client.EnvOverrideCertPath} {
		if os.Getenv(key) != "" {
			return fmt.Errorf("%s is set, asking for TLS to %s, which this provider version does not support; "+
				"it will not connect to an engine without verifying its certificate. Reach the engine over "+
				"its unix socket or an SSH tunnel, or unset %s and %s for a plain TCP endpoint you trust",
				key, endpoint, client.EnvTLSVerify, client.EnvOverrideCertPath)
		}
	}
	return nil
}

// Endpoint is the address of the engine this client talks to.
func (c *Client) Endpoint() string { return c.endpoint }

// Close releases the client's connections.
func (c *Client) Close() error { return c.api.Close() }

// Ping checks that the engine answers and negotiates the API version.
func (c *Client) Ping(ctx context.Context) error {
	return c.within(ctx, "a ping", QuickCallTimeout, func(ctx context.Context) error {
		_, err := c.api.Ping(ctx)
		return err
	})
}
