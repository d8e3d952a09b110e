// Package engine is the only package that talks to the Docker Engine API.
// It holds one API client per provider instance, one file per concern
// (client, containers, ports, images, files, exec, labels, errors), and
// returns the engine's own errors, classified by errdefs and wrapped with
// what was being done.
package engine

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"sync"
	"time"

	"github.com/docker/docker/client"
)

// Config says which engine to reach and how. The provider builds it from
// its configuration; what it leaves empty comes from the Docker
// environment variables, as the docker CLI reads them.
type Config struct {
	// Host is the engine's address: unix:///path, tcp://host:port or
	// ssh://[user@]host[:port][/remote/socket]. Empty means DOCKER_HOST,
	// then the local socket.
	Host string
	// CertPath is a directory holding ca.pem, cert.pem and key.pem for a
	// tcp:// host. Empty means DOCKER_CERT_PATH, or ~/.docker when
	// DOCKER_TLS_VERIFY is set.
	CertPath string
	// CAPEM, CertPEM and KeyPEM give the same material inline.
	CAPEM, CertPEM, KeyPEM string
	// SSHOpts are extra arguments for the ssh client of an ssh:// host.
	SSHOpts []string
	// Context names a docker CLI context (`docker context ls`) instead of
	// Host; empty means DOCKER_CONTEXT, then DOCKER_HOST, then the docker
	// CLI's current context.
	Context string
	// Version is the provider's, sent to the engine in the User-Agent
	// header (terraform-provider-sandbox/0.1.0), which its logs show.
	Version string
}

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
	endpoint string
	health   health
	tls      *tlsMaterial
	tlsConf  *tls.Config
	ssh      *sshTunnel

	kindMu    sync.Mutex
	kindKnown bool
	kind      Kind

	factsMu sync.Mutex
	facts   *Facts
}

// Connection settings shared by every kind of endpoint: a bounded dial and
// handshake (a black-holed address fails instead of hanging), and enough
// idle connections kept for Terraform's parallelism, so that TLS and SSH
// connections are reused rather than opened again for each call.
const (
	dialTimeout      = 10 * time.Second
	handshakeTimeout = 10 * time.Second
	idleConnections  = 64
	idleTimeout      = 90 * time.Second
)

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
// itself (for ssh:// hosts, the ssh client starts with the first call):
// call Ping for that.
func New(cfg Config) (*Client, error) {
	target, err := resolve(cfg)
	if err != nil {
		return nil, err
	}
	endpoint := target.host
	u, err := url.Parse(endpoint)
	if err != nil || u.Scheme == "" {
		return nil, fmt.Errorf("invalid Docker engine endpoint %q: write unix:///path/to/engine.sock, "+
			"tcp://host:port or ssh://[user@]host[:port]", endpoint)
	}
	if u.Scheme != "ssh" && len(cfg.SSHOpts) > 0 {
		return nil, fmt.Errorf("ssh_opts apply to ssh:// hosts only, and the host is %s", endpoint)
	}
	material, err := tlsFor(cfg, u.Scheme)
	if err != nil {
		return nil, err
	}
	if target.context != "" {
		// A context brings its own TLS material, and the docker CLI
		// ignores the TLS environment variables for it.
		if material != nil && (cfg.CertPath != "" || cfg.CAPEM != "" || cfg.CertPEM != "" || cfg.KeyPEM != "") {
			return nil, fmt.Errorf("docker context %q brings its own TLS material: remove cert_path, ca_pem, "+
				"cert_pem and key_pem, or give host instead of the context", target.context)
		}
		material = target.tls
	}
	transport := &http.Transport{
		TLSHandshakeTimeout: handshakeTimeout,
		MaxIdleConns:        idleConnections,
		MaxIdleConnsPerHost: idleConnections,
		IdleConnTimeout:     idleTimeout,
	}
	c := &Client{endpoint: endpoint, tls: material}
	opts := []client.Opt{
		client.WithHTTPClient(&http.Client{Transport: transport, CheckRedirect: client.CheckRedirect}),
		client.WithAPIVersionNegotiation(),
		client.WithUserAgent(userAgent(cfg.Version)),
	}
	switch u.Scheme {
	case "ssh":
		target, err := parseSSH(u)
		if err != nil {
			return nil, err
		}
		if c.ssh, err = sshTunnelFor(target, cfg.SSHOpts); err != nil {
			return nil, err
		}
		opts = append(opts, client.WithHost("http://"+client.DummyHost), client.WithDialContext(c.ssh.dial))
	case "tcp":
		if material != nil {
			if c.tlsConf, err = material.config(); err != nil {
				return nil, err
			}
			transport.TLSClientConfig = c.tlsConf
		}
		opts = append(opts, client.WithHost(endpoint),
			client.WithDialContext((&net.Dialer{Timeout: dialTimeout}).DialContext))
	default:
		opts = append(opts, client.WithHost(endpoint))
	}
	if c.api, err = client.NewClientWithOpts(opts...); err != nil {
		return nil, fmt.Errorf("invalid Docker engine endpoint %q: %w", endpoint, err)
	}
	return c, nil
}

// Endpoint is the address of the engine this client talks to.
func (c *Client) Endpoint() string { return c.endpoint }

// DockerAPI is the Docker SDK client underneath, for tests that change the
// world behind the provider's back. The provider itself never uses it
// outside this package.
func (c *Client) DockerAPI() *client.Client { return c.api }

// Forwarder returns the client's HTTP transport to the engine (TLS or the
// SSH tunnel included) and the scheme and host its requests take, for tests
// that put a proxy in front of the engine.
func (c *Client) Forwarder() (rt http.RoundTripper, scheme, host string) {
	scheme, host = "http", client.DummyHost
	if c.tlsConf != nil {
		scheme = "https"
	}
	if u, err := url.Parse(c.endpoint); err == nil && u.Scheme == "tcp" {
		host = u.Host
	}
	return c.api.HTTPClient().Transport, scheme, host
}

// Close releases the client's connections. An SSH tunnel stays for other
// clients of the same engine in this process, and ends with it.
func (c *Client) Close() error { return c.api.Close() }

// Ping checks that the engine answers and negotiates the API version.
func (c *Client) Ping(ctx context.Context) error {
	err := c.within(ctx, "a ping", QuickCallTimeout, func(ctx context.Context) error {
		_, err := c.api.Ping(ctx)
		return err
	})
	if err == nil {
		c.Kind(ctx)
		return nil
	}
	return c.explain(ctx, err)
}

// ConnectionError is a failure to reach an engine, with what went wrong in
// the connection (TLS, SSH) and the fix when the provider can tell.
type ConnectionError struct {
	Endpoint string
	Err      error
	Advice   string
}

func (e *ConnectionError) Error() string {
	if e.Advice == "" {
		return e.Err.Error()
	}
	return e.Err.Error() + "\n\n" + e.Advice
}

func (e *ConnectionError) Unwrap() error { return e.Err }

// explain adds to a failed ping what the connection says about it.
func (c *Client) explain(ctx context.Context, err error) error {
	var advice string
	u, _ := url.Parse(c.endpoint)
	switch {
	case IsSSH(err):
		return err
	case c.ssh != nil:
		if out := c.ssh.output(); out != "" {
			advice = "The ssh client reported:\n" + out + "\nCheck that the engine's socket is " +
				c.ssh.target.socket + " on that host (name another one in the URL's path, for example " +
				"ssh://user@host/run/podman/podman.sock) and that the remote user may open it."
		}
	case c.tls != nil:
		// The HTTP client flattens some TLS failures into text; a
		// handshake of its own shows the failure itself.
		if advice = explainTLS(err, c.tls, u.Hostname()); advice == "" {
			advice = explainTLS(handshake(ctx, u.Host, c.tlsConf), c.tls, u.Hostname())
		}
	case u.Scheme == "tcp" && !errors.Is(err, context.Canceled) && requiresTLS(ctx, u.Host):
		advice = "The engine at " + c.endpoint + " speaks TLS and the provider was given no TLS settings. " +
			"Give it the engine's CA and a client certificate: cert_path (a directory with ca.pem, " +
			"cert.pem and key.pem), or ca_pem, cert_pem and key_pem, or DOCKER_CERT_PATH with " +
			"DOCKER_TLS_VERIFY=1."
	}
	return &ConnectionError{Endpoint: c.endpoint, Err: err, Advice: advice}
}
