package connection

import (
	"os"
	"path/filepath"
	"testing"
)

// The engine's socket on its host, for the expiry warden: as configured,
// else what the address says, else the usual one for the kind of engine.
func TestEngineSocket(t *testing.T) {
	t.Setenv(EnvEngineSocket, "")
	// Opening an ssh:// endpoint looks for the OpenSSH client, which a
	// machine running only the unit tests may not have; nothing runs it here.
	bin := t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, "ssh"), []byte("#!/bin/sh\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin)
	for _, tc := range []struct {
		name, host, configured string
		podman                 bool
		want                   string
	}{
		{"unix", "unix:///run/user/1000/podman/podman.sock", "", true, "/run/user/1000/podman/podman.sock"},
		{"ssh default", "ssh://me@engine.example", "", false, "/var/run/docker.sock"},
		{"ssh socket", "ssh://me@engine.example:2222/run/podman/podman.sock", "", true, "/run/podman/podman.sock"},
		{"tcp docker", "tcp://127.0.0.1:2375", "", false, "/var/run/docker.sock"},
		{"tcp podman", "tcp://127.0.0.1:2375", "", true, "/run/podman/podman.sock"},
		{"configured", "tcp://127.0.0.1:2375", "/srv/engine.sock", false, "/srv/engine.sock"},
	} {
		e, err := Open(Config{Host: tc.host, EngineSocket: tc.configured})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if got := e.EngineSocket(tc.podman); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
	t.Setenv(EnvEngineSocket, "/srv/from-env.sock")
	e, err := Open(Config{Host: "tcp://127.0.0.1:2375"})
	if err != nil {
		t.Fatal(err)
	}
	if got := e.EngineSocket(false); got != "/srv/from-env.sock" {
		t.Errorf("SANDBOX_ENGINE_SOCKET: %q", got)
	}
}
