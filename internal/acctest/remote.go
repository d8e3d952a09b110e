package acctest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine/docker"
)

// Besides the engine under test (DOCKER_HOST), the tests reach stock
// rootful Podman, a TLS engine and an SSH host that `make engines`
// (scripts/engines.sh) starts on loopback and names in these variables.
const (
	envPodmanHost  = "SANDBOX_TEST_PODMAN_HOST"
	envTLSHost     = "SANDBOX_TEST_TLS_HOST"
	envTLSCertPath = "SANDBOX_TEST_TLS_CERT_PATH"
	envSSHHost     = "SANDBOX_TEST_SSH_HOST"
	envSSHDir      = "SANDBOX_TEST_SSH_DIR"
)

func requireEnv(t *testing.T, key string) string {
	t.Helper()
	v := os.Getenv(key)
	if v == "" {
		t.Fatalf("%s is not set: start the test engines with `make engines` and run the suite through "+
			"`make testacc`, which sets it", key)
	}
	return v
}

// TLSEngine is the second Docker engine, which speaks only TLS and
// requires a client certificate.
type TLSEngine struct {
	// Host is its tcp:// address.
	Host string
	// CertPath holds ca.pem, cert.pem and key.pem for it.
	CertPath string
}

// TLS returns the TLS engine; the test fails when it is not running.
func TLS(t *testing.T) TLSEngine {
	t.Helper()
	return TLSEngine{Host: requireEnv(t, envTLSHost), CertPath: requireEnv(t, envTLSCertPath)}
}

// PEM returns one of the engine's client files (ca.pem, cert.pem, key.pem).
func (e TLSEngine) PEM(t *testing.T, file string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(e.CertPath, file))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// Engine is the tests' own client of the TLS engine.
func (e TLSEngine) Engine(t *testing.T) *docker.Client {
	t.Helper()
	c, err := docker.New(docker.Config{Host: e.Host, CertPath: e.CertPath})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// Name returns a unique container name, as Name does, whose containers on
// the TLS engine are removed when the test ends.
func (e TLSEngine) Name(t *testing.T) string {
	t.Helper()
	name := Name(t)
	removeNamedWhenDone(t, e.Engine(t), name)
	return name
}

// removeNamedWhenDone removes the containers named name* on the engine c
// reaches when the test ends.
func removeNamedWhenDone(t *testing.T, c *docker.Client, name string) {
	api := c.DockerAPI()
	t.Cleanup(func() {
		if err := removeNamed(context.Background(), api, name, false); err != nil {
			t.Errorf("cleanup on %s: %v", c.Endpoint(), err)
		}
	})
}

// ExpectNoneOn fails the test when a container named prefix* exists on the
// engine c reaches.
func ExpectNoneOn(t *testing.T, c *docker.Client, prefix, what string) {
	t.Helper()
	list, err := listNamed(context.Background(), c.DockerAPI(), prefix)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 0 {
		t.Fatalf("%s left %d container(s) named %s* on %s", what, len(list), prefix, c.Endpoint())
	}
}

// SSHHost is the OpenSSH server whose far side is the local engine.
type SSHHost struct {
	// Host is its ssh:// address.
	Host string
	// Dir holds its client_key, known_hosts and host_key.pub.
	Dir string
}

// SSH returns the SSH host; the test fails when it is not running.
func SSH(t *testing.T) SSHHost {
	t.Helper()
	return SSHHost{Host: requireEnv(t, envSSHHost), Dir: requireEnv(t, envSSHDir)}
}

// sshOpts are the ssh arguments that reach the host with its client key
// and knownHosts, its own known_hosts when empty.
func (s SSHHost) sshOpts(knownHosts string) []string {
	if knownHosts == "" {
		knownHosts = filepath.Join(s.Dir, "known_hosts")
	}
	return []string{"-i", filepath.Join(s.Dir, "client_key"), "-o", "IdentitiesOnly=yes",
		"-o", "UserKnownHostsFile=" + knownHosts}
}

// Opts are sshOpts as an HCL list, for ssh_opts.
func (s SSHHost) Opts(knownHosts string) string {
	opts := s.sshOpts(knownHosts)
	quoted := make([]string, len(opts))
	for i, o := range opts {
		quoted[i] = strconv.Quote(o)
	}
	return "[" + strings.Join(quoted, ", ") + "]"
}

// KnownHostsLine is a known_hosts line for the host with the given public
// key ("ssh-ed25519 AAAA...").
func (s SSHHost) KnownHostsLine(t *testing.T, publicKey string) string {
	t.Helper()
	u := strings.TrimPrefix(s.Host, "ssh://")
	if at := strings.LastIndex(u, "@"); at >= 0 {
		u = u[at+1:]
	}
	host, port, ok := strings.Cut(u, ":")
	if !ok {
		return fmt.Sprintf("%s %s\n", host, publicKey)
	}
	return fmt.Sprintf("[%s]:%s %s\n", host, port, publicKey)
}

// Engine is the tests' own client of the SSH host's engine.
func (s SSHHost) Engine(t *testing.T) *docker.Client {
	t.Helper()
	c, err := docker.New(docker.Config{Host: s.Host, SSHOpts: s.sshOpts("")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// OtherEngine is a second engine beside the one under test, for tests of
// several engines in one configuration: the TLS engine, or the local
// Docker socket when the TLS engine is the one under test. It returns the
// provider arguments that reach it and the tests' client of it; containers
// named name* on it are removed when the test ends.
func OtherEngine(t *testing.T, name string) (providerArgs string, c *docker.Client) {
	t.Helper()
	tlsEngine := TLS(t)
	if Engine(t).Endpoint() != tlsEngine.Host {
		providerArgs = fmt.Sprintf("  host      = %q\n  cert_path = %q\n", tlsEngine.Host, tlsEngine.CertPath)
		c = tlsEngine.Engine(t)
	} else {
		const local = "unix:///var/run/docker.sock"
		providerArgs = fmt.Sprintf("  host = %q\n", local)
		var err error
		if c, err = docker.New(docker.Config{Host: local}); err != nil {
			t.Fatal(err)
		}
	}
	removeNamedWhenDone(t, c, name)
	return providerArgs, c
}

// Podman is stock rootful Podman, beside whichever engine is under test,
// for the tests of a Docker engine and a Podman one in one configuration:
// its address, and the tests' client of it. Containers named name* on it
// are removed when the test ends.
func Podman(t *testing.T, name string) (host string, c *docker.Client) {
	t.Helper()
	host = requireEnv(t, envPodmanHost)
	c, err := docker.New(docker.Config{Host: host})
	if err != nil {
		t.Fatal(err)
	}
	removeNamedWhenDone(t, c, name)
	return host, c
}
