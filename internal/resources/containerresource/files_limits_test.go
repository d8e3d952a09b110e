package containerresource_test

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/acctest"
)

// Files the sandbox would never see, and files too large to travel inline,
// are refused at plan, each with the attribute, the reason and the fix;
// nothing is created.
func TestAccContainer_filesRefusedAtPlan(t *testing.T) {
	name := acctest.Name(t)
	cases := []struct{ files, want string }{
		{`{ "/etc/hosts" = { content = "10.0.0.1 db" } }`, `files\["/etc/hosts"\] must not be /etc/hosts,.*the engine mounts its own file there`},
		{`{ "/etc/resolv.conf" = { content = "nameserver 10.0.0.53" } }`, `files\["/etc/resolv.conf"\] must not be .*the engine mounts its own file`},
		{`{ "/work/big.bin" = { content = format("%1048577s", "") } }`,
			`Files too large.*File /work/big.bin has 1048577 bytes, more than the 1048576.*sandbox_image.*volume`},
		{`{ for i in range(11) : "/work/part${i}" => { content = format("%1048576s", "") } }`,
			`Files too large.*The files have 11534336 bytes, more than the 10485760`},
	}
	steps := make([]resource.TestStep, 0, len(cases))
	for _, c := range cases {
		steps = append(steps, resource.TestStep{
			Config:      acctest.Config(name, "  network_mode = \"none\"\n  files = "+c.files+"\n"),
			PlanOnly:    true,
			ExpectError: regexp.MustCompile(`(?s)` + strings.ReplaceAll(c.want, " ", `\s+`)),
		})
	}
	acctest.Test(t, steps)
	acctest.ExpectNoContainers(t, name, "the refused plans")
}

// A file whose directory the image links under a tmpfs mount (/var/run to
// /run here) would be hidden when the sandbox starts: the create fails,
// says where the file would land and why, and leaves nothing.
func TestAccContainer_fileHiddenThroughTheImagesSymlinks(t *testing.T) {
	name := acctest.Name(t)
	dir := t.TempDir()
	acctest.Write(t, filepath.Join(dir, "Dockerfile"), fmt.Sprintf(
		"FROM %s\nRUN mkdir -p /run /var && ln -s /run /var/run\n", acctest.TestImage))
	config := fmt.Sprintf(`
resource "sandbox_image" "linked" {
  name    = "%[1]s-linked:1"
  context = %[2]q
}

resource "sandbox_container" "test" {
  name         = %[1]q
  image        = sandbox_image.linked.image_id
  network_mode = "none"
  tmpfs        = { "/run" = "" }
  files        = { "/var/run/agent.conf" = { content = "hidden" } }
}
`, name, dir)
	acctest.Test(t, []resource.TestStep{{
		Config: config,
		ExpectError: regexp.MustCompile(`(?s)File hidden through the image's symlinks.*Attribute\s+` +
			`files\["/var/run/agent.conf"\]\s+lands\s+in\s+/run,\s+where\s+the\s+image's\s+symlinks.*/run\s+is\s+mounted\s+over`),
	}})
	acctest.ExpectNoContainers(t, name, "the failed create")
}
