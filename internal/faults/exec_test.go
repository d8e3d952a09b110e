package faults_test

import (
	"context"
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/acctest"
)

// A command past its timeout on an engine that froze meanwhile cannot be
// stopped: the apply still ends within its bounds, and the error says that
// the command's processes may still run and how to stop them. Once the
// engine answers again they do run, as the error said.
func TestExecOnAFrozenEngineSaysWhatMayStillRun(t *testing.T) {
	requireFaults(t)
	name := acctest.Name(t)
	tf := acctest.NewCLI(t, acctest.Config(name, "  network_mode = \"none\"\n")+`
resource "sandbox_exec" "test" {
  container_id = sandbox_container.test.id
  command      = ["sh", "-c", "sleep 300 & sleep 301"]
  timeout      = "4s"
}
`)
	t.Cleanup(func() { tf.Run("destroy", "-auto-approve") })
	pid := dockerdPid(t)
	thaw := func() { _ = syscall.Kill(pid, syscall.SIGCONT) }
	t.Cleanup(thaw)

	apply := tf.Start("apply", "-auto-approve")
	apply.WaitFor(t, "sandbox_exec.test: Creating...", time.Minute)
	time.Sleep(2 * time.Second)
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		t.Fatalf("freezing dockerd (pid %d): %v", pid, err)
	}
	began := time.Now()
	out, err := apply.Wait(2 * time.Minute)
	took := time.Since(began)
	thaw()
	if err == nil {
		t.Fatalf("the apply succeeded:\n%s", out)
	}
	if took > time.Minute {
		t.Errorf("the apply ended %s after the engine froze, want within a minute", took)
	}
	flat := acctest.Flatten(out)
	for _, want := range []string{"Command timed out", "restarting the sandbox failed",
		"any of the command's processes may still run", "Restart or remove the sandbox (docker restart"} {
		if !strings.Contains(flat, want) {
			t.Errorf("the error does not say %q:\n%s", want, out)
		}
	}
	left, err := acctest.StillRunning(context.Background(), t, name, "sleep 30")
	if err != nil || len(left) == 0 {
		t.Errorf("the error said the command's processes may still run, and the engine lists %q (%s)",
			left, fmt.Sprint(err))
	}
}
