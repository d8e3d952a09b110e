package filedatasource_test

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/acctest"
)

// sandbox is a network-less sandbox holding a text result, a binary one
// and a directory, and a volume seeded with a README that it mounts.
func sandbox(t *testing.T, name string) string {
	source := t.TempDir()
	acctest.Write(t, filepath.Join(source, "README.md"), "from the volume\n")
	return fmt.Sprintf(`
resource "sandbox_volume" "work" {
  name   = %[1]q
  source = %[3]q
}

resource "sandbox_container" "agent" {
  name         = %[1]q
  image        = %[2]q
  network_mode = "none"
  mounts       = { "/workspace" = { volume = sandbox_volume.work.name } }
  files = {
    "/out/result.json" = { content = "{\"ok\": true}\n" }
    "/out/blob.bin"    = { content_base64 = "AP8BAg==" }
    "/out/dir/x"       = { content = "x" }
  }
}
`, name, acctest.TestImage, source)
}

func read(args string) string {
	return fmt.Sprintf("\ndata \"sandbox_file\" \"test\" {\n%s\n}\n", args)
}

const data = "data.sandbox_file.test"

func attr(name string) tfjsonpath.Path { return tfjsonpath.New(name) }

// A result is read from a sandbox as text and base64, or into the
// sensitive attributes only; a volume is read through the sandbox that
// mounts it.
func TestAccFileDataSource_readsResults(t *testing.T) {
	name := acctest.Name(t)
	base := sandbox(t, name)
	acctest.Test(t, []resource.TestStep{
		{
			Config: base + read(`  container = sandbox_container.agent.id
  path      = "/out/result.json"`),
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(data, attr("content"), knownvalue.StringExact("{\"ok\": true}\n")),
				statecheck.ExpectKnownValue(data, attr("content_base64"), knownvalue.StringExact("eyJvayI6IHRydWV9Cg==")),
				statecheck.ExpectKnownValue(data, attr("size"), knownvalue.Int64Exact(13)),
				statecheck.ExpectKnownValue(data, attr("read_through"), knownvalue.StringExact(name)),
				statecheck.ExpectKnownValue(data, attr("sensitive_content"), knownvalue.Null()),
			},
		},
		{
			Config: base + read(`  container = sandbox_container.agent.name
  path      = "/out/blob.bin"`),
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(data, attr("content"), knownvalue.Null()),
				statecheck.ExpectKnownValue(data, attr("content_base64"), knownvalue.StringExact("AP8BAg==")),
			},
		},
		{
			Config: base + read(`  container = sandbox_container.agent.id
  path      = "/out/result.json"
  sensitive = true`),
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(data, attr("content"), knownvalue.Null()),
				statecheck.ExpectKnownValue(data, attr("content_base64"), knownvalue.Null()),
				statecheck.ExpectKnownValue(data, attr("sensitive_content"), knownvalue.StringExact("{\"ok\": true}\n")),
			},
		},
		{
			Config: base + read(`  volume     = sandbox_volume.work.name
  path       = "README.md"
  depends_on = [sandbox_container.agent]`),
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(data, attr("content"), knownvalue.StringExact("from the volume\n")),
				statecheck.ExpectKnownValue(data, attr("read_through"), knownvalue.StringExact(name)),
			},
		},
	})
}

// A missing file, one too large, a directory, a volume no container
// mounts, and paths of the wrong kind are errors that say which and why.
func TestAccFileDataSource_refusals(t *testing.T) {
	name := acctest.Name(t)
	base := sandbox(t, name)
	lonely := fmt.Sprintf("resource \"sandbox_volume\" \"lonely\" {\n  name = \"%s-lonely\"\n}\n", name)
	cases := []struct{ args, want string }{
		{"container = sandbox_container.agent.id\n path = \"/out/missing.json\"", `No such file.*/out/missing.json is not in the container`},
		{"container = \"tfacc-no-such-sandbox\"\n path = \"/x\"", `No such sandbox.*has no container "tfacc-no-such-sandbox"`},
		{"container = sandbox_container.agent.id\n path = \"/out/result.json\"\n max_size = 4", `File too large.*is 13 bytes, more than max_size \(4\)`},
		{"container = sandbox_container.agent.id\n path = \"/out/dir\"", `Not a regular file.*/out/dir is a directory`},
		{"container = sandbox_container.agent.id\n path = \"out/result.json\"", `Path not absolute`},
		{"volume = sandbox_volume.work.name\n path = \"/README.md\"", `Path not in the volume.*relative to the volume's root`},
		{"volume = sandbox_volume.lonely.name\n path = \"README.md\"", `No container to read the volume through.*no container mounts it`},
		{"container = sandbox_container.agent.id\n volume = sandbox_volume.work.name\n path = \"x\"", `Exactly one of these attributes must be configured`},
		{"container = sandbox_container.agent.id\n path = \"/out/../etc/passwd\"", `must be a clean path, without \.\.`},
		{"container = sandbox_container.agent.id\n path = \"/x\"\n max_size = 20000000", `max_size value must be between 1 and 10485760`},
	}
	steps := []resource.TestStep{{Config: base + lonely}}
	for _, c := range cases {
		steps = append(steps, resource.TestStep{
			Config:      base + lonely + read(c.args),
			ExpectError: regexp.MustCompile(`(?s)` + strings.ReplaceAll(c.want, " ", `\s+`)),
		})
	}
	// The destroy at the end runs the last configuration.
	steps = append(steps, resource.TestStep{Config: base + lonely})
	acctest.Test(t, steps)
}
