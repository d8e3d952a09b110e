package containerresource_test

import (
	"fmt"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/acctest"
)

// A sandbox's identity (Terraform 1.12 and later) is its container ID on a
// Docker engine; an import block that gives it imports the sandbox, and
// one that names a pod, as on a cluster, is refused with the attribute to
// give.
func TestAccContainer_importByIdentity(t *testing.T) {
	name := acctest.Name(t)
	config := acctest.Config(name, `  network_mode = "none"`)
	acctest.Test(t, []resource.TestStep{
		{
			Config: config,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectIdentity(addr, map[string]knownvalue.Check{
					"id":        knownvalue.StringRegexp(regexp.MustCompile(`^[0-9a-f]{64}$`)),
					"namespace": knownvalue.Null(),
					"name":      knownvalue.Null(),
					"uid":       knownvalue.Null(),
				}),
				statecheck.ExpectIdentityValueMatchesState(addr, attr("id")),
			},
		},
		{
			ResourceName:    addr,
			ImportState:     true,
			ImportStateKind: resource.ImportBlockWithResourceIdentity,
		},
		{
			Config: config + fmt.Sprintf(`
resource "sandbox_container" "other" {
  name         = "%s-other"
  image        = %q
  network_mode = "none"
}

import {
  to       = sandbox_container.other
  identity = { name = %q }
}
`, name, acctest.TestImage, name),
			PlanOnly:    true,
			ExpectError: regexp.MustCompile(`(?s)names a sandbox by its container\s+ID\s+alone:\s+give\s+identity.id`),
		},
	})
}
