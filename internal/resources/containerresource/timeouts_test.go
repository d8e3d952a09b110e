package containerresource_test

import (
	"regexp"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/acctest"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
)

// A create cut off by its timeout after the engine created the container
// (here: the engine never answers the start request) removes that
// container and says so.
func TestAccContainer_createTimeoutRemovesHalfCreatedSandbox(t *testing.T) {
	name := acctest.Name(t)
	proxy := acctest.NewFaultyEngine(t)
	proxy.SetRule(acctest.On(acctest.IsContainerStart, acctest.Stall))
	acctest.Test(t, []resource.TestStep{{
		Config: proxy.ProviderBlock() + acctest.Config(name, `
  network_mode = "none"
  timeouts     = { create = "3s" }
`),
		ExpectError: regexp.MustCompile(`(?s)Sandbox creation timed out.*timeouts.create`),
	}})
	if proxy.Count(acctest.Stall) == 0 {
		t.Fatal("the create never reached the start request, so no half-created sandbox was cleaned up")
	}
	acctest.ExpectNoContainers(t, name, "a create that timed out after the container was made")
}

// A refresh against an engine that stops answering fails within the
// engine's call deadline, naming the endpoint, instead of hanging the plan;
// once the engine answers again, the plan is empty.
func TestAccContainer_frozenEngineFailsPlanInBoundedTime(t *testing.T) {
	name := acctest.Name(t)
	var frozeAt time.Time
	proxy := acctest.NewFaultyEngine(t)
	config := proxy.ProviderBlock() + acctest.Config(name, `  network_mode = "none"`)
	acctest.Test(t, []resource.TestStep{
		{Config: config},
		{
			PreConfig: func() {
				proxy.SetRule(acctest.On(acctest.IsContainerInspect, acctest.Stall))
				frozeAt = time.Now()
			},
			Config:   config,
			PlanOnly: true,
			ExpectError: regexp.MustCompile(`(?s)Cannot read sandbox.*` + regexp.QuoteMeta(proxy.Host) +
				`.*did\s+not\s+answer\s+the\s+request\s+to\s+inspect\s+a\s+container\s+within\s+30s`),
		},
		{
			PreConfig: func() {
				if took := time.Since(frozeAt); took > engine.QuickCallTimeout+15*time.Second {
					t.Errorf("the plan against a frozen engine took %s, more than the %s deadline", took, engine.QuickCallTimeout)
				}
				proxy.SetRule(acctest.On(acctest.IsContainerInspect, acctest.Forward))
			},
			Config: config,
			ConfigPlanChecks: resource.ConfigPlanChecks{
				PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
			},
		},
	})
}

// A destroy that the engine does not answer ends with the delete timeout,
// within a few seconds of it, and says how to remove the sandbox by hand;
// the next destroy, with the engine answering, removes it.
func TestAccContainer_deleteTimeoutHolds(t *testing.T) {
	name := acctest.Name(t)
	proxy := acctest.NewFaultyEngine(t)
	config := proxy.ProviderBlock() + acctest.Config(name, `
  network_mode = "none"
  timeouts     = { delete = "3s" }
`)
	var stalledAt time.Time
	acctest.Test(t, []resource.TestStep{
		{Config: config},
		{
			PreConfig: func() {
				proxy.SetRule(acctest.On(acctest.IsContainerRemove, acctest.Stall))
				stalledAt = time.Now()
			},
			Config:      config,
			Destroy:     true,
			ExpectError: regexp.MustCompile(`(?s)Sandbox deletion timed out.*delete\s+timeout\s+\(3s\).*rm\s+-f`),
		},
		{
			PreConfig: func() {
				// The refresh, plan and CLI start-up come on top of the 3 s.
				if took := time.Since(stalledAt); took > 20*time.Second {
					t.Errorf("the destroy with a 3 s delete timeout took %s", took)
				}
				proxy.SetRule(acctest.On(acctest.IsContainerRemove, acctest.Forward))
			},
			Config: config,
		},
	})
}
