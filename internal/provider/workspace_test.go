package provider_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/acctest"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/isolation"
)

// The workspace example, through the real terraform CLI, offline: a volume
// seeded from a directory, mounted in a hardened sandbox running as a
// non-root user; the agent's notes survive an image rebuild that replaces
// the sandbox, and apply -replace. A later plan is empty; destroy leaves
// nothing.
func TestAccWorkspaceExample(t *testing.T) {
	name := acctest.ImageName(t)
	cli := acctest.NewCLI(t, "")
	example := filepath.Join(acctest.ModuleRoot(t), "examples", "workspace")
	for _, f := range []string{"main.tf", "agent/Dockerfile", "repo/TASK.md", "repo/.dockerignore"} {
		content, err := os.ReadFile(filepath.Join(example, f))
		if err != nil {
			t.Fatal(err)
		}
		text := strings.ReplaceAll(string(content), "sandbox-workspace", name)
		acctest.Write(t, filepath.Join(cli.Dir, f), strings.ReplaceAll(text, "tfsandbox/busybox:latest", acctest.TestImage))
	}
	defer cli.Run("destroy", "-auto-approve")
	notes := func() string {
		var outputs map[string]struct{ Value any }
		if err := json.Unmarshal([]byte(cli.Exact("output", "-json")), &outputs); err != nil {
			t.Fatal(err)
		}
		s, _ := outputs["notes"].Value.(string)
		return s
	}

	cli.Run("apply", "-auto-approve")
	first := cli.StateIDs()["sandbox_container.agent"]
	if got := notes(); got != "revision 1 read # Task\n" {
		t.Fatalf("notes after the first apply: %q", got)
	}
	cli.Run("apply", "-auto-approve", "-var", "agent_revision=2")
	if got := notes(); got != "revision 1 read # Task\nrevision 2 read # Task\n" {
		t.Errorf("notes after the rebuild: %q, want the first revision's line kept", got)
	}
	second := cli.StateIDs()["sandbox_container.agent"]
	if second == first || second == "" {
		t.Errorf("the rebuild did not replace the sandbox (%s, then %s)", first, second)
	}
	cli.Run("apply", "-auto-approve", "-var", "agent_revision=2", "-replace=sandbox_container.agent")
	if got := notes(); got != "revision 1 read # Task\nrevision 2 read # Task\nrevision 2 read # Task\n" {
		t.Errorf("notes after apply -replace: %q, want every earlier line kept", got)
	}
	if third := cli.StateIDs()["sandbox_container.agent"]; third == second {
		t.Errorf("apply -replace did not replace the sandbox")
	} else {
		second = third
	}
	c := acctest.Inspect(t, second)
	if v := isolation.Assess(c.Network); !v.Isolated || !c.HostConfig.ReadonlyRootfs || c.Config.User != "1000:1000" {
		t.Errorf("the new sandbox: isolated %t (%s), read-only %t, user %q", v.Isolated, v.Reason, c.HostConfig.ReadonlyRootfs, c.Config.User)
	}
	if plan := cli.Run("plan", "-var", "agent_revision=2"); !strings.Contains(plan, "No changes") {
		t.Errorf("a later plan is not empty:\n%s", plan)
	}
	cli.Run("destroy", "-auto-approve", "-var", "agent_revision=2")
	acctest.ExpectNoContainers(t, name, "destroy")
	if ids := acctest.ImagesNamed(t, name); len(ids) != 0 {
		t.Errorf("destroy left images %v", ids)
	}
	if _, err := acctest.Engine(t).InspectVolume(t.Context(), name); !engine.IsNotFound(err) {
		t.Errorf("destroy left the volume (%v)", err)
	}
}
