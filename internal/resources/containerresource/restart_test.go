package containerresource_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/client"
	"github.com/hashicorp/terraform-plugin-testing/compare"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/acctest"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
)

// The default restart policy brings a sandbox back after an engine restart
// (the engine-restart test in internal/faults proves it); a change is
// applied in place where the engine can (replaced on Podman), and a change
// behind Terraform's back is brought back.
func TestAccContainer_restartPolicy(t *testing.T) {
	name := acctest.Name(t)
	acctest.RequireAcc(t)
	config := func(extra string) string { return acctest.Config(name, "  network_mode = \"none\"\n"+extra) }
	policy := func(want string) statecheck.StateCheck {
		return acctest.ExpectEngine(t, addr, func(c engine.Sandbox) error {
			if got := engine.ObservedRestart(c.HostConfig); got != want {
				return fmt.Errorf("restart policy %q, want %q", got, want)
			}
			return nil
		})
	}
	inPlace := acctest.InPlaceLimits(t) == plancheck.ResourceActionUpdate
	ids := statecheck.CompareValue(compare.ValuesSame())
	if !inPlace {
		ids = statecheck.CompareValue(compare.ValuesDiffer())
	}
	steps := []resource.TestStep{
		{
			Config: config(""),
			ConfigStateChecks: []statecheck.StateCheck{
				ids.AddStateValue(addr, attr("id")),
				statecheck.ExpectKnownValue(addr, attr("restart"), knownvalue.StringExact("unless-stopped")),
				policy("unless-stopped"),
			},
		},
		{
			Config: config(`  restart = "on-failure"`),
			ConfigPlanChecks: resource.ConfigPlanChecks{
				PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, acctest.InPlaceLimits(t))},
			},
			ConfigStateChecks: []statecheck.StateCheck{ids.AddStateValue(addr, attr("id")), policy("on-failure")},
		},
		{
			ResourceName:      addr,
			ImportState:       true,
			ImportStateVerify: true,
		},
	}
	if inPlace {
		steps = append(steps, resource.TestStep{
			PreConfig: acctest.OutOfBand(t, func(ctx context.Context, api *client.Client) error {
				_, err := api.ContainerUpdate(ctx, name, container.UpdateConfig{
					RestartPolicy: container.RestartPolicy{Name: container.RestartPolicyAlways}})
				return err
			}),
			Config: config(`  restart = "on-failure"`),
			ConfigPlanChecks: resource.ConfigPlanChecks{
				PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
					acctest.ExpectPriorValue{Address: addr, Attribute: "restart", Want: "always"},
				},
			},
			ConfigStateChecks: []statecheck.StateCheck{ids.AddStateValue(addr, attr("id")), policy("on-failure")},
		})
	}
	acctest.Test(t, steps)
}
