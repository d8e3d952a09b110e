package connection

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	clicontext "github.com/docker/cli/cli/context"
	"github.com/docker/cli/cli/context/store"
	"github.com/docker/docker/client"
)

// saveContext writes a docker CLI context with the CLI's own store, as
// `docker context create` does.
func saveContext(t *testing.T, name, host string, skipVerify bool, tlsFiles map[string][]byte) {
	t.Helper()
	s := store.New(filepath.Join(configDir(), "contexts"), store.NewConfig(
		func() any { return &map[string]any{} },
		store.EndpointTypeGetter("docker", func() any { return &clicontext.EndpointMetaBase{} }),
	))
	err := s.CreateOrUpdate(store.Metadata{Name: name, Metadata: map[string]any{},
		Endpoints: map[string]any{"docker": clicontext.EndpointMetaBase{Host: host, SkipTLSVerify: skipVerify}}})
	if err != nil {
		t.Fatal(err)
	}
	if tlsFiles != nil {
		if err := s.ResetEndpointTLSMaterial(name, "docker", &store.EndpointTLSData{Files: tlsFiles}); err != nil {
			t.Fatal(err)
		}
	}
}

func TestDockerContexts(t *testing.T) {
	noDockerEnv(t)
	t.Setenv(envContext, "")
	t.Setenv("DOCKER_CONFIG", t.TempDir())
	p := newTestPKI(t, []string{"127.0.0.1"}, time.Now().Add(time.Hour))
	host := fakeEngine(t, p)
	saveContext(t, "remote", host, false, map[string][]byte{caFile: p.caPEM, certFile: p.clientCert, keyFile: p.clientKey})
	saveContext(t, "careless", host, true, nil)

	if err := ping(t, Config{Context: "remote"}); err != nil {
		t.Fatalf("context argument: %v", err)
	}
	t.Run("DOCKER_CONTEXT", func(t *testing.T) {
		t.Setenv(envContext, "remote")
		t.Setenv(client.EnvOverrideHost, "unix:///nonexistent.sock")
		if err := ping(t, Config{}); err != nil {
			t.Fatalf("DOCKER_CONTEXT must win over DOCKER_HOST, as for the docker CLI: %v", err)
		}
	})
	t.Run("current context, unless DOCKER_HOST", func(t *testing.T) {
		if err := os.WriteFile(filepath.Join(configDir(), "config.json"), []byte(`{"currentContext":"remote"}`), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := ping(t, Config{}); err != nil {
			t.Fatalf("current context: %v", err)
		}
		t.Setenv(client.EnvOverrideHost, "unix:///nonexistent.sock")
		if got, _ := resolve(Config{}); got.host != "unix:///nonexistent.sock" {
			t.Fatalf("DOCKER_HOST must win over the current context: %+v", got)
		}
	})
	for _, c := range []struct {
		name string
		cfg  Config
		want string
	}{
		{"skips verification", Config{Context: "careless"}, "never does"},
		{"unknown", Config{Context: "nowhere"}, "docker context ls"},
		{"with host", Config{Context: "remote", Host: host}, "exclude each other"},
		{"with TLS settings", Config{Context: "remote", CAPEM: string(p.caPEM)}, "brings its own TLS material"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if _, err := Open(c.cfg); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want one saying %q", err, c.want)
			}
		})
	}
}

func TestResolveHost(t *testing.T) {
	t.Setenv(client.EnvOverrideHost, "")
	if got := ResolveHost(""); got != client.DefaultDockerHost {
		t.Errorf("no host, no DOCKER_HOST: %q, want %q", got, client.DefaultDockerHost)
	}
	t.Setenv(client.EnvOverrideHost, "tcp://engine.example:2375")
	if got := ResolveHost(""); got != "tcp://engine.example:2375" {
		t.Errorf("DOCKER_HOST: %q", got)
	}
	if got := ResolveHost("unix:///run/other.sock"); got != "unix:///run/other.sock" {
		t.Errorf("explicit host: %q", got)
	}
}
