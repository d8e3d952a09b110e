package acctest

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/docker/docker/client"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine/docker"
)

var (
	enginesOnce sync.Once
	testEngine  *docker.Client
	dockerAPI   *client.Client
	enginesErr  error
)

// connect builds, once, the tests' clients of the engine DOCKER_HOST (or
// the local socket) names. It contacts nothing.
func connect() error {
	enginesOnce.Do(func() {
		if testEngine, enginesErr = docker.New(docker.Config{}); enginesErr != nil {
			return
		}
		dockerAPI = testEngine.DockerAPI()
	})
	if enginesErr != nil {
		return fmt.Errorf("engine client for %s: %w", docker.ResolveHost(""), enginesErr)
	}
	return nil
}

func mustConnect(t *testing.T) {
	t.Helper()
	if err := connect(); err != nil {
		t.Fatal(err)
	}
}

// Engine is the tests' own client of the engine the provider uses, through
// the provider's engine package: to look at sandboxes and run commands in
// them.
func Engine(t *testing.T) *docker.Client {
	t.Helper()
	mustConnect(t)
	return testEngine
}

// Docker is the raw Docker API client of the same engine, for what the
// provider never does: changing the world behind Terraform's back.
func Docker(t *testing.T) *client.Client {
	t.Helper()
	mustConnect(t)
	return dockerAPI
}

// Inspect returns the engine's data for a container, failing the test when
// it cannot.
func Inspect(t *testing.T, idOrName string) engine.Sandbox {
	t.Helper()
	c, err := Engine(t).InspectContainer(context.Background(), idOrName)
	if err != nil {
		t.Fatalf("inspecting %s: %v", idOrName, err)
	}
	return c
}

// ExecOK runs a command in a running container and returns its standard
// output, or an error when it cannot run or exits non-zero. The tests'
// commands only look, or write the same thing again: one whose connection
// the engine dropped (rootless Podman's service did, once in a CI run, under
// the parallel suite's load) is run again, up to twice.
func ExecOK(ctx context.Context, t *testing.T, id string, cmd ...string) (string, error) {
	res, err := Exec(ctx, t, id, cmd...)
	if err != nil {
		return "", err
	}
	if res.ExitCode != 0 {
		return "", fmt.Errorf("%v exited %d: %s", cmd, res.ExitCode, res.Stderr)
	}
	return res.Stdout, nil
}

// Exec runs a probe in the container, as the engine's Exec does, and
// again, up to twice, when the engine dropped the connection before the
// command's end (rootless Podman under load): for a command that may run
// twice, as a test's probes do.
func Exec(ctx context.Context, t *testing.T, id string, cmd ...string) (engine.ExecResult, error) {
	res, err := Engine(t).Exec(ctx, id, cmd...)
	for attempt := 1; attempt < 3 && engine.DroppedAnswer(err); attempt++ {
		t.Logf("exec %v in %s: the engine dropped the connection (%v): running it again", cmd, id, err)
		res, err = Engine(t).Exec(ctx, id, cmd...)
	}
	return res, err
}

// interfaces lists the network interfaces a process inside the container
// sees, from /proc/net/dev.
func interfaces(ctx context.Context, t *testing.T, id string) ([]string, error) {
	out, err := ExecOK(ctx, t, id, "cat", "/proc/net/dev")
	if err != nil {
		return nil, err
	}
	var names []string
	for _, line := range strings.Split(out, "\n") {
		if name, _, ok := strings.Cut(line, ":"); ok {
			names = append(names, strings.TrimSpace(name))
		}
	}
	return names, nil
}

// OnlyLoopbackInside checks from inside a running container that it sees no
// network interface but loopback.
func OnlyLoopbackInside(ctx context.Context, t *testing.T, id string) error {
	names, err := interfaces(ctx, t, id)
	if err != nil {
		return fmt.Errorf("listing interfaces inside: %w", err)
	}
	if len(names) != 1 || names[0] != "lo" {
		return fmt.Errorf("interfaces inside the sandbox are %v, want only [lo]", names)
	}
	return nil
}

// ErrText prints an error that may be nil, for messages about checks that
// failed with or without one.
func ErrText(err error) string {
	if err == nil {
		return "no error"
	}
	return err.Error()
}

// StillRunning returns the command lines of a sandbox's running processes
// that contain any of words, as the engine lists them from the host (never
// by running anything inside the sandbox, whose programs a test may have
// replaced). A sandbox that is gone or stopped runs nothing.
func StillRunning(ctx context.Context, t *testing.T, idOrName string, words ...string) ([]string, error) {
	procs, err := Engine(t).Processes(ctx, idOrName)
	if engine.IsNotFound(err) || engine.IsConflict(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var found []string
	for _, p := range procs {
		for _, w := range words {
			if !p.Zombie && strings.Contains(p.Command, w) {
				found = append(found, p.Command)
				break
			}
		}
	}
	return found, nil
}
