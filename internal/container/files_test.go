package container_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/client"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/acctest"
)

// Files are written before the sandbox starts, again when it is recreated
// after drift, and a changed source file replaces the sandbox.
func TestAccContainer_filesWrittenBeforeStart(t *testing.T) {
	name := acctest.Name(t)
	src := filepath.Join(t.TempDir(), "run.sh")
	acctest.Write(t, src, "#!/bin/sh\necho first\n")
	config := acctest.Config(name, fmt.Sprintf(`
  network_mode = "none"
  files = {
    "/work/hello.txt" = { content = "hello\n" }
    "/work/bin.dat"   = { content_base64 = "AAEC/w==" }
    "/work/run.sh"    = { source = %q, mode = "0755" }
  }
`, src))
	filesInside := func(runOutput string) statecheck.StateCheck {
		return acctest.ExpectInside(t, addr, func(ctx context.Context, id string) error {
			for cmd, want := range map[string]string{
				"cat /work/hello.txt":        "hello\n",
				"base64 /work/bin.dat":       "AAEC/w==\n",
				"/work/run.sh":               runOutput + "\n",
				"stat -c %a /work/run.sh":    "755\n",
				"stat -c %a /work/bin.dat":   "644\n",
				"stat -c %u /work/hello.txt": "0\n",
			} {
				out, err := acctest.ExecOK(ctx, t, id, "sh", "-c", cmd)
				if err != nil || out != want {
					return fmt.Errorf("%s gave %q (%s), want %q", cmd, out, acctest.ErrText(err), want)
				}
			}
			return nil
		})
	}
	digest := func(content string) knownvalue.Check {
		sum := sha256.Sum256([]byte(content))
		return knownvalue.StringExact(hex.EncodeToString(sum[:]))
	}
	acctest.Test(t, []resource.TestStep{
		{
			Config: config,
			ConfigStateChecks: []statecheck.StateCheck{
				filesInside("first"),
				statecheck.ExpectKnownValue(addr, attr("files").AtMapKey("/work/run.sh").AtMapKey("sha256"),
					digest("#!/bin/sh\necho first\n")),
			},
		},
		{
			PreConfig: acctest.OutOfBand(t, func(ctx context.Context, api *client.Client) error {
				return api.ContainerRemove(ctx, name, container.RemoveOptions{Force: true})
			}),
			Config: config,
			ConfigPlanChecks: resource.ConfigPlanChecks{
				PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionCreate)},
			},
			ConfigStateChecks: []statecheck.StateCheck{filesInside("first")},
		},
		{
			PreConfig: func() { acctest.Write(t, src, "#!/bin/sh\necho second\n") },
			Config:    config,
			ConfigPlanChecks: resource.ConfigPlanChecks{
				PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionDestroyBeforeCreate)},
			},
			ConfigStateChecks: []statecheck.StateCheck{filesInside("second")},
		},
		{
			Config: config,
			ConfigPlanChecks: resource.ConfigPlanChecks{
				PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
			},
		},
	})
}
