package execresource_test

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/acctest"
)

// hostile is a command that turns the sandbox against the provider's kill:
// it replaces /bin/sh (which the kill inside the sandbox runs) with one
// that ignores what it is asked and never ends, starts a descendant with a
// fresh environment (without the marker the kill looks for) in a session
// of its own, then runs long itself.
const hostile = `  command = ["/bin/busybox", "sh", "-c", "rm /bin/sh && printf '#!/bin/busybox sh\\nexec /bin/busybox sleep 1000\\n' >/bin/sh && chmod 755 /bin/sh && (env -i /bin/busybox setsid /bin/busybox sleep 400 &) && exec /bin/busybox sleep 401"]`

// hostileLeft lists what of hostile's processes still run in the sandbox.
func hostileLeft(t *testing.T, name string) []string {
	t.Helper()
	left, err := acctest.StillRunning(context.Background(), t, name, "sleep 400", "sleep 401", "sleep 1000")
	if err != nil {
		t.Fatalf("listing the sandbox's processes from the host: %v", err)
	}
	return left
}

// An exec past its timeout ends the apply within seconds and leaves none of
// its processes running, even when the sandbox's code has replaced the
// shell the kill inside it runs and has a descendant without the marker:
// the provider checks from the host and restarts the sandbox, and says so.
func TestAccExec_timeoutKillsWhatTheSandboxHides(t *testing.T) {
	name := acctest.Name(t)
	tf := acctest.NewCLI(t, config(name, "", hostile+"\n  timeout = \"3s\""))
	t.Cleanup(func() { tf.Run("destroy", "-auto-approve") })

	apply := tf.Start("apply", "-auto-approve")
	apply.WaitFor(t, "sandbox_exec.test: Creating...", time.Minute)
	began := time.Now()
	out, err := apply.Wait(2 * time.Minute)
	took := time.Since(began)
	if err == nil {
		t.Fatalf("the apply of a command past its timeout succeeded:\n%s", out)
	}
	if took > 3*time.Second+25*time.Second {
		t.Errorf("the apply ended %s after the command started, want within its timeout and 25 s:\n%s", took, out)
	}
	flat := acctest.Flatten(out)
	for _, want := range []string{"Command timed out", "outlived a kill inside the sandbox, so the sandbox was restarted"} {
		if !strings.Contains(flat, want) {
			t.Errorf("the error does not say %q:\n%s", want, out)
		}
	}
	if left := hostileLeft(t, name); len(left) > 0 {
		t.Fatalf("the timed-out command's processes still run: %q\napply said:\n%s", left, out)
	}
}

// One Ctrl-C ends such an apply within seconds, too, with nothing left
// running and nothing recorded.
func TestAccExec_ctrlCKillsWhatTheSandboxHides(t *testing.T) {
	name := acctest.Name(t)
	tf := acctest.NewCLI(t, config(name, "", hostile))
	t.Cleanup(func() { tf.Run("destroy", "-auto-approve") })

	apply := tf.Start("apply", "-auto-approve")
	apply.WaitFor(t, "sandbox_exec.test: Creating...", time.Minute)
	time.Sleep(2 * time.Second)
	if err := apply.Cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	began := time.Now()
	out, err := apply.Wait(2 * time.Minute)
	if took := time.Since(began); took > 25*time.Second {
		t.Errorf("the apply ended %s after one Ctrl-C, want within 25 s:\n%s", took, out)
	}
	if err == nil {
		t.Fatalf("the interrupted apply succeeded:\n%s", out)
	}
	if left := hostileLeft(t, name); len(left) > 0 {
		t.Fatalf("the interrupted command's processes still run: %q\napply said:\n%s", left, out)
	}
	if state := tf.Exact("state", "list"); strings.Contains(state, "sandbox_exec.test") {
		t.Fatalf("the interrupted command is in the state:\n%s", state)
	}
}

// Under gVisor the engine cannot list a sandbox's processes, so a timed-out
// command is stopped by restarting the sandbox, and the error says why.
func TestAccExec_timeoutUnderGVisorRestarts(t *testing.T) {
	if acctest.RequireAcc(t); acctest.IsPodman(t) {
		t.Skip("Podman's Docker-compatible API ignores the runtime: no gVisor there (refused at plan, " +
			"see TestAccContainer_hardenedExample)")
	}
	name := acctest.Name(t)
	tf := acctest.NewCLI(t, config(name, "  runtime = \"runsc\"\n", hostile+"\n  timeout = \"3s\""))
	t.Cleanup(func() { tf.Run("destroy", "-auto-approve") })
	tf.Run("apply", "-auto-approve", "-target=sandbox_container.test")
	before := acctest.Inspect(t, name)

	out, err := tf.Start("apply", "-auto-approve").Wait(2 * time.Minute)
	if err == nil {
		t.Fatalf("the apply of a command past its timeout succeeded:\n%s", out)
	}
	if want := "cannot list the processes of a gVisor sandbox from the host to check that a kill inside it " +
		"worked, so the sandbox was restarted"; !strings.Contains(acctest.Flatten(out), want) {
		t.Errorf("the error does not say %q:\n%s", want, out)
	}
	after := acctest.Inspect(t, name)
	if after.State.StartedAt == before.State.StartedAt || !after.State.Running {
		t.Errorf("the sandbox was not restarted: started %s, then %s (running %v)", before.State.StartedAt,
			after.State.StartedAt, after.State.Running)
	}
}
