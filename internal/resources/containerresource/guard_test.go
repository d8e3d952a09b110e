package containerresource_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/acctest"
)

// The provider's isolation guard (require_isolation).

// guarded is the provider block that requires isolation, on the engine
// under test.
const guarded = `
provider "sandbox" {
  require_isolation = true
}
`

// TestAccContainer_requireIsolation: with require_isolation, a sandbox that
// leaves network_mode unset is refused at plan, naming the setting, the
// attribute and the fix, whether it is new or already made; one that sets
// it is made isolated; without the guard, an unset network_mode still
// gives the engine's default network.
func TestAccContainer_requireIsolation(t *testing.T) {
	name := acctest.Name(t)
	refused := acctest.Phrase(`The provider requires isolation`)
	fix := acctest.Phrase(`sets require_isolation = true, and this sandbox leaves network_mode unset, which would ` +
		`give it the default network of the`)
	acctest.Test(t, []resource.TestStep{
		{Config: guarded + acctest.Config(name, ""), PlanOnly: true, ExpectError: refused},
		{Config: guarded + acctest.Config(name, ""), PlanOnly: true, ExpectError: fix},
		{
			Config:            guarded + acctest.Config(name, `  network_mode = "none"`),
			ConfigStateChecks: []statecheck.StateCheck{acctest.ExpectIsolated(t, addr)},
		},
		{
			// Removing network_mode from a sandbox already made is refused
			// too: the plan never replaces it with one on a network.
			Config: guarded + acctest.Config(name, ""), PlanOnly: true,
			ExpectError: acctest.Phrase(`Set network_mode = "none" on the sandbox, or remove require_isolation`),
		},
		{
			// Without the guard, behaviour is as before: the default network.
			Config: acctest.Config(name, ""),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(addr, plancheck.ResourceActionDestroyBeforeCreate),
			}},
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(addr, attr("network_mode"), knownvalue.Null()),
				statecheck.ExpectKnownValue(addr, attr("networks"),
					knownvalue.SetExact([]knownvalue.Check{knownvalue.StringExact(acctest.DefaultNetwork(t))})),
			},
		},
	})
}

// TestAccCluster_requireIsolation: the guard refuses an unset network_mode
// on a cluster too; without it, an unset network_mode gives an isolated
// pod, and the plan that makes it says so (through the real CLI, which
// prints warnings).
func TestAccCluster_requireIsolation(t *testing.T) {
	name := acctest.ClusterName(t)
	guard := strings.Replace(acctest.ClusterProvider(t, ""), "provider \"sandbox\" {",
		"provider \"sandbox\" {\n  require_isolation = true", 1)
	sandbox := func(extra string) string {
		return fmt.Sprintf(`
resource "sandbox_container" "test" {
  name  = %q
  image = %q
%s
}
`, name, acctest.TestImage, extra)
	}
	t.Run("warning", func(t *testing.T) {
		tf := acctest.NewCLI(t, acctest.ClusterProvider(t, "")+sandbox(""))
		out := tf.Run("plan")
		if !acctest.Phrase(`network_mode is unset on a cluster`).MatchString(out) ||
			!acctest.Phrase(`this one gets no network, as with network_mode = "none"`).MatchString(out) {
			t.Errorf("the plan does not say what an unset network_mode gives on a cluster:\n%s", out)
		}
		// A runtime the cluster refuses is refused once, in the cluster's
		// terms, never with a Docker engine's files.
		tf.SetConfig(acctest.ClusterProvider(t, "") + sandbox(`  network_mode = "none"
  runtime      = "runc"`))
		out, err := tf.Try("plan", "-no-color", "-input=false")
		if err == nil || strings.Count(out, "Error: ") != 1 || strings.Contains(out, "daemon.json") {
			t.Errorf("an unknown runtime on a cluster is not refused once, in the cluster's terms:\n%s", out)
		}
	})
	acctest.ClusterTest(t, []resource.TestStep{
		{
			Config: guard + sandbox(""), PlanOnly: true,
			ExpectError: acctest.Phrase(`sets require_isolation = true, and this sandbox leaves network_mode unset`),
		},
		{
			Config: guard + sandbox(`  network_mode = "none"`),
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(addr, attr("network_mode"), knownvalue.StringExact("none")),
				acctest.ClusterIsolated(t, addr),
			},
		},
		{
			// Without the guard, unset: a pod as isolated as ever.
			Config: acctest.ClusterProvider(t, "") + sandbox(""),
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(addr, attr("network_mode"), knownvalue.Null()),
				acctest.ClusterIsolated(t, addr),
			},
		},
	})
}
