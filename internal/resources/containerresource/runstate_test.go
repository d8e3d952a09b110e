package containerresource_test

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/acctest"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/isolation"
)

// stateConfig is an isolated sandbox in state, with more attributes.
func stateConfig(name, state, more string) string {
	return acctest.Config(name, `
  network_mode = "none"
  state        = "`+state+`"
`+more)
}

// Sleep (stopped), freeze (paused) and wake, by state, each applied in
// place: the same container throughout, a file written before each kept,
// the main process ended by a sleep and kept by a freeze, isolated in
// every state, and nothing planned after each apply. Where the engine
// cannot freeze a container, paused is refused at plan, saying so.
func TestAccContainer_sleepFreezeAndWake(t *testing.T) {
	name := acctest.Name(t)
	tf := acctest.NewCLI(t, stateConfig(name, "running", ""))
	t.Cleanup(func() { tf.Run("destroy", "-auto-approve") })
	tf.Run("apply", "-auto-approve")
	first := acctest.Inspect(t, name)
	ctx := context.Background()
	if _, err := acctest.ExecOK(ctx, t, first.ID, "sh", "-c", "echo kept-across-sleep > /kept"); err != nil {
		t.Fatal(err)
	}
	steps := []string{"stopped", "running", "paused", "running", "stopped", "paused", "stopped", "running"}
	if !acctest.Facts(t).Pausable {
		tf.SetConfig(stateConfig(name, "paused", ""))
		out, err := tf.Try("plan")
		if err == nil || !strings.Contains(acctest.Flatten(out), "Sandbox cannot be paused here") {
			t.Fatalf("state = \"paused\" was not refused at plan on an engine that cannot pause (%v):\n%s", err, out)
		}
		steps = []string{"stopped", "running", "stopped", "running"}
	}
	last := first
	for i, state := range steps {
		tf.SetConfig(stateConfig(name, state, ""))
		plan := acctest.Flatten(tf.Run("plan"))
		if !strings.Contains(plan, "Plan: 0 to add, 1 to change, 0 to destroy") || !strings.Contains(plan, `"`+state+`"`) {
			t.Fatalf("step %d: the change to state = %q is not planned in place:\n%s", i, state, plan)
		}
		tf.Run("apply", "-auto-approve")
		c := acctest.Inspect(t, name)
		want := map[string]string{"running": "running", "paused": "paused", "stopped": "exited"}[state]
		if c.ID != first.ID || c.State.Status != want {
			t.Fatalf("step %d: after state = %q the engine shows %s %q, want %s %q", i, state,
				engine.ShortID(c.ID), c.State.Status, engine.ShortID(first.ID), want)
		}
		if verdict := isolation.Assess(c.Network); !verdict.Isolated {
			t.Errorf("step %d: the sandbox in state %q is not isolated: %s", i, state, verdict.Reason)
		}
		// A freeze or a thaw keeps the main process; a wake from sleep
		// starts it anew.
		switch restarted := c.State.StartedAt != last.State.StartedAt; {
		case state == "stopped":
		case last.State.Status == "exited" && !restarted:
			t.Errorf("step %d: the wake from sleep did not start the main process", i)
		case last.State.Status != "exited" && restarted:
			t.Errorf("step %d: a freeze or a thaw restarted the main process", i)
		}
		if state == "running" {
			if out, err := acctest.ExecOK(ctx, t, c.ID, "cat", "/kept"); err != nil || strings.TrimSpace(out) != "kept-across-sleep" {
				t.Errorf("step %d: the file written before is %q (%v)", i, out, err)
			}
		}
		if plan := tf.Run("plan"); !strings.Contains(plan, "No changes") {
			t.Errorf("step %d: the plan after state = %q is not empty:\n%s", i, state, plan)
		}
		last = c
	}
}

// A sandbox asleep whose isolation is weakened out of band (attached to a
// network) is replaced all the same, by one as asleep and as isolated.
// Podman refuses the attachment, and then nothing is planned.
func TestAccContainer_breachedAsleepIsReplaced(t *testing.T) {
	name := acctest.Name(t)
	tf := acctest.NewCLI(t, stateConfig(name, "stopped", ""))
	t.Cleanup(func() { tf.Run("destroy", "-auto-approve") })
	tf.Run("apply", "-auto-approve")
	first := acctest.Inspect(t, name)
	if !acctest.Reattach(context.Background(), t, name) {
		if plan := tf.Run("plan"); !strings.Contains(plan, "No changes") {
			t.Errorf("a refused attachment plans changes:\n%s", plan)
		}
		return
	}
	plan := acctest.Flatten(tf.Run("plan"))
	t.Logf("plan after the attachment: %s", plan)
	if !strings.Contains(plan, "must be replaced") || !strings.Contains(plan, "Plan: 1 to add") {
		t.Fatalf("a sandbox asleep attached to a network is not replaced:\n%s", plan)
	}
	tf.Run("apply", "-auto-approve")
	c := acctest.Inspect(t, name)
	if c.ID == first.ID || engine.IsRunning(c) || !isolation.Assess(c.Network).Isolated {
		t.Errorf("the replacement is %s, running %v, isolated %v: want a new sandbox, asleep and isolated",
			engine.ShortID(c.ID), engine.IsRunning(c), isolation.Assess(c.Network).Isolated)
	}
}

// An interrupt (Ctrl-C) during a wake leaves a sandbox that the next apply
// brings to the state the configuration asks for, the same sandbox,
// isolated, with its command up.
func TestAccContainer_interruptedWakeConverges(t *testing.T) {
	name := acctest.Name(t)
	command := `  command = ["sh", "-c", "trap '' TERM INT; sleep 86400"]`
	tf := acctest.NewCLI(t, stateConfig(name, "stopped", command))
	t.Cleanup(func() { tf.Run("destroy", "-auto-approve") })
	tf.Run("apply", "-auto-approve")
	first := acctest.Inspect(t, name)
	tf.SetConfig(stateConfig(name, "running", command))
	wake := tf.Start("apply", "-auto-approve")
	// The wake of a sandbox alone waits a second to see its command stay
	// up: the interrupt lands in it, or just before.
	wake.WaitFor(t, "Modifying...", time.Minute)
	time.Sleep(300 * time.Millisecond)
	if err := wake.Cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	out, _ := wake.Wait(2 * time.Minute)
	t.Logf("interrupted wake:\n%s", out)
	tf.Run("apply", "-auto-approve")
	c := acctest.Inspect(t, name)
	if c.ID != first.ID || !engine.IsRunning(c) || !isolation.Assess(c.Network).Isolated {
		t.Errorf("after the interrupted wake and an apply, the sandbox is %s, running %v, isolated %v", engine.ShortID(c.ID),
			engine.IsRunning(c), isolation.Assess(c.Network).Isolated)
	}
	if plan := tf.Run("plan"); !strings.Contains(plan, "No changes") {
		t.Errorf("the plan after the interrupted wake converged is not empty:\n%s", plan)
	}
}
