package provider_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/acctest"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/isolation"
)

// The multi-engine example, through the real CLI, on the engine under test
// and stock rootful Podman (in the local pass: a Docker engine and a
// Podman one): it applies, each sandbox lands on its engine isolated, a
// second plan is empty, and destroy leaves nothing on either.
func TestAccMultiEngineExample(t *testing.T) {
	name := acctest.Name(t)
	cli := acctest.NewCLI(t, "")
	podman, podmanClient := acctest.Podman(t, name)
	example, err := os.ReadFile(filepath.Join(acctest.ModuleRoot(t), "examples", "multi-engine", "main.tf"))
	if err != nil {
		t.Fatal(err)
	}
	config := strings.NewReplacer(`"agent-local"`, `"`+name+`-local"`, `"agent-remote"`, `"`+name+`-remote"`,
		`"tfsandbox/busybox:latest"`, `"`+acctest.TestImage+`"`).Replace(string(example))
	acctest.Write(t, filepath.Join(cli.Dir, "main.tf"), config)
	vars := []string{"-var", "remote_host=" + podman}
	defer cli.Run(append([]string{"destroy", "-auto-approve"}, vars...)...)

	cli.Run(append([]string{"apply", "-auto-approve"}, vars...)...)
	if v := isolation.Assess(acctest.Inspect(t, name+"-local").Network); !v.Isolated {
		t.Errorf("the sandbox on the engine under test is not isolated: %s", v.Reason)
	}
	remote, err := podmanClient.InspectContainer(context.Background(), name+"-remote")
	if err != nil {
		t.Fatalf("the sandbox on Podman: %v", err)
	}
	if v := isolation.Assess(remote.Network); !v.Isolated {
		t.Errorf("the sandbox on Podman is not isolated: %s", v.Reason)
	}
	if plan := cli.Run(append([]string{"plan"}, vars...)...); !strings.Contains(plan, "No changes") {
		t.Errorf("a second plan is not empty:\n%s", plan)
	}
	cli.Run(append([]string{"destroy", "-auto-approve"}, vars...)...)
	acctest.ExpectNoContainers(t, name, "destroy")
	acctest.ExpectNoneOn(t, podmanClient, name, "destroy")
}
