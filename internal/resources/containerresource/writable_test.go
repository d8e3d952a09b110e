package containerresource_test

import (
	"archive/tar"
	"bytes"
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/acctest"
)

// A workspace its sandbox cannot write is said at plan, naming owner and
// the fix: a volume without owner (root's) mounted writable into a sandbox
// that runs as nobody, and a volume restored from a snapshot whose root is
// root's; a volume owned by the sandbox's user, or mounted read-only, is
// not.
func TestAccContainer_unwritableWorkspaceIsSaidAtPlan(t *testing.T) {
	name := acctest.Name(t)
	var archive bytes.Buffer
	tw := tar.NewWriter(&archive)
	_ = tw.WriteHeader(&tar.Header{Name: "./", Typeflag: tar.TypeDir, Mode: 0o755})
	_ = tw.Close()
	snapshot := filepath.Join(t.TempDir(), "root.tar")
	if err := os.WriteFile(snapshot, archive.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	config := func(volume, mount string) string {
		return fmt.Sprintf(`
resource "sandbox_volume" "work" {
  name = "%[1]s-work"
%[2]s
}

resource "sandbox_container" "agent" {
  name         = "%[1]s"
  image        = %[3]q
  network_mode = "none"
  user         = "65534:65534"
  cap_drop     = ["ALL"]
  mounts       = { "/workspace" = { volume = sandbox_volume.work.name%[4]s } }
}
`, name, volume, acctest.TestImage, mount)
	}
	const warning = "Workspace not writable by the sandbox"
	cli := acctest.NewCLI(t, config("", ""))
	for _, c := range []struct {
		volume, mount string
		want          []string
	}{
		{"", "", []string{warning, `owner = "65534:65534"`, "the sandbox_volume sets no owner"}},
		{fmt.Sprintf("  snapshot = { file = %q, sha256 = \"%x\" }", snapshot, sha256.Sum256(archive.Bytes())), "",
			[]string{warning, "run the sandbox as 0:0, the snapshot's owner"}},
		{`  owner = "65534:65534"`, "", nil},
		{"", ", read_only = true", nil},
	} {
		cli.SetConfig(config(c.volume, c.mount))
		out := acctest.Flatten(cli.Run("plan"))
		if c.want == nil && strings.Contains(out, warning) {
			t.Errorf("%q%q: the plan warns:\n%s", c.volume, c.mount, out)
		}
		for _, w := range c.want {
			if !strings.Contains(out, acctest.Flatten(w)) {
				t.Errorf("%q: the plan does not say %q:\n%s", c.volume, w, out)
			}
		}
	}
}
