package provider_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/acctest"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/isolation"
)

// The quickstart, through the real terraform CLI, offline: a new user
// builds an image from a directory, starts a read-only, network-less
// sandbox from it with a file, runs a setup command in it and reads its
// output, and lists the engine's sandboxes with their isolation. A second
// plan is empty; destroy leaves nothing.
func TestAccQuickstart(t *testing.T) {
	name := acctest.ImageName(t)
	cli := acctest.NewCLI(t, "")
	example := filepath.Join(acctest.ModuleRoot(t), "examples", "quickstart")
	main, err := os.ReadFile(filepath.Join(example, "main.tf"))
	if err != nil {
		t.Fatal(err)
	}
	acctest.Write(t, filepath.Join(cli.Dir, "main.tf"), strings.ReplaceAll(string(main), "sandbox-quickstart", name))
	for _, f := range []string{"Dockerfile", "agent-setup"} {
		content, err := os.ReadFile(filepath.Join(example, "agent", f))
		if err != nil {
			t.Fatal(err)
		}
		acctest.Write(t, filepath.Join(cli.Dir, "agent", f),
			strings.ReplaceAll(string(content), "tfsandbox/busybox:latest", acctest.TestImage))
	}
	defer cli.Run("destroy", "-auto-approve")

	cli.Run("apply", "-auto-approve")
	var outputs map[string]struct{ Value any }
	if err := json.Unmarshal([]byte(cli.Exact("output", "-json")), &outputs); err != nil {
		t.Fatal(err)
	}
	setup, _ := outputs["setup_output"].Value.(string)
	if !strings.Contains(setup, `workspace /workspace ready for task {"budget":3,"task":"summarise"}`) {
		t.Errorf("setup output %q", setup)
	}
	verdicts, _ := outputs["isolation"].Value.(map[string]any)
	if len(verdicts) != 1 || verdicts[name] != "isolated" {
		t.Errorf("isolation %v, want only %s, isolated", verdicts, name)
	}
	if plan := cli.Run("plan", "-detailed-exitcode"); !strings.Contains(plan, "No changes") {
		t.Errorf("a second plan is not empty:\n%s", plan)
	}
	c := acctest.Inspect(t, name)
	if v := isolation.Assess(c.Network); !c.HostConfig.ReadonlyRootfs || !v.Isolated {
		t.Errorf("the sandbox is read-only %t, isolated %t (%s)", c.HostConfig.ReadonlyRootfs, v.Isolated, v.Reason)
	}
	cli.Run("destroy", "-auto-approve")
	acctest.ExpectNoContainers(t, name, "destroy")
	if ids := acctest.ImagesNamed(t, name); len(ids) != 0 {
		t.Errorf("destroy left images %v", ids)
	}
}
