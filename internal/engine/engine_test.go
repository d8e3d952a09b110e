package engine

import (
	"testing"

	"github.com/docker/docker/client"
)

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

func TestNewRejectsBadHost(t *testing.T) {
	if _, err := New("not a url"); err == nil {
		t.Fatal("New accepted a malformed host")
	}
}
