package containerresource_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/docker/docker/api/types/container"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/acctest"
)

func TestAccContainer_cliPlanExplainsLostIsolation(t *testing.T) {
	name := acctest.Name(t)
	tf := acctest.NewCLI(t, acctest.Config(name, `  network_mode = "none"`))
	t.Cleanup(func() { tf.Run("destroy", "-auto-approve") })

	tf.Run("apply", "-auto-approve")
	first := acctest.Inspect(t, name)

	ctx := context.Background()
	if !acctest.Reattach(ctx, t, name) {
		// Podman refused the breach (Reattach checked): nothing to plan.
		if plan := acctest.Flatten(tf.Run("plan")); !strings.Contains(plan, "No changes.") {
			t.Fatalf("plan after a refused reattachment:\n%s", plan)
		}
		return
	}

	plan := tf.Run("plan")
	for _, want := range []string{
		`network_mode = "bridge" -> "none" # forces replacement`,
		"Sandbox lost its network isolation",
		`the engine has attached it to network "bridge" (its network mode still reads "none")`,
		"Networks found: bridge",
		"Plan: 1 to add, 0 to change, 1 to destroy.",
	} {
		if !strings.Contains(acctest.Flatten(plan), want) {
			t.Errorf("plan output lacks %q:\n%s", want, plan)
		}
	}

	tf.Run("apply", "-auto-approve")
	second := acctest.Inspect(t, name)
	if second.ID == first.ID {
		t.Fatal("apply did not replace the sandbox")
	}
	if err := acctest.OnlyLoopbackInside(ctx, t, second.ID); err != nil {
		t.Fatalf("after apply: %v", err)
	}

	// Destroy without refresh after the container vanished: already gone is
	// success.
	if err := acctest.Docker(t).ContainerRemove(ctx, name, container.RemoveOptions{Force: true}); err != nil {
		t.Fatal(err)
	}
	tf.Run("destroy", "-auto-approve", "-refresh=false")
}

// A write-only secret reaches the sandbox through the real CLI, and appears
// neither in the plan output, nor in the state file, nor in a trace log of
// Terraform and the provider.
func TestAccContainer_cliSecretsStayOutOfStateAndLogs(t *testing.T) {
	name := acctest.Name(t)
	secret := "tfsandbox-secret-" + acctest.RandString(20)
	tf := acctest.NewCLI(t, acctest.Config(name, fmt.Sprintf(`
  network_mode   = "none"
  env_wo         = { API_TOKEN = %q }
  env_wo_version = 1
`, secret)))
	t.Cleanup(func() { tf.Run("destroy", "-auto-approve") })
	logFile := filepath.Join(tf.Dir, "trace.log")
	tf.Env = append(tf.Env, "TF_LOG=trace", "TF_LOG_PATH="+logFile)

	out := tf.Run("apply", "-auto-approve")
	if c := acctest.Inspect(t, name); !slices.Contains(c.Config.Env, "API_TOKEN="+secret) {
		t.Fatal("the sandbox's environment lacks the secret")
	}
	state, err := os.ReadFile(filepath.Join(tf.Dir, "terraform.tfstate"))
	if err != nil {
		t.Fatal(err)
	}
	trace, err := os.ReadFile(logFile)
	if err != nil {
		t.Fatal(err)
	}
	if len(trace) == 0 {
		t.Fatal("the trace log is empty, so the check below would prove nothing")
	}
	for what, text := range map[string]string{"apply output": out, "state file": string(state), "trace log": string(trace)} {
		if strings.Contains(text, secret) {
			t.Errorf("the secret appears in the %s", what)
		}
	}
}

// A limit changed behind Terraform's back reads as an in-place update in
// the plan the user sees, and apply restores it.
func TestAccContainer_cliPlanShowsChangedLimit(t *testing.T) {
	name := acctest.Name(t)
	config := acctest.Config(name, `
  network_mode = "none"
  memory       = 64
  pids_limit   = 32
`)
	if !acctest.LimitsApplied(t, name, config) {
		return
	}
	tf := acctest.NewCLI(t, config)
	t.Cleanup(func() { tf.Run("destroy", "-auto-approve") })
	tf.Run("apply", "-auto-approve")

	visible, err := acctest.UpdateLimits(context.Background(), t, name, 256<<20, 1000, 0)
	if err != nil {
		t.Fatal(err)
	}
	plan := acctest.Flatten(tf.Run("plan"))
	if !visible {
		// Podman 4 does not report what `podman update` changed: the
		// provider cannot see it (the docs say so).
		if !strings.Contains(plan, "No changes.") {
			t.Fatalf("plan after an update Podman does not report:\n%s", plan)
		}
		return
	}
	wants := []string{"~ memory = 256 -> 64", "~ pids_limit = 1000 -> 32", "Plan: 0 to add, 1 to change, 0 to destroy."}
	if acctest.InPlaceLimits(t) != plancheck.ResourceActionUpdate {
		// Podman cannot change limits in place: the plan says so.
		wants = []string{"~ memory = 256 -> 64 # forces replacement", "~ pids_limit = 1000 -> 32 # forces replacement",
			"Plan: 1 to add, 0 to change, 1 to destroy."}
	}
	for _, want := range wants {
		if !strings.Contains(plan, want) {
			t.Errorf("plan output lacks %q:\n%s", want, plan)
		}
	}
	tf.Run("apply", "-auto-approve")
	if h := acctest.Inspect(t, name).HostConfig; h.Memory != 64<<20 || *h.PidsLimit != 32 {
		t.Fatalf("apply left memory %d, pids %d", h.Memory, *h.PidsLimit)
	}
}
