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

// TestAccPool_fileTakesOneContent: a file with both contents, or none, is
// refused at validation, naming the file.
func TestAccPool_fileTakesOneContent(t *testing.T) {
	for name, file := range map[string]string{
		"both": `{ content = "a", content_base64 = "YQ==" }`,
		"none": `{ mode = "0644" }`,
	} {
		t.Run(name, func(t *testing.T) {
			acctest.Test(t, []resource.TestStep{{
				Config: `
provider "sandbox" {}

resource "sandbox_pool" "test" {
  name     = "` + acctest.Name(t) + `"
  image    = "` + acctest.TestImage + `"
  replicas = 1
  files    = { "/etc/agent/task.txt" = ` + file + ` }
}
`,
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`(?s)Invalid Attribute Combination.*/etc/agent/task.txt`),
			}})
		})
	}
}

// TestAccPool_unsafeCapabilityRefused: a capability whose effect reaches
// past the sandbox is refused at validation, saying what it would let
// root do and where it can be had instead.
func TestAccPool_unsafeCapabilityRefused(t *testing.T) {
	acctest.Test(t, []resource.TestStep{{
		Config: `
provider "sandbox" {}

resource "sandbox_pool" "test" {
  name     = "` + acctest.Name(t) + `"
  image    = "` + acctest.TestImage + `"
  replicas = 1
  cap_add  = ["CHOWN", "SYS_PTRACE"]
}
`,
		PlanOnly: true,
		ExpectError: regexp.MustCompile(`(?s)cap_add.*` + acctest.Phrase("cannot add SYS_PTRACE, with which root in a "+
			"sandbox can trace").String() + `.*allow_unsafe_capabilities`),
	}})
}
