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

func TestNewRefusesTLSItCannotVerify(t *testing.T) {
	t.Setenv(client.EnvTLSVerify, "1")
	t.Setenv(client.EnvOverrideCertPath, "")
	if _, err := New("tcp://engine.example:2376"); err == nil {
		t.Fatal("New accepted DOCKER_TLS_VERIFY for a TCP endpoint it would reach without TLS")
	}
	if _, err := New("unix:///var/run/docker.sock"); err != nil {
		t.Fatalf("TLS variables must not matter for a unix socket: %v", err)
	}
	t.Setenv(client.EnvTLSVerify, "")
	if _, err := New("tcp://engine.example:2375"); err != nil {
		t.Fatalf("plain TCP without TLS variables: %v", err)
	}
}
