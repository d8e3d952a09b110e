package container_test

import (
	"fmt"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/acctest"
)

// A create cut off by its timeout after the engine created the container
// (here: the engine never answers the start request) removes that
// container and says so.
func TestAccContainer_createTimeoutRemovesHalfCreatedSandbox(t *testing.T) {
	name := acctest.Name(t)
	proxy := acctest.NewStallingEngine(t, acctest.IsContainerStart)
	acctest.Test(t, []resource.TestStep{{
		Config: fmt.Sprintf(`
provider "sandbox" {
  host = %q
}
`, proxy.Host) + acctest.Config(name, `
  network_mode = "none"
  timeouts     = { create = "3s" }
`),
		ExpectError: regexp.MustCompile(`(?s)Sandbox creation timed out.*timeouts.create`),
	}})
	if proxy.Stalled.Load() == 0 {
		t.Fatal("the create never reached the start request, so no half-created sandbox was cleaned up")
	}
	acctest.ExpectNoContainers(t, name, "a create that timed out after the container was made")
}
