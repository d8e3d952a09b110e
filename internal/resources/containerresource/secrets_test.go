package containerresource_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/acctest"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
)

// env_wo reaches the sandbox but never the state; only a new
// env_wo_version applies new values.
func TestAccContainer_secretEnvNeverStored(t *testing.T) {
	name := acctest.Name(t)
	first, second := "first-"+acctest.RandString(16), "second-"+acctest.RandString(16)
	config := func(secret string, version int) string {
		return acctest.Config(name, fmt.Sprintf(`
  network_mode   = "none"
  env            = { PLAIN = "visible" }
  env_wo         = { API_TOKEN = %q }
  env_wo_version = %d
`, secret, version))
	}
	secretInside := func(secret string) statecheck.StateCheck {
		return acctest.ExpectEngine(t, addr, func(c engine.Sandbox) error {
			if !slices.Contains(c.Config.Env, "API_TOKEN="+secret) {
				return fmt.Errorf("the sandbox's environment lacks the secret")
			}
			if c.Config.Labels["tfsandbox.secret-env-names"] != "API_TOKEN" {
				return fmt.Errorf("labels %v do not name the secret variable", c.Config.Labels)
			}
			return nil
		})
	}
	acctest.Test(t, []resource.TestStep{
		{
			Config: config(first, 1),
			ConfigStateChecks: []statecheck.StateCheck{
				secretInside(first),
				statecheck.ExpectKnownValue(addr, attr("env_wo"), knownvalue.Null()),
				acctest.StateLacks{Secret: first},
			},
		},
		{
			// Terraform cannot compare write-only values: nothing to do.
			Config: config(second, 1),
			ConfigPlanChecks: resource.ConfigPlanChecks{
				PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
			},
		},
		{
			Config: config(second, 2),
			ConfigPlanChecks: resource.ConfigPlanChecks{
				PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionDestroyBeforeCreate)},
			},
			ConfigStateChecks: []statecheck.StateCheck{secretInside(second), acctest.StateLacks{Secret: second}},
		},
		{
			// Import reads env from the engine but leaves the secret out,
			// and reads env_wo_version back from the container's record.
			ResourceName:      addr,
			ImportState:       true,
			ImportStateVerify: true,
		},
	})
}
