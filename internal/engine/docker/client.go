// Package docker is the backend for the Docker engine and for Podman
// through its Docker-compatible API: the only package that talks to the
// Docker Engine API. It holds one API client per provider instance and
// every operation, and returns the engine's own errors, classified by
// errdefs and wrapped with what was being done. How the client reaches the
// engine (endpoints, docker CLI contexts, TLS, the SSH tunnel) is package
// connection.
package docker

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"

	"github.com/docker/docker/client"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine/docker/connection"
)

// Config says which engine to reach and how (package connection).
type Config = connection.Config

// ConnectionError is a failure to reach an engine, with the fix when the
// provider can tell.
type ConnectionError = connection.Error

// IsSSH reports whether err is the ssh client failing to reach an engine.
func IsSSH(err error) bool { return connection.IsSSH(err) }

// ResolveHost returns the endpoint the provider uses: host when it is set,
// else DOCKER_HOST, else the engine's local unix socket.
func ResolveHost(host string) string { return connection.ResolveHost(host) }

// CloseTunnels stops this process's ssh clients, for the provider's exit.
func CloseTunnels() { connection.CloseTunnels() }

// userAgent names the provider, and its version when known.
func userAgent(version string) string {
	if version == "" {
		return "terraform-provider-sandbox"
	}
	return "terraform-provider-sandbox/" + version
}

// Client talks to one Docker engine.
type Client struct {
	api      *client.Client
	conn     *connection.Endpoint
	endpoint string
	health   health

	kindMu    sync.Mutex
	kindKnown bool
	kind      Kind

	factsMu sync.Mutex
	facts   *engine.Facts
	// podmanMu guards podman, what Podman's own API said about itself.
	podmanMu sync.Mutex
	podman   *podmanInfo

	// registries are the provider's registry credentials (UseRegistries).
	registries engine.Registries

	// wardenMu lets one of the provider's calls at a time find or make
	// the engine's expiry warden (warden.go), whose ID it then keeps.
	wardenMu sync.Mutex
	wardenID string
}

// New builds a client for the engine cfg names. It negotiates the API
// version with the engine on first use and does not contact the engine
// itself (for ssh:// hosts, the ssh client starts with the first call):
// call Ping for that.
func New(cfg Config) (*Client, error) {
	conn, err := connection.Open(cfg)
	if err != nil {
		return nil, err
	}
	opts := []client.Opt{
		client.WithHTTPClient(&http.Client{Transport: conn.Transport(), CheckRedirect: client.CheckRedirect}),
		client.WithAPIVersionNegotiation(),
		client.WithUserAgent(userAgent(cfg.Version)),
		client.WithHost(conn.ClientHost()),
	}
	if dial := conn.Dialer(); dial != nil {
		opts = append(opts, client.WithDialContext(dial))
	}
	c := &Client{conn: conn, endpoint: conn.Address()}
	if c.api, err = client.NewClientWithOpts(opts...); err != nil {
		return nil, fmt.Errorf("invalid Docker engine endpoint %q: %w", c.endpoint, err)
	}
	return c, nil
}

// Endpoint is the address of the engine this client talks to.
func (c *Client) Endpoint() string { return c.endpoint }

// Where names the engine in messages.
func (c *Client) Where() string { return "the Docker engine at " + c.endpoint }

// ByHand gives the docker CLI's commands for the engine.
func (c *Client) ByHand() engine.HandCommands { return dockerCLI(c.endpoint) }

// dockerCLI gives the docker CLI's commands for the engine at an endpoint.
type dockerCLI string

func (d dockerCLI) Remove(id string) string { return fmt.Sprintf("docker -H %s rm -f %s", d, id) }

func (d dockerCLI) RemoveLabelled(key, value string) string {
	return fmt.Sprintf("docker -H %s ps -aq --filter label=%s=%s | xargs -r docker -H %s rm -f", d, key, value, d)
}

func (d dockerCLI) Logs(id string) string { return fmt.Sprintf("docker -H %s logs %s", d, id) }

func (d dockerCLI) RemoveVolume(name string) string {
	return fmt.Sprintf("docker -H %s volume rm %s", d, name)
}

func (d dockerCLI) RemoveHelpers(volume, token string) string {
	return d.RemoveLabelled(engine.LabelCreateToken, token) + "\n" + fmt.Sprintf(
		"docker -H %s image ls -q --filter label=%s=%s | xargs -r docker -H %s rmi -f", d, engine.LabelHelperVolume, volume, d)
}

// LocalSocket is the path of the unix socket the provider reaches the
// engine through, and whether it does: then the engine runs on this
// machine, and its host's paths are this machine's.
func (c *Client) LocalSocket() (string, bool) {
	return strings.CutPrefix(c.endpoint, "unix://")
}

// DockerAPI is the Docker SDK client underneath, for tests that change the
// world behind the provider's back. The provider itself never uses it
// outside this package.
func (c *Client) DockerAPI() *client.Client { return c.api }

// Forwarder returns the client's HTTP transport to the engine (TLS or the
// SSH tunnel included) and the scheme and host its requests take, for tests
// that put a proxy in front of the engine.
func (c *Client) Forwarder() (rt http.RoundTripper, scheme, host string) {
	scheme, host = c.conn.URL()
	return c.api.HTTPClient().Transport, scheme, host
}

// get sends a GET for path to the engine through the client's connection,
// for what the Docker SDK does not ask: Podman's own API, a ping's
// headers. The caller closes the body.
func (c *Client) get(ctx context.Context, path string) (*http.Response, error) {
	return c.send(ctx, http.MethodGet, path)
}

// send sends a request with method for path, as get does.
func (c *Client) send(ctx context.Context, method, path string) (*http.Response, error) {
	scheme, host := c.conn.URL()
	req, err := http.NewRequestWithContext(ctx, method, scheme+"://"+host+path, nil)
	if err != nil {
		return nil, err
	}
	return c.api.HTTPClient().Do(req)
}

// Close releases the client's connections. An SSH tunnel stays for other
// clients of the same engine in this process, and ends with it.
func (c *Client) Close() error { return c.api.Close() }

// Ping checks that the engine answers and negotiates the API version.
func (c *Client) Ping(ctx context.Context) error {
	err := c.within(ctx, "a ping", engine.QuickCallTimeout, func(ctx context.Context) error {
		_, err := c.api.Ping(ctx)
		return err
	})
	if err == nil {
		c.Kind(ctx)
		return nil
	}
	return c.conn.Explain(ctx, err)
}
