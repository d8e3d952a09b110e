package acctest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/network"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
)

// Besides the engine under test (DOCKER_HOST), the connection tests reach a
// TLS engine and an SSH host that `make engines` (scripts/engines.sh) starts
// on loopback and names in these variables.
const (
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
			"`make test`, which sets it", key)
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
func (e TLSEngine) Engine(t *testing.T) *engine.Client {
	t.Helper()
	c, err := engine.New(engine.Config{Host: e.Host, CertPath: e.CertPath})
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
func removeNamedWhenDone(t *testing.T, c *engine.Client, name string) {
	api := c.DockerAPI()
	t.Cleanup(func() {
		if err := removeNamed(context.Background(), api, name, false); err != nil {
			t.Errorf("cleanup on %s: %v", c.Endpoint(), err)
		}
	})
}

// ExpectNoneOn fails the test when a container named prefix* exists on the
// engine c reaches.
func ExpectNoneOn(t *testing.T, c *engine.Client, prefix, what string) {
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
func (s SSHHost) Engine(t *testing.T) *engine.Client {
	t.Helper()
	c, err := engine.New(engine.Config{Host: s.Host, SSHOpts: s.sshOpts("")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// Phrase matches words in Terraform's output however its line wrapping
// split them, anywhere in a multi-line error.
func Phrase(words string) *regexp.Regexp {
	return regexp.MustCompile(`(?s)` + strings.Join(strings.Fields(regexp.QuoteMeta(words)), `\s+`))
}

// Kind is the kind of the engine under test.
func Kind(t *testing.T) engine.Kind {
	t.Helper()
	return Engine(t).Kind(context.Background())
}

// DefaultNetwork is the network a container joins when it names none:
// "bridge" on Docker, "podman" on Podman.
func DefaultNetwork(t *testing.T) string {
	t.Helper()
	if Kind(t) == engine.Podman {
		return "podman"
	}
	return "bridge"
}

// InPlaceLimits is the plan action a limit change takes on the engine
// under test: an update in place, or a replacement where the engine cannot
// change limits (Podman).
func InPlaceLimits(t *testing.T) plancheck.ResourceActionType {
	t.Helper()
	if Engine(t).CanUpdateLimits(context.Background()) {
		return plancheck.ResourceActionUpdate
	}
	return plancheck.ResourceActionDestroyBeforeCreate
}

// UpdateLimits changes a container's limits behind Terraform's back, as
// `docker update` does, or `podman update` (Podman's own API: its
// Docker-compatible one has no update) on Podman, and reports whether the
// engine's inspect data shows the change: Podman 4 changes the cgroup but
// not what it reports, so that drift is invisible there (the docs say so).
func UpdateLimits(ctx context.Context, t *testing.T, idOrName string, memory, pids int64, nanoCPUs int64) (visible bool, err error) {
	t.Helper()
	if Kind(t) != engine.Podman {
		_, err := Docker(t).ContainerUpdate(ctx, idOrName, container.UpdateConfig{Resources: container.Resources{
			Memory: memory, MemorySwap: memory, NanoCPUs: nanoCPUs, PidsLimit: &pids,
		}})
		return true, err
	}
	// runtime-spec LinuxResources, as `podman update` sends them.
	resources := map[string]any{
		"memory": map[string]any{"limit": memory, "swap": memory},
		"pids":   map[string]any{"limit": pids},
	}
	if nanoCPUs > 0 {
		resources["cpu"] = map[string]any{"quota": nanoCPUs / 10_000, "period": 100_000}
	}
	body, err := json.Marshal(resources)
	if err != nil {
		return false, err
	}
	transport, scheme, host := Engine(t).Forwarder()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost,
		fmt.Sprintf("%s://%s/v4.0.0/libpod/containers/%s/update", scheme, host, url.PathEscape(idOrName)),
		bytes.NewReader(body))
	if err != nil {
		return false, err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := transport.RoundTrip(req)
	if err != nil {
		return false, err
	}
	defer func() { _ = resp.Body.Close() }()
	if resp.StatusCode/100 != 2 {
		msg, _ := io.ReadAll(resp.Body)
		return false, fmt.Errorf("podman update: %s: %s", resp.Status, msg)
	}
	got, err := Engine(t).InspectContainer(ctx, idOrName)
	if err != nil {
		return false, err
	}
	return got.HostConfig.Memory == memory, nil
}

// Reattach moves an isolated container onto the engine's default network
// behind Terraform's back, and reports whether the engine allowed it.
// Docker does, and still reports network mode "none"; Podman refuses to
// attach a container whose network mode is "none" to any network, so that
// breach cannot happen there (the docs say so), and the test fails if it
// ever allows it.
func Reattach(ctx context.Context, t *testing.T, name string) bool {
	t.Helper()
	api := Docker(t)
	if Kind(t) == engine.Podman {
		if err := api.NetworkConnect(ctx, "podman", name, &network.EndpointSettings{}); err == nil {
			t.Fatalf("Podman attached the isolated sandbox %s to its network, which the docs say it refuses", name)
		}
		return false
	}
	if err := api.NetworkDisconnect(ctx, "none", name, false); err != nil {
		t.Fatalf("out-of-band change: %v", err)
	}
	if err := api.NetworkConnect(ctx, "bridge", name, &network.EndpointSettings{}); err != nil {
		t.Fatalf("out-of-band change: %v", err)
	}
	return true
}

// NoCapabilities reports whether the engine shows a container without any
// capability: cap_drop ALL as Docker reports it, or every default dropped
// as Podman does.
func NoCapabilities(h *container.HostConfig) bool {
	return len(engine.EffectiveCapabilities(h.CapAdd, h.CapDrop)) == 0
}

// OtherEngine is a second engine beside the one under test, for tests of
// several engines in one configuration: the TLS engine, or the local
// Docker socket when the TLS engine is the one under test. It returns the
// provider arguments that reach it and the tests' client of it; containers
// named name* on it are removed when the test ends.
func OtherEngine(t *testing.T, name string) (providerArgs string, c *engine.Client) {
	t.Helper()
	tlsEngine := TLS(t)
	if Engine(t).Endpoint() != tlsEngine.Host {
		providerArgs = fmt.Sprintf("  host      = %q\n  cert_path = %q\n", tlsEngine.Host, tlsEngine.CertPath)
		c = tlsEngine.Engine(t)
	} else {
		const local = "unix:///var/run/docker.sock"
		providerArgs = fmt.Sprintf("  host = %q\n", local)
		var err error
		if c, err = engine.New(engine.Config{Host: local}); err != nil {
			t.Fatal(err)
		}
	}
	removeNamedWhenDone(t, c, name)
	return providerArgs, c
}
