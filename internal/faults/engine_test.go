package faults_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/acctest"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine/docker"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/isolation"
)

func TestMain(m *testing.M) {
	acctest.Main(m)
}

// requireFaults runs a fault test only under `make faults`, which points
// DOCKER_HOST and SANDBOX_TEST_DOCKERD_PIDFILE at the throwaway engine of
// scripts/engines.sh: these tests kill and restart the engine they run on,
// and must never run on the machine's engine.
func requireFaults(t *testing.T) {
	t.Helper()
	acctest.RequireAcc(t)
	if os.Getenv("SANDBOX_FAULTS") == "" {
		t.Skip("kills its engine: run with `make faults` (SANDBOX_FAULTS=1), on the throwaway engine")
	}
	pidfile := os.Getenv(envPidfile)
	host := docker.ResolveHost("")
	if pidfile == "" || pidfile == machinePidfile || host == machineSocket {
		t.Fatalf("%s=%q and DOCKER_HOST=%q: the fault tests run only on a throwaway engine, never on the "+
			"machine's (its containers would stop). Run them with `make faults`.", envPidfile, pidfile, host)
	}
}

const (
	// envPidfile names the throwaway engine's pid file.
	envPidfile     = "SANDBOX_TEST_DOCKERD_PIDFILE"
	machinePidfile = "/var/run/docker.pid"
	machineSocket  = "unix:///var/run/docker.sock"
)

// dockerdPid is the throwaway engine's dockerd, from its pid file.
func dockerdPid(t *testing.T) int {
	t.Helper()
	raw, err := os.ReadFile(os.Getenv(envPidfile))
	if err != nil {
		t.Fatalf("reading dockerd's pid file: %v", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(raw)))
	if err != nil {
		t.Fatal(err)
	}
	return pid
}

// killEngine kills the throwaway engine's dockerd with SIGKILL, as a crash
// would.
func killEngine(t *testing.T) {
	t.Helper()
	pid := dockerdPid(t)
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatalf("killing dockerd (pid %d): %v", pid, err)
	}
}

// restartEngine starts the throwaway engine again with the project's script.
func restartEngine(t *testing.T) {
	t.Helper()
	cmd := exec.Command(filepath.Join(acctest.ModuleRoot(t), "scripts", "engines.sh"), "start", "scratch")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("restarting the engine: %v\n%s", err, out)
	}
}

// An apply of several sandboxes during which the engine is killed fails;
// once the engine is back, the next apply converges: every sandbox exists
// once, isolated and running, and no container of the provider's is outside
// the state. The engine is killed while the first creates are under way,
// and again once some sandboxes were made (the engine restarts them
// stopped). A create the provider could not undo is recorded tainted, and
// the next apply replaces it; under a CLI that cannot save a failed
// create (Terraform 1.14 and later) it is not recorded, Terraform still
// writes its state, and the error gives the command that removes what the
// create left, which is run here as a user would.
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
	tfCLI := acctest.TerraformCLI(t)

	apply := tf.Start("apply", "-auto-approve")
	apply.WaitFor(t, killAfter, time.Minute)
	time.Sleep(200 * time.Millisecond)
	killEngine(t)
	out, err := apply.Wait(3 * time.Minute)
	t.Logf("apply under %s while the engine was killed (%v):\n%s", tfCLI, err, out)
	flat := acctest.Flatten(out)
	if strings.Contains(flat, "Failed to serialize") {
		t.Fatalf("terraform could not write its state after the killed apply:\n%s", out)
	}
	commands := acctest.LeftByCreate.FindAllString(flat, -1)
	if undone := strings.Count(flat, "Cannot remove what the failed create left"); undone > 0 {
		recorded := strings.Count(flat, "is recorded in the state as tainted")
		if tfCLI.SavesFailedCreates() && recorded != undone || !tfCLI.SavesFailedCreates() && len(commands) != undone {
			t.Errorf("%d creates could not be undone; %d were recorded tainted and %d gave the command that removes "+
				"what they left, under %s", undone, recorded, len(commands), tfCLI)
		}
		t.Logf("%d creates could not be undone", undone)
	}
	restartEngine(t)
	for _, command := range commands {
		acctest.RunByHand(t, command)
	}

	tf.Run("apply", "-auto-approve")
	ids := tf.ExpectOnlyStateContainers(name)
	if len(ids) != count {
		t.Fatalf("%d sandboxes after the second apply, want %d", len(ids), count)
	}
	for _, id := range ids {
		info := acctest.Inspect(t, id)
		if v := isolation.Assess(info.Network); !v.Isolated || !info.State.Running {
			t.Errorf("sandbox %s: isolated %v (%s), status %s", info.Name, v.Isolated, v.Reason, info.State.Status)
		}
	}
	if plan := tf.Run("plan"); !strings.Contains(plan, "No changes") {
		t.Errorf("the plan after converging is not empty:\n%s", plan)
	}
}

// stopEngine stops the throwaway dockerd as a host shutdown or an engine
// upgrade does (SIGTERM, which stops its containers), and waits for it.
func stopEngine(t *testing.T) {
	t.Helper()
	pid := dockerdPid(t)
	if err := syscall.Kill(pid, syscall.SIGTERM); err != nil {
		t.Fatalf("stopping dockerd (pid %d): %v", pid, err)
	}
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		if syscall.Kill(pid, 0) != nil {
			return
		}
	}
	t.Fatalf("dockerd (pid %d) did not stop within a minute", pid)
}

// After the engine restarts, a sandbox with the default restart policy
// (unless-stopped) runs again by itself and plans nothing; one with
// restart = "no" is left exited, and the plan starts it in place. What
// each wrote into its mounted volume is still there.
func TestEngineRestartBringsSandboxesBack(t *testing.T) {
	requireFaults(t)
	name := acctest.Name(t)
	tf := acctest.NewCLI(t, fmt.Sprintf(`
resource "sandbox_volume" "kept" {
  name = "%[1]s-kept"
}

resource "sandbox_volume" "not_kept" {
  name = "%[1]s-no"
}

resource "sandbox_container" "kept" {
  name         = "%[1]s-kept"
  image        = %[2]q
  network_mode = "none"
  mounts       = { "/workspace" = { volume = sandbox_volume.kept.name } }
}

resource "sandbox_container" "not_kept" {
  name         = "%[1]s-no"
  image        = %[2]q
  network_mode = "none"
  restart      = "no"
  mounts       = { "/workspace" = { volume = sandbox_volume.not_kept.name } }
}
`, name, acctest.TestImage))
	t.Cleanup(func() { tf.Run("destroy", "-auto-approve") })
	tf.Run("apply", "-auto-approve")
	ctx := context.Background()
	for _, suffix := range []string{"-kept", "-no"} {
		if _, err := acctest.ExecOK(ctx, t, name+suffix, "sh", "-c", "echo work of "+suffix+" > /workspace/result"); err != nil {
			t.Fatal(err)
		}
	}

	stopEngine(t)
	restartEngine(t)

	// The engine restarts unless-stopped containers as it starts.
	var kept bool
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline) && !kept; time.Sleep(time.Second) {
		kept = acctest.Inspect(t, name+"-kept").State.Running
	}
	if !kept {
		t.Fatal("the sandbox with the default restart policy did not come back after the engine restarted")
	}
	if info := acctest.Inspect(t, name+"-no"); info.State.Running {
		t.Fatal(`the sandbox with restart = "no" came back by itself`)
	}
	plan := acctest.Flatten(tf.Run("plan"))
	for _, want := range []string{"sandbox_container.not_kept will be updated in-place", "Plan: 0 to add, 1 to change, 0 to destroy."} {
		if !strings.Contains(plan, want) {
			t.Errorf("plan lacks %q:\n%s", want, plan)
		}
	}
	tf.Run("apply", "-auto-approve")
	for _, suffix := range []string{"-kept", "-no"} {
		if info := acctest.Inspect(t, name+suffix); !info.State.Running || !isolation.Assess(info.Network).Isolated {
			t.Errorf("%s%s after apply: status %s", name, suffix, info.State.Status)
		}
		if got, err := acctest.ExecOK(ctx, t, name+suffix, "cat", "/workspace/result"); err != nil || got != "work of "+suffix+"\n" {
			t.Errorf("%s%s's workspace after the restart holds %q (%s)", name, suffix, got, acctest.ErrText(err))
		}
	}
}

// Five agents in the hardened configuration of the docs, under runc and
// under gVisor, survive daily operations: a memory and a pids change
// (in place under runc, a replacement under gVisor), a secret rotation, an
// engine restart, and an import, each ending in an empty plan.
func TestHardenedAgentsSurviveDailyOperations(t *testing.T) {
	requireFaults(t)
	for _, runtime := range []string{"runc", "runsc"} {
		t.Run(runtime, func(t *testing.T) { hardenedAgents(t, runtime) })
	}
}

func hardenedAgents(t *testing.T, runtime string) {
	const agents = 5
	name := acctest.Name(t)
	config := func(memory, pids int, secret string, version int) string {
		return fmt.Sprintf(`
resource "sandbox_container" "agent" {
  count        = %[1]d
  name         = "%[2]s-${count.index}"
  image        = %[3]q
  network_mode = "none"
  runtime      = %[4]q
  user         = "65534:65534"
  cap_drop     = ["ALL"]
  read_only    = true
  tmpfs = {
    "/tmp"       = "rw,size=16m,mode=1777"
    "/workspace" = "rw,exec,size=64m,uid=65534,gid=65534,mode=0700"
  }
  working_dir    = "/workspace"
  memory         = %[5]d
  pids_limit     = %[6]d
  env_wo         = { API_TOKEN = %[7]q }
  env_wo_version = %[8]d
}
`, agents, name, acctest.TestImage, runtime, memory, pids, secret, version)
	}
	tf := acctest.NewCLI(t, config(256, 128, "first-token", 1))
	t.Cleanup(func() { tf.Run("destroy", "-auto-approve") })
	empty := func(when string) {
		t.Helper()
		if plan := tf.Run("plan"); !strings.Contains(plan, "No changes") {
			t.Fatalf("plan %s is not empty:\n%s", when, plan)
		}
	}
	check := func(when string, memory, pids int64, secret string) {
		t.Helper()
		ids := tf.ExpectOnlyStateContainers(name)
		if len(ids) != agents {
			t.Fatalf("%s: %d agents, want %d", when, len(ids), agents)
		}
		for _, id := range ids {
			c := acctest.Inspect(t, id)
			if v := isolation.Assess(c.Network); !v.Isolated || !c.State.Running {
				t.Fatalf("%s: %s isolated %v (%s), status %s", when, c.Name, v.Isolated, v.Reason, c.State.Status)
			}
			if c.HostConfig.Memory != memory<<20 || c.HostConfig.PidsLimit == nil || *c.HostConfig.PidsLimit != pids {
				t.Fatalf("%s: %s has memory %d, pids %v", when, c.Name, c.HostConfig.Memory, c.HostConfig.PidsLimit)
			}
			out, err := acctest.ExecOK(context.Background(), t, id, "sh", "-c", `echo "$API_TOKEN"`)
			if err != nil || strings.TrimSpace(out) != secret {
				t.Fatalf("%s: %s sees API_TOKEN %q (%v), want %q", when, c.Name, out, err, secret)
			}
		}
		if state := tf.Exact("show", "-json", "-no-color"); strings.Contains(state, secret) {
			t.Fatalf("%s: the secret is in the state", when)
		}
	}

	tf.Run("apply", "-auto-approve")
	check("after the first apply", 256, 128, "first-token")
	empty("after the first apply")

	tf.SetConfig(config(384, 256, "first-token", 1))
	tf.Run("apply", "-auto-approve")
	check("after the limit change", 384, 256, "first-token")
	empty("after the limit change")

	tf.SetConfig(config(384, 256, "second-token", 2))
	tf.Run("apply", "-auto-approve")
	check("after the rotation", 384, 256, "second-token")
	empty("after the rotation")

	stopEngine(t)
	restartEngine(t)
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(time.Second) {
		if plan := tf.Run("plan"); strings.Contains(plan, "No changes") {
			break
		}
	}
	check("after the engine restart", 384, 256, "second-token")
	empty("after the engine restart")

	tf.Exact("state", "rm", "sandbox_container.agent[0]")
	tf.Exact("import", "-no-color", "-input=false", "sandbox_container.agent[0]", name+"-0")
	empty("after the import")
}
