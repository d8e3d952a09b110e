package containersdatasource_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/acctest"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/isolation"
)

// On the test cluster (the cluster pass), the data source lists the
// sandboxes the provider made, with the pod's isolation verdict; a pod that
// copies a sandbox's labels and annotations is not the provider's: it is
// neither listed nor imported.
func TestAccCluster_containersDataSource(t *testing.T) {
	name := acctest.ClusterName(t)
	config := acctest.ClusterProvider(t, "") + fmt.Sprintf(`
resource "sandbox_container" "test" {
  name         = "%s-a"
  image        = %q
  network_mode = "none"
  labels       = { team = "a" }
}

data "sandbox_containers" "test" {
  name_prefix = %q
  depends_on  = [sandbox_container.test]
}
`, name, acctest.TestImage, name)
	copied := func() {
		acctest.RequireCluster(t)
		ctx := context.Background()
		pod, err := acctest.Pod(ctx, t, name+"-a")
		if err != nil {
			t.Fatal(err)
		}
		acctest.RunPod(t, acctest.ClusterPod{Name: name + "-b-copy", Labels: pod.Labels, Annotations: pod.Annotations,
			Command: []string{"sleep", "3600"}})
	}
	acctest.ClusterTest(t, []resource.TestStep{
		{Config: config},
		{
			PreConfig: copied,
			Config:    config,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(data, tfjsonpath.New("containers"), knownvalue.ListSizeExact(1)),
				statecheck.ExpectKnownValue(data, entry(0, "name"), knownvalue.StringExact(name+"-a")),
				statecheck.ExpectKnownValue(data, entry(0, "isolated"), knownvalue.Bool(true)),
				statecheck.ExpectKnownValue(data, entry(0, "network_mode"), knownvalue.StringExact(isolation.NoneMode)),
				statecheck.ExpectKnownValue(data, entry(0, "resource_type"), knownvalue.StringExact("sandbox_container")),
				statecheck.ExpectKnownValue(data, entry(0, "labels"), knownvalue.MapExact(map[string]knownvalue.Check{
					"team": knownvalue.StringExact("a"),
				})),
				statecheck.CompareValuePairs(data, entry(0, "id"), "sandbox_container.test", tfjsonpath.New("id"), compareSame),
			},
		},
		{
			// Nor is it imported.
			Config: config + fmt.Sprintf(`
resource "sandbox_container" "copy" {
  name         = "%s-b-copy"
  image        = %q
  network_mode = "none"
}
`, name, acctest.TestImage),
			ResourceName: "sandbox_container.copy", ImportState: true, ImportStateId: name + "-b-copy",
			ExpectError: acctest.Phrase("Sandbox not made by this provider"),
		},
	})
}
