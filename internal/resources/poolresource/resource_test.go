package poolresource_test

import (
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/acctest"
)

// TestAccPool_needsACluster: a pool on a Docker engine is refused at plan,
// naming what it needs and what to do, and nothing is made.
func TestAccPool_needsACluster(t *testing.T) {
	acctest.Test(t, []resource.TestStep{{
		Config: `
provider "sandbox" {}

resource "sandbox_pool" "test" {
  name     = "` + acctest.Name(t) + `"
  image    = "` + acctest.TestImage + `"
  replicas = 1
}
`,
		PlanOnly:    true,
		ExpectError: regexp.MustCompile(`(?s)Needs a cluster that runs agent-sandbox.*provider = sandbox.<alias>`),
	}})
}
