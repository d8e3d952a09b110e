package resources_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/network"
	"github.com/hashicorp/terraform-plugin-testing/helper/acctest"
)

// terraformCLI runs the real terraform CLI against the provider binary built
// from this tree, through dev_overrides, as a user would: no init, no
// registry. It shows what the test harness cannot: the plan as printed.
type terraformCLI struct {
	t   *testing.T
	dir string
	bin string
	env []string
}

func newTerraformCLI(t *testing.T, config string) *terraformCLI {
	t.Helper()
	if os.Getenv("TF_ACC") == "" {
		t.Skip("acceptance test: set TF_ACC=1")
	}
	bin := os.Getenv("TF_ACC_TERRAFORM_PATH")
	if bin == "" {
		var err error
		if bin, err = exec.LookPath("terraform"); err != nil {
			t.Fatal("terraform is not on PATH and TF_ACC_TERRAFORM_PATH is not set")
		}
	}

	pluginDir, workDir := t.TempDir(), t.TempDir()
	build := exec.Command("go", "build", "-o", filepath.Join(pluginDir, "terraform-provider-sandbox"), ".")
	build.Dir = filepath.Join("..", "..")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building the provider: %v\n%s", err, out)
	}

	cliConfig := filepath.Join(workDir, "dev.tfrc")
	write(t, cliConfig, fmt.Sprintf(`provider_installation {
  dev_overrides {
    "tfsandbox/sandbox" = %q
  }
  direct {}
}
`, pluginDir))
	write(t, filepath.Join(workDir, "main.tf"), `terraform {
  required_providers {
    sandbox = { source = "tfsandbox/sandbox" }
  }
}
`+config)

	env := append(os.Environ(), "TF_CLI_CONFIG_FILE="+cliConfig, "TF_IN_AUTOMATION=1", "CHECKPOINT_DISABLE=1")
	return &terraformCLI{t: t, dir: workDir, bin: bin, env: env}
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

// run runs terraform with args and returns its combined output, failing the
// test when it exits non-zero.
func (c *terraformCLI) run(args ...string) string {
	c.t.Helper()
	cmd := exec.Command(c.bin, append(args, "-no-color", "-input=false")...)
	cmd.Dir, cmd.Env = c.dir, c.env
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		c.t.Fatalf("terraform %s: %v\n%s", strings.Join(args, " "), err, out.String())
	}
	return out.String()
}

func TestAccContainer_cliPlanExplainsLostIsolation(t *testing.T) {
	preCheck(t)
	name := sandboxName(t)
	tf := newTerraformCLI(t, sandboxConfig(name, `  network_mode = "none"`))
	t.Cleanup(func() { tf.run("destroy", "-auto-approve") })

	tf.run("apply", "-auto-approve")
	first := inspect(t, name)

	ctx := context.Background()
	if err := docker(t).NetworkDisconnect(ctx, "none", name, false); err != nil {
		t.Fatal(err)
	}
	if err := docker(t).NetworkConnect(ctx, "bridge", name, &network.EndpointSettings{}); err != nil {
		t.Fatal(err)
	}

	plan := tf.run("plan")
	for _, want := range []string{
		`network_mode = "bridge" -> "none" # forces replacement`,
		"Sandbox lost its network isolation",
		`attached to network "bridge"`,
		"Networks found: bridge",
		"Plan: 1 to add, 0 to change, 1 to destroy.",
	} {
		if !strings.Contains(flatten(plan), want) {
			t.Errorf("plan output lacks %q:\n%s", want, plan)
		}
	}

	tf.run("apply", "-auto-approve")
	second := inspect(t, name)
	if second.ID == first.ID {
		t.Fatal("apply did not replace the sandbox")
	}
	names, err := interfaces(ctx, docker(t), second.ID)
	if err != nil || len(names) != 1 || names[0] != "lo" {
		t.Fatalf("interfaces after apply: %v (%v), want only lo", names, err)
	}

	// Destroy without refresh after the container vanished: already gone is
	// success.
	if err := docker(t).ContainerRemove(ctx, name, container.RemoveOptions{Force: true}); err != nil {
		t.Fatal(err)
	}
	tf.run("destroy", "-auto-approve", "-refresh=false")
}

// flatten undoes the CLI's line wrapping of diagnostics.
func flatten(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// A write-only secret reaches the sandbox through the real CLI, and appears
// neither in the plan output, nor in the state file, nor in a trace log of
// Terraform and the provider.
func TestAccContainer_cliSecretsStayOutOfStateAndLogs(t *testing.T) {
	preCheck(t)
	name := sandboxName(t)
	secret := "tfsandbox-secret-" + acctest.RandString(20)
	tf := newTerraformCLI(t, sandboxConfig(name, fmt.Sprintf(`
  network_mode   = "none"
  env_wo         = { API_TOKEN = %q }
  env_wo_version = 1
`, secret)))
	t.Cleanup(func() { tf.run("destroy", "-auto-approve") })
	logFile := filepath.Join(tf.dir, "trace.log")
	tf.env = append(tf.env, "TF_LOG=trace", "TF_LOG_PATH="+logFile)

	out := tf.run("apply", "-auto-approve")
	if c := inspect(t, name); !contains(c.Config.Env, "API_TOKEN="+secret) {
		t.Fatal("the sandbox's environment lacks the secret")
	}
	state, err := os.ReadFile(filepath.Join(tf.dir, "terraform.tfstate"))
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
	preCheck(t)
	name := sandboxName(t)
	tf := newTerraformCLI(t, sandboxConfig(name, `
  network_mode = "none"
  memory       = 64
  pids_limit   = 32
`))
	t.Cleanup(func() { tf.run("destroy", "-auto-approve") })
	tf.run("apply", "-auto-approve")

	pids := int64(1000)
	if _, err := docker(t).ContainerUpdate(context.Background(), name, container.UpdateConfig{Resources: container.Resources{
		Memory: 256 << 20, MemorySwap: 256 << 20, PidsLimit: &pids,
	}}); err != nil {
		t.Fatal(err)
	}
	plan := flatten(tf.run("plan"))
	for _, want := range []string{
		"~ memory = 256 -> 64",
		"~ pids_limit = 1000 -> 32",
		"Plan: 0 to add, 1 to change, 0 to destroy.",
	} {
		if !strings.Contains(plan, want) {
			t.Errorf("plan output lacks %q:\n%s", want, plan)
		}
	}
	tf.run("apply", "-auto-approve")
	if h := inspect(t, name).HostConfig; h.Memory != 64<<20 || *h.PidsLimit != 32 {
		t.Fatalf("apply left memory %d, pids %d", h.Memory, *h.PidsLimit)
	}
}
