package imageresource_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/acctest"
)

// A context that is a symlink to a directory builds that directory, and
// plans nothing after apply.
func TestAccImage_contextThroughASymlink(t *testing.T) {
	name := acctest.ImageName(t)
	dir := buildContext(t, name, "COPY greeting.txt /etc/greeting\n", map[string]string{"greeting.txt": "through a link"})
	link := filepath.Join(t.TempDir(), "context")
	if err := os.Symlink(dir, link); err != nil {
		t.Fatal(err)
	}
	config := imageConfig(name, link, "")
	acctest.Test(t, []resource.TestStep{{
		Config:            config,
		ConfigStateChecks: []statecheck.StateCheck{expectFile(t, "/etc/greeting", "through a link")},
	}, {
		Config:           config,
		ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
	}})
}
