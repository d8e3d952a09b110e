package volumeresource_test

import (
	"fmt"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/acctest"
)

// A volume's identity is its name on a Docker engine: an import block that
// gives it imports the volume, and one that gives a namespace, as on a
// cluster, is refused.
func TestAccVolume_importByIdentity(t *testing.T) {
	name := acctest.Name(t)
	config := fmt.Sprintf(`
resource "sandbox_volume" "test" {
  name = %q
}
`, name)
	addr := "sandbox_volume.test"
	acctest.Test(t, []resource.TestStep{
		{
			Config: config,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectIdentity(addr, map[string]knownvalue.Check{
					"name":      knownvalue.StringExact(name),
					"namespace": knownvalue.Null(),
				}),
				statecheck.ExpectIdentityValueMatchesState(addr, tfjsonpath.New("name")),
			},
		},
		{
			ResourceName:    addr,
			ImportState:     true,
			ImportStateKind: resource.ImportBlockWithResourceIdentity,
		},
		{
			Config: config + fmt.Sprintf(`
resource "sandbox_volume" "other" {
  name = "%s-other"
}

import {
  to       = sandbox_volume.other
  identity = { name = %q, namespace = "agents" }
}
`, name, name),
			PlanOnly:    true,
			ExpectError: regexp.MustCompile(`(?s)has\s+no\s+namespaces:\s+give\s+identity.name\s+alone`),
		},
	})
}
