package containerresource_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/acctest"
)

// interruptTrials is how many interrupted applies
// TestAccContainer_randomInterruptsNeverLeak makes: SANDBOX_TEST_INTERRUPTS,
// or 12 (each run draws new moments; 20 took 12 minutes of CI's two cores
// beside the other passes).
func interruptTrials(t *testing.T) int {
	if s := os.Getenv("SANDBOX_TEST_INTERRUPTS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			t.Fatalf("SANDBOX_TEST_INTERRUPTS=%q is not a positive number", s)
		}
		return n
	}
	return 12
}

// Applies of 30 sandboxes, each interrupted by one Ctrl-C at a random
// moment, 12 times in a row: after each, every sandbox the engine holds is
// in the state, and the provider does not outlive terraform. The moments
// are drawn from a seed the test logs, so a failure can be replayed
// (SANDBOX_TEST_INTERRUPT_SEED).
func TestAccContainer_randomInterruptsNeverLeak(t *testing.T) {
	const count = 30
	acctest.RequireAcc(t)
	if pass := os.Getenv("SANDBOX_TEST_PASS"); pass != "" && pass != "local" && pass != "podman" {
		t.Skipf("runs in the local and podman passes of make testacc, not in %s (the engine's API is the same)", pass)
	}
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv("SANDBOX_TEST_INTERRUPT_SEED"); s != "" {
		var err error
		if seed, err = strconv.ParseUint(s, 10, 64); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("interrupt moments from SANDBOX_TEST_INTERRUPT_SEED=%d", seed)
	random := rand.New(rand.NewPCG(seed, seed))
	name := acctest.Name(t)
	tf := acctest.NewCLI(t, acctest.CountConfig(name, count))
	t.Cleanup(func() { tf.Run("destroy", "-auto-approve") })

	// The moments span the creates of an apply that is not interrupted,
	// from the first create on: a Ctrl-C then finds no sandbox made, some
	// made and the rest under way, or nearly all made. A Ctrl-C that lands
	// after the apply ended interrupts nothing and does not count.
	span := createsSpan(t, tf)
	t.Logf("an apply of %d creates for %s after its first", count, span.Round(time.Millisecond))
	trials, interrupted, partial := interruptTrials(t), 0, 0
	// What the last interrupted apply said, for a leak to be read.
	last := ""
	t.Cleanup(func() {
		if t.Failed() {
			t.Log(last)
		}
	})
	for attempt := 1; interrupted < trials; attempt++ {
		if attempt > 2*trials {
			t.Fatalf("only %d of %d applies were still running when the Ctrl-C came", interrupted, attempt-1)
		}
		apply := tf.Start("apply", "-auto-approve")
		apply.WaitFor(t, "Creating...", time.Minute)
		after := time.Duration(random.Int64N(int64(span)))
		time.Sleep(after)
		if err := apply.Cmd.Process.Signal(os.Interrupt); err == nil {
			interrupted++
		}
		out, err := apply.Wait(2 * time.Minute)
		if err != nil && apply.Cmd.ProcessState == nil {
			t.Fatalf("attempt %d: the apply did not end after one Ctrl-C: %v\n%s", attempt, err, out)
		}
		acctest.WaitForProviderExit(t, time.Minute)
		last = fmt.Sprintf("the apply of attempt %d said, after its Ctrl-C:\n%s", attempt, out)
		ids := tf.ExpectOnlyStateContainers(name)
		t.Logf("attempt %d: Ctrl-C %s after the first create: %d of %d sandboxes made, all in the state",
			attempt, after.Round(time.Millisecond), len(ids), count)
		if len(ids) > 0 && len(ids) < count {
			partial++
		}
		tf.Run("destroy", "-auto-approve")
		acctest.ExpectNoContainers(t, name, "the destroy after the interrupted apply")
	}
	// Ten moments or more over the span all missing the middle, where some
	// sandboxes are in the state and others were cut off, would mean that
	// the moments do not span the creates.
	if trials >= 10 && partial == 0 {
		t.Errorf("no interrupted apply of %d left some sandboxes made and others not: the Ctrl-C moments "+
			"(over %s) miss the creates", trials, span)
	}
}

// createsSpan applies the configuration once, uninterrupted (with args),
// and returns how long its creates took after the first began (most of
// it, so that a moment drawn from it lands before the apply ends), then
// destroys it.
func createsSpan(t *testing.T, tf *acctest.CLI, args ...string) time.Duration {
	t.Helper()
	apply := tf.Start(append([]string{"apply", "-auto-approve"}, args...)...)
	apply.WaitFor(t, "Creating...", time.Minute)
	began := time.Now()
	if out, err := apply.Wait(5 * time.Minute); err != nil {
		t.Fatalf("the uninterrupted apply failed: %v\n%s", err, out)
	}
	span := time.Since(began) * 9 / 10
	tf.Run("destroy", "-auto-approve")
	return span
}
