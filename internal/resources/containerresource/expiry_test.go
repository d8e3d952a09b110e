package containerresource_test

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/docker/docker/api/types/container"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/acctest"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
)

// hostileCommand ignores every signal it can, and forks a child that does
// too: only what the sandbox cannot catch ends it.
const hostileCommand = `  command = ["sh", "-c", "trap '' TERM INT HUP QUIT USR1 USR2; ` +
	`(trap '' TERM INT HUP; while :; do sleep 1; done) & while :; do sleep 1; done"]`

// A sandbox given a two-minute expiry on a Docker engine or Podman, whose
// code ignores every signal it can and forks, is stopped by the provider's
// warden within ten seconds of its expiry while no Terraform runs, and
// again when started by hand after it; its workspace is kept; the next
// plan reads it as expired, says so and changes nothing; data
// "sandbox_containers" and terraform query find it with expired = true; a renewal starts it
// again in place, and the warden then leaves it running; put to sleep, it
// is not listed as expired, its renewal read; an expiry removed is removed
// from the warden. An expiry in the
// past is refused at plan.
func TestAccContainer_expiry(t *testing.T) {
	// Two minutes of waiting, beside the other parallel tests.
	t.Parallel()
	name := acctest.Name(t)
	configIn := func(state, expiry string) string {
		return stateConfig(name, state, hostileCommand+"\n  "+expiry) + `
data "sandbox_containers" "expired" {
  name_prefix = "` + name + `"
  expired     = true
  depends_on  = [sandbox_container.test]
}
output "expired" { value = [for c in data.sandbox_containers.expired.containers : c.name] }
`
	}
	config := func(expiry string) string { return configIn("running", expiry) }
	tf := acctest.NewCLI(t, config(`expires_at = "2001-01-01T00:00:00Z"`))
	acctest.RemoveWarden(t)
	t.Cleanup(func() { tf.Run("destroy", "-auto-approve") })
	if out, err := tf.Try("plan"); err == nil || !strings.Contains(acctest.Flatten(out), "Expiry in the past") {
		t.Fatalf("an expiry in the past was not refused at plan (%v):\n%s", err, out)
	}

	tf.SetConfig(config(`expires_after = "2m"`))
	tf.Run("apply", "-auto-approve")
	first := acctest.Inspect(t, name)
	expiresAt := engine.ExpiryOf(first.Config.Labels)
	created, _ := time.Parse(time.RFC3339, first.Config.Labels[engine.LabelCreatedAt])
	if expiresAt.Sub(created) != 2*time.Minute {
		t.Fatalf("the sandbox was made at %s to expire at %s, not two minutes later", created, expiresAt)
	}
	ctx := context.Background()
	if _, err := acctest.ExecOK(ctx, t, first.ID, "sh", "-c", "echo kept-past-expiry > /kept"); err != nil {
		t.Fatal(err)
	}

	// No Terraform runs until the warden stopped the sandbox.
	awaitStopped(t, first.ID, expiresAt)
	// Started by hand after its expiry, it is stopped again.
	if err := acctest.Docker(t).ContainerStart(ctx, first.ID, container.StartOptions{}); err != nil {
		t.Fatalf("starting the expired sandbox by hand: %v", err)
	}
	awaitStopped(t, first.ID, time.Now())

	plan := acctest.Flatten(tf.Run("plan"))
	if strings.Contains(plan, "Plan: ") || !strings.Contains(plan, "Sandbox expired") ||
		!strings.Contains(plan, expiresAt.UTC().Format(time.RFC3339)) {
		t.Fatalf("the plan after the expiry does not say when it expired, or plans a change:\n%s", plan)
	}
	tf.Run("apply", "-auto-approve")
	if listed := tf.Exact("output", "-json"); !strings.Contains(listed, `"`+name+`"`) {
		t.Errorf("data sandbox_containers with expired = true lists %s, want %s", listed, name)
	}

	// terraform query finds it too, by the same filter.
	finder := acctest.NewCLI(t, "provider \"sandbox\" {}\n")
	if generated, _ := finder.Query(`
list "sandbox_container" "expired" {
  provider         = sandbox
  include_resource = true
  config {
    name_prefix = "` + name + `"
    expired     = true
  }
}
`); !strings.Contains(generated, first.ID) {
		t.Errorf("terraform query with expired = true did not find the expired sandbox:\n%s", generated)
	}

	tf.SetConfig(config(`expires_after = "30m"`))
	plan = acctest.Flatten(tf.Run("plan"))
	if !strings.Contains(plan, "Plan: 0 to add, 1 to change, 0 to destroy") {
		t.Fatalf("the renewal is not planned in place:\n%s", plan)
	}
	tf.Run("apply", "-auto-approve")
	time.Sleep(3 * time.Second) // the warden looks every second
	c := acctest.Inspect(t, name)
	if c.ID != first.ID || !engine.IsRunning(c) {
		t.Fatalf("after the renewal the engine shows %s %s, want %s running", engine.ShortID(c.ID), c.State.Status,
			engine.ShortID(first.ID))
	}
	if out, err := acctest.ExecOK(ctx, t, c.ID, "cat", "/kept"); err != nil || strings.TrimSpace(out) != "kept-past-expiry" {
		t.Errorf("the file written before the expiry is %q (%v)", out, err)
	}
	if plan := tf.Run("plan"); !strings.Contains(plan, "No changes") {
		t.Errorf("the plan after the renewal is not empty:\n%s", plan)
	}

	// Asleep past its first expiry, the renewed sandbox is not listed as
	// expired: the listing reads the renewal.
	tf.SetConfig(configIn("stopped", `expires_after = "30m"`))
	tf.Run("apply", "-auto-approve")
	tf.Run("apply", "-auto-approve") // the data source reads after the sleep
	if listed := tf.Exact("output", "-json"); strings.Contains(listed, `"`+name+`"`) {
		t.Errorf("data sandbox_containers with expired = true lists the renewed sandbox asleep:\n%s", listed)
	}

	// Its expiry removed, the warden no longer holds one for it.
	tf.SetConfig(configIn("running", ""))
	tf.Run("apply", "-auto-approve")
	held, err := acctest.Engine(t).Expiries(ctx)
	if at, ok := held[first.ID]; err != nil || !ok || !at.IsZero() {
		t.Errorf("after the expiry was removed the warden holds %v for the sandbox (%v), want none", at, err)
	}
	if plan := tf.Run("plan"); !strings.Contains(plan, "No changes") {
		t.Errorf("the plan after the expiry was removed is not empty:\n%s", plan)
	}
}

// awaitStopped waits until the container has stopped, and fails the test
// unless it stopped within ten seconds of at.
func awaitStopped(t *testing.T, id string, at time.Time) {
	t.Helper()
	for deadline := at.Add(time.Minute); time.Now().Before(deadline); time.Sleep(time.Second) {
		c := acctest.Inspect(t, id)
		if engine.IsRunning(c) || c.State.Paused {
			continue
		}
		// Podman shows a container stopping as not running, with the end
		// of its run before (or none) until it has ended.
		ended, err := time.Parse(time.RFC3339Nano, c.State.FinishedAt)
		started, _ := time.Parse(time.RFC3339Nano, c.State.StartedAt)
		if err != nil || ended.Before(started) {
			continue
		}
		if late := ended.Sub(at); late > 10*time.Second {
			t.Fatalf("the sandbox stopped %s after %s, want within 10 s", late, at.Format(time.RFC3339))
		}
		t.Logf("the sandbox stopped %s after %s", ended.Sub(at).Round(time.Millisecond), at.Format(time.RFC3339))
		return
	}
	t.Fatalf("the sandbox %s still ran a minute after %s", engine.ShortID(id), at.Format(time.RFC3339))
}

// The engine over TLS, given the local engine's socket as its own: the
// warden that socket reaches does not have the sandbox, so the create
// fails naming engine_socket, leaves neither the sandbox nor that warden,
// and the next apply, with the engine's own socket, guards its expiry.
// In the TLS pass (another engine's socket is at the usual path).
func TestAccContainer_expiryOnAnotherEnginesSocket(t *testing.T) {
	other := "/var/run/docker.sock"
	if !strings.HasPrefix(os.Getenv("DOCKER_HOST"), "tcp://") {
		t.Skip("needs an engine reached over TCP, with another engine's socket at " + other)
	}
	acctest.RemoveIdleWarden(t)
	acctest.RemoveWarden(t)
	name := acctest.Name(t)
	tf := acctest.NewCLI(t, stateConfig(name, "running", `  expires_after = "1h"`))
	t.Cleanup(func() { tf.Run("destroy", "-auto-approve") })
	own := tf.Env
	tf.Env = append(append([]string{}, own...), "SANDBOX_ENGINE_SOCKET="+other)
	out, err := tf.Try("apply", "-auto-approve")
	if flat := acctest.Flatten(out); err == nil || !strings.Contains(flat, "Cannot enforce the expiry") ||
		!strings.Contains(flat, "engine_socket") {
		t.Fatalf("the apply with another engine's socket did not fail naming engine_socket (%v):\n%s", err, out)
	}
	acctest.ExpectNoContainers(t, name, "the failed create")
	if warden := acctest.ContainersNamed(t, "tfsandbox-warden"); len(warden) != 0 {
		t.Errorf("the warden that reaches another engine was left: %v", warden)
	}

	tf.Env = own
	tf.Run("apply", "-auto-approve")
	c := acctest.Inspect(t, name)
	held, err := acctest.Engine(t).Expiries(context.Background())
	if err != nil || !held[c.ID].Equal(engine.ExpiryOf(c.Config.Labels)) {
		t.Errorf("the warden holds %v for the sandbox (%v), want its expiry %s", held[c.ID], err, engine.ExpiryOf(c.Config.Labels))
	}
}

// The engine's socket made again while the warden runs, as a restart of
// Podman's service or of dockerd with live-restore makes it: the warden's
// mount of the old one reaches nothing. A renewal starts the warden again,
// which mounts the socket anew, and is held; made again once more while no
// Terraform runs, the warden starts itself again within a minute and stops
// the sandbox at its expiry all the same. In the TLS pass, whose engine's
// socket (SANDBOX_ENGINE_SOCKET) the test relays, so that it can make it
// again without touching the engine.
func TestAccContainer_expiryOutlivesTheEnginesSocketMadeAgain(t *testing.T) {
	socket := os.Getenv("SANDBOX_ENGINE_SOCKET")
	if !strings.HasPrefix(os.Getenv("DOCKER_HOST"), "tcp://") || socket == "" {
		t.Skip("needs an engine reached over TCP whose socket SANDBOX_ENGINE_SOCKET names (the TLS pass)")
	}
	acctest.RemoveIdleWarden(t)
	acctest.RemoveWarden(t)
	relay := acctest.NewSocketRelay(t, socket)
	name := acctest.Name(t)
	tf := acctest.NewCLI(t, stateConfig(name, "running", `  expires_after = "1h"`))
	tf.Env = append(append([]string{}, tf.Env...), "SANDBOX_ENGINE_SOCKET="+relay.Path)
	t.Cleanup(func() { tf.Run("destroy", "-auto-approve") })
	tf.Run("apply", "-auto-approve")

	relay.Remake(t)
	tf.SetConfig(stateConfig(name, "running", `  expires_after = "2m"`))
	tf.Run("apply", "-auto-approve")
	c := acctest.Inspect(t, name)
	// The labels keep the first expiry (a container's cannot change); the
	// warden holds the renewal, two minutes after the create.
	first := engine.ExpiryOf(c.Config.Labels)
	held, err := acctest.Engine(t).Expiries(context.Background())
	at := held[c.ID]
	if err != nil || at.IsZero() || at.After(first.Add(-50*time.Minute)) {
		t.Fatalf("after the renewal the warden holds %v for the sandbox (%v), want two minutes after its "+
			"create, not its first expiry %s", at, err, first)
	}

	relay.Remake(t)
	awaitStopped(t, c.ID, at)
}
