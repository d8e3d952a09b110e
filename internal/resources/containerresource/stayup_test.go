package containerresource_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/docker/docker/api/types/container"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/acctest"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
)

// A sandbox whose command exits at once fails its create, whatever the
// restart policy makes the engine report, with the exit code and the end
// of its log, secrets redacted; nothing is left on the engine.
func TestAccContainer_exitingCommandFailsCreate(t *testing.T) {
	const secret = "s3cr3t-8f2a61"
	name := acctest.Name(t)
	for _, restart := range []string{"unless-stopped", "no"} {
		tf := acctest.NewCLI(t, acctest.Config(name, `
  network_mode   = "none"
  restart        = "`+restart+`"
  command        = ["sh", "-c", "echo \"starting with $TOKEN\"; echo 'no config found' >&2; exit 7"]
  env_wo         = { TOKEN = "`+secret+`" }
  env_wo_version = 1
`))
		out, err := tf.Start("apply", "-auto-approve").Wait(2 * time.Minute)
		if err == nil {
			tf.Run("destroy", "-auto-approve")
			t.Fatalf("restart = %q: the apply of a sandbox whose command exits at once succeeded:\n%s", restart, out)
		}
		flat := acctest.Flatten(out)
		for _, want := range []string{"Sandbox does not stay up", "does not stay up", "no config found",
			"starting with (sensitive value)", "The container was removed"} {
			if !strings.Contains(flat, want) {
				t.Errorf("restart = %q: the error does not say %q:\n%s", restart, want, out)
			}
		}
		if restart == "no" && !strings.Contains(flat, "exited with code 7") {
			t.Errorf("restart = %q: the error does not give the exit code:\n%s", restart, out)
		}
		if strings.Contains(out, secret) {
			t.Errorf("restart = %q: the error shows the secret:\n%s", restart, out)
		}
		acctest.ExpectNoContainers(t, name, "the failed create")
	}
}

// A sandbox whose main process starts exiting in a loop after apply (the
// engine restarts it, and Docker still calls it running) is drift: the
// plan replaces it and says why, and apply brings back one that stays up.
func TestAccContainer_crashLoopIsDrift(t *testing.T) {
	name := acctest.Name(t)
	tf := acctest.NewCLI(t, acctest.Config(name, `
  network_mode = "none"
  command      = ["sh", "-c", "while [ ! -e /tmp/crash ]; do sleep 0.2; done; exit 5"]
`))
	t.Cleanup(func() { tf.Run("destroy", "-auto-approve") })
	tf.Run("apply", "-auto-approve")
	first := acctest.Inspect(t, name)
	if plan := tf.Run("plan", "-detailed-exitcode"); !strings.Contains(plan, "No changes") {
		t.Fatalf("a sandbox that stays up plans changes:\n%s", plan)
	}

	// Out of band, the main process starts to exit at every start. Detached:
	// Podman forgets a container's execs when it restarts it, and this one
	// makes it restart.
	api := acctest.Docker(t)
	touch, err := api.ContainerExecCreate(context.Background(), name, container.ExecOptions{Cmd: []string{"touch", "/tmp/crash"}})
	if err == nil {
		err = api.ContainerExecStart(context.Background(), touch.ID, container.ExecStartOptions{Detach: true})
	}
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(3 * time.Second)
	plan := acctest.Flatten(tf.Run("plan"))
	for _, want := range []string{"Sandbox keeps exiting", "the engine restarts it in a loop",
		"sandbox_container.test must be replaced", "Plan: 1 to add, 0 to change, 1 to destroy"} {
		if !strings.Contains(plan, want) {
			t.Errorf("the plan of a crash-looping sandbox does not say %q:\n%s", want, plan)
		}
	}
	tf.Run("apply", "-auto-approve")
	second := acctest.Inspect(t, name)
	if second.ID == first.ID || !engine.IsRunning(second) || engine.Restarts(second) != 0 {
		t.Errorf("apply did not bring back a sandbox that stays up: %s (was %s), running %v, %d restarts",
			engine.ShortID(second.ID), engine.ShortID(first.ID), engine.IsRunning(second), engine.Restarts(second))
	}
	if plan := tf.Run("plan"); !strings.Contains(plan, "No changes") {
		t.Errorf("the repaired sandbox plans changes:\n%s", plan)
	}
	if err := acctest.OnlyLoopbackInside(context.Background(), t, second.ID); err != nil {
		t.Error(err)
	}
}

// Sandboxes made together do not each hold one of Terraform's parallel
// operations asleep for the second that shows a command stays up: a
// command that exits within it is caught at apply when its sandbox starts
// alone, and otherwise by the next plan, which replaces it and says why.
// Either way, every such sandbox is planned anew. The command exits well
// inside the second: the engine's timestamps of its start and its exit
// carry the machine's load (in a fresh-clone run on Podman, one of three
// commands of `sleep 0.6` measured a second or more).
func TestAccContainer_exitingCommandAmongManyIsCaught(t *testing.T) {
	name := acctest.Name(t)
	tf := acctest.NewCLI(t, fmt.Sprintf(`
resource "sandbox_container" "test" {
  count        = 3
  name         = "%s-${count.index}"
  image        = %q
  network_mode = "none"
  restart      = "no"
  command      = ["sh", "-c", "sleep 0.2; exit 3"]
}
`, name, acctest.TestImage))
	t.Cleanup(func() { tf.Run("destroy", "-auto-approve") })
	applied, _ := tf.Start("apply", "-auto-approve").Wait(2 * time.Minute)
	time.Sleep(time.Second)
	plan := acctest.Flatten(tf.Run("plan"))
	said := acctest.Flatten(applied) + plan
	if !strings.Contains(plan, "Plan: 3 to add") {
		t.Errorf("the plan after sandboxes whose command exits within a second does not make all three anew:\n%s\n%s",
			applied, plan)
	}
	if !strings.Contains(said, "Sandbox does not stay up") || !strings.Contains(said, "exit") {
		t.Errorf("neither the apply nor the plan says that the command does not stay up:\n%s\n%s", applied, plan)
	}
	if strings.Contains(applied, "checked again at the next refresh") &&
		!strings.Contains(plan, "exited with code 3 within 1s of its start by the last apply") {
		t.Errorf("the plan does not finish the check the apply left to it:\n%s", plan)
	}
}

// A sandbox woken by an apply whose command exits at once fails that apply,
// saying so with the exit code, and the next plan replaces it.
func TestAccContainer_exitingCommandFailsWake(t *testing.T) {
	name := acctest.Name(t)
	config := func(running bool) string {
		return acctest.Config(name, fmt.Sprintf(`
  network_mode = "none"
  restart      = "no"
  running      = %v
  command      = ["sh", "-c", "echo bye; exit 4"]
`, running))
	}
	tf := acctest.NewCLI(t, config(false))
	t.Cleanup(func() { tf.Run("destroy", "-auto-approve") })
	tf.Run("apply", "-auto-approve")
	tf.SetConfig(config(true))
	out, err := tf.Start("apply", "-auto-approve").Wait(2 * time.Minute)
	flat := acctest.Flatten(out)
	if err == nil || !strings.Contains(flat, "exited with code 4") || !strings.Contains(flat, "the next apply replaces it") {
		t.Fatalf("waking a sandbox whose command exits did not fail, saying so (%v):\n%s", err, out)
	}
	if plan := acctest.Flatten(tf.Run("plan")); !strings.Contains(plan, "must be replaced") ||
		!strings.Contains(plan, "Sandbox does not stay up") {
		t.Errorf("the plan after a failed wake does not replace the sandbox, saying why:\n%s", plan)
	}
}
