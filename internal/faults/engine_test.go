package faults_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/acctest"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/isolation"
)

func TestMain(m *testing.M) {
	acctest.Main(m)
}

func requireFaults(t *testing.T) {
	t.Helper()
	acctest.RequireAcc(t)
	if os.Getenv("SANDBOX_FAULTS") == "" {
		t.Skip("kills the local engine: run with `make faults` (SANDBOX_FAULTS=1), never beside other tests")
	}
}

// killEngine kills the local dockerd with SIGKILL, as a crash would.
func killEngine(t *testing.T) {
	t.Helper()
	raw, err := os.ReadFile("/var/run/docker.pid")
	if err != nil {
		t.Fatalf("reading dockerd's pid file: %v", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(raw)))
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatalf("killing dockerd (pid %d): %v", pid, err)
	}
}

// restartEngine starts the local engine again with the project's script.
func restartEngine(t *testing.T) {
	t.Helper()
	cmd := exec.Command(filepath.Join("..", "..", "scripts", "ensure-engine.sh"))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("restarting the engine: %v\n%s", err, out)
	}
}

// An apply of several sandboxes during which the engine is killed fails;
// once the engine is back, the next apply converges: every sandbox exists
// once, isolated and running, and no container of the provider's is outside
// the state. The engine is killed while the first creates are under way,
// and again once some sandboxes were made (the engine restarts them
// stopped).
func TestEngineKilledDuringApplyConverges(t *testing.T) {
	requireFaults(t)
	for _, killAfter := range []string{"Creating...", "Creation complete"} {
		t.Run(killAfter, func(t *testing.T) {
			killDuringApply(t, killAfter)
		})
	}
}

func killDuringApply(t *testing.T, killAfter string) {
	const count = 8
	name := acctest.Name(t)
	tf := acctest.NewCLI(t, acctest.CountConfig(name, count))
	t.Cleanup(func() { tf.Run("destroy", "-auto-approve") })

	apply := tf.Start("apply", "-auto-approve")
	apply.WaitFor(t, killAfter, time.Minute)
	time.Sleep(200 * time.Millisecond)
	killEngine(t)
	out, err := apply.Wait(3 * time.Minute)
	t.Logf("apply while the engine was killed (%v):\n%s", err, out)
	restartEngine(t)

	tf.Run("apply", "-auto-approve")
	ids := tf.ExpectOnlyStateContainers(name)
	if len(ids) != count {
		t.Fatalf("%d sandboxes after the second apply, want %d", len(ids), count)
	}
	for _, id := range ids {
		info := acctest.Inspect(t, id)
		if v := isolation.Assess(info); !v.Isolated || !info.State.Running {
			t.Errorf("sandbox %s: isolated %v (%s), status %s", info.Name, v.Isolated, v.Reason, info.State.Status)
		}
	}
	if plan := tf.Run("plan"); !strings.Contains(plan, "No changes") {
		t.Errorf("the plan after converging is not empty:\n%s", plan)
	}
}
