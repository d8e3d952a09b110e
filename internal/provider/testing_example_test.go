package provider_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/acctest"
)

// The terraform test example (examples/testing) passes with the provider
// mocked and no engine reachable, and fails, naming the assertion, when
// the module loosens what it promises.
func TestAccTerraformTestExample(t *testing.T) {
	cli := acctest.NewCLI(t, "")
	example := filepath.Join(acctest.ModuleRoot(t), "examples", "testing")
	module := ""
	for _, f := range []string{"main.tf", "tests/agent.tftest.hcl"} {
		content, err := os.ReadFile(filepath.Join(example, f))
		if err != nil {
			t.Fatal(err)
		}
		if f == "main.tf" {
			module = string(content)
		}
		acctest.Write(t, filepath.Join(cli.Dir, f), string(content))
	}
	// No engine: a mocked provider must not need one.
	cli.Env = append(cli.Env, "DOCKER_HOST=unix://"+filepath.Join(t.TempDir(), "no-engine.sock"))

	out := cli.Exact("test", "-no-color")
	if !strings.Contains(out, "5 passed, 0 failed") {
		t.Fatalf("the example's tests did not all pass:\n%s", out)
	}

	acctest.Write(t, filepath.Join(cli.Dir, "main.tf"), strings.Replace(module, `user         = "65534:65534"`, `user         = "0:0"`, 1))
	out, err := cli.Try("test", "-no-color")
	if err == nil || !strings.Contains(out, "The sandbox must not run as root.") {
		t.Fatalf("a sandbox running as root passed the example's tests (%v):\n%s", err, out)
	}
}
