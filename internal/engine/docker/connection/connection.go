// Package connection is how the provider reaches an engine, apart from
// what it asks of it: which endpoint a configuration names (the host
// argument, a docker CLI context, the Docker environment variables), the
// verified TLS of a tcp:// host, the one SSH tunnel of an ssh:// host, the
// bounds on dialling and handshakes, and what a failed connection says
// about its cause. The Docker backend (package docker) builds its API
// client on an Endpoint and holds every operation.
package connection

import (
	"cmp"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
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
	// EngineSocket is the path of the engine's socket on the engine's
	// host, which the expiry warden mounts (EngineSocket). Empty means
	// SANDBOX_ENGINE_SOCKET, then what the endpoint says.
	EngineSocket string
	// Version is the provider's, sent to the engine in the User-Agent
	// header (terraform-provider-sandbox/0.1.0), which its logs show.
	Version string
}

// Connection settings shared by every kind of endpoint: a bounded dial and
// handshake (a black-holed address fails instead of hanging), and enough
// idle connections kept for Terraform's parallelism, so that TLS and SSH
// connections are reused rather than opened again for each call.
const (
	DialTimeout      = 10 * time.Second
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

// Endpoint is a resolved engine address with the transport that reaches
// it. It contacts nothing until a request is made through it.
type Endpoint struct {
	address   string
	scheme    string
	tls       *tlsMaterial
	tlsConf   *tls.Config
	ssh       *sshTunnel
	transport *http.Transport
	// socket is the engine's socket on its host, as configured.
	socket string
}

// Open resolves the engine cfg names and prepares its transport: the TLS
// configuration of a tcp:// host, the tunnel of an ssh:// host (whose ssh
// client starts with the first request). It refuses settings that cannot
// apply to the endpoint.
func Open(cfg Config) (*Endpoint, error) {
	target, err := resolve(cfg)
	if err != nil {
		return nil, err
	}
	u, err := url.Parse(target.host)
	if err != nil || u.Scheme == "" {
		return nil, fmt.Errorf("invalid Docker engine endpoint %q: write unix:///path/to/engine.sock, "+
			"tcp://host:port or ssh://[user@]host[:port]", target.host)
	}
	if u.Scheme != "ssh" && len(cfg.SSHOpts) > 0 {
		return nil, fmt.Errorf("ssh_opts apply to ssh:// hosts only, and the host is %s", target.host)
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
	e := &Endpoint{address: target.host, scheme: u.Scheme, tls: material, transport: &http.Transport{
		TLSHandshakeTimeout: handshakeTimeout,
		MaxIdleConns:        idleConnections,
		MaxIdleConnsPerHost: idleConnections,
		IdleConnTimeout:     idleTimeout,
	}, socket: cmp.Or(cfg.EngineSocket, os.Getenv(EnvEngineSocket))}
	switch u.Scheme {
	case "ssh":
		target, err := parseSSH(u)
		if err != nil {
			return nil, err
		}
		if e.ssh, err = sshTunnelFor(target, cfg.SSHOpts); err != nil {
			return nil, err
		}
	case "tcp":
		if material != nil {
			if e.tlsConf, err = material.config(); err != nil {
				return nil, err
			}
			e.transport.TLSClientConfig = e.tlsConf
		}
	}
	return e, nil
}

// EnvEngineSocket names the variable that gives Config.EngineSocket.
const EnvEngineSocket = "SANDBOX_ENGINE_SOCKET"

// EngineSocket is the path of the engine's socket on the engine's host, for
// a container there to mount: as configured; else a unix:// address's
// path, or the remote socket an ssh:// address forwards to; else the
// usual one, Podman's (rootful) or Docker's.
func (e *Endpoint) EngineSocket(podman bool) string {
	switch {
	case e.socket != "":
		return e.socket
	case e.scheme == "unix":
		return strings.TrimPrefix(e.address, "unix://")
	case e.ssh != nil:
		return e.ssh.target.socket
	case podman:
		return "/run/podman/podman.sock"
	}
	return defaultRemoteSocket
}

// Address is the engine's address, as errors and messages name it.
func (e *Endpoint) Address() string { return e.address }

// Transport is the HTTP transport to the engine, with the TLS
// configuration of a tcp:// host and the connection bounds.
func (e *Endpoint) Transport() *http.Transport { return e.transport }

// ClientHost is the host the API client is given: the address itself, or
// for ssh:// a placeholder, the tunnel's dialer choosing where to connect.
func (e *Endpoint) ClientHost() string {
	if e.ssh != nil {
		return "http://" + client.DummyHost
	}
	return e.address
}

// Dialer is how connections are opened, or nil where the API client dials
// the address itself (a unix socket): through the SSH tunnel, or over TCP
// within DialTimeout.
func (e *Endpoint) Dialer() func(ctx context.Context, network, addr string) (net.Conn, error) {
	switch {
	case e.ssh != nil:
		return e.ssh.dial
	case e.scheme == "tcp":
		return (&net.Dialer{Timeout: DialTimeout}).DialContext
	}
	return nil
}

// URL is the scheme and host that requests to the engine take, for a proxy
// placed in front of it.
func (e *Endpoint) URL() (scheme, host string) {
	scheme, host = "http", client.DummyHost
	if e.tlsConf != nil {
		scheme = "https"
	}
	if u, err := url.Parse(e.address); err == nil && u.Scheme == "tcp" {
		host = u.Host
	}
	return scheme, host
}

// Error is a failure to reach an engine, with what went wrong in the
// connection (TLS, SSH) and the fix when the provider can tell.
type Error struct {
	Endpoint string
	Err      error
	Advice   string
}

func (e *Error) Error() string {
	if e.Advice == "" {
		return e.Err.Error()
	}
	return e.Err.Error() + "\n\n" + e.Advice
}

func (e *Error) Unwrap() error { return e.Err }

// Explain adds to a failed first request (a ping) what the connection says
// about it: an *SSHError as it is, anything else as an *Error.
func (e *Endpoint) Explain(ctx context.Context, err error) error {
	var advice string
	u, _ := url.Parse(e.address)
	switch {
	case IsSSH(err):
		return err
	case e.ssh != nil:
		if out := e.ssh.output(); out != "" {
			advice = "The ssh client reported:\n" + out + "\nCheck that the engine's socket is " +
				e.ssh.target.socket + " on that host (name another one in the URL's path, for example " +
				"ssh://user@host/run/podman/podman.sock) and that the remote user may open it."
		}
	case e.tls != nil:
		// The HTTP client flattens some TLS failures into text; a
		// handshake of its own shows the failure itself.
		if advice = explainTLS(err, e.tls, u.Hostname()); advice == "" {
			advice = explainTLS(handshake(ctx, u.Host, e.tlsConf), e.tls, u.Hostname())
		}
	case u.Scheme == "tcp" && !errors.Is(err, context.Canceled) && requiresTLS(ctx, u.Host):
		advice = "The engine at " + e.address + " speaks TLS and the provider was given no TLS settings. " +
			"Give it the engine's CA and a client certificate: cert_path (a directory with ca.pem, " +
			"cert.pem and key.pem), or ca_pem, cert_pem and key_pem, or DOCKER_CERT_PATH with " +
			"DOCKER_TLS_VERIFY=1."
	}
	return &Error{Endpoint: e.address, Err: err, Advice: advice}
}
