package volumeresource_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/docker/docker/api/types/volume"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/acctest"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
)

// After their state is lost, terraform query finds the volumes
// sandbox_volume made, seeded or not, and not a volume made by hand; the
// import of what it generates adopts them, copying nothing, and the plan
// after it is empty.
func TestAccVolume_queryFindsVolumesAStateLost(t *testing.T) {
	name := acctest.Name(t)
	src := t.TempDir()
	acctest.Write(t, filepath.Join(src, "notes.txt"), "kept\n")
	tf := acctest.NewCLI(t, fmt.Sprintf(`
resource "sandbox_volume" "plain" {
  name   = "%[1]s-plain"
  labels = { team = "agents" }
}

resource "sandbox_volume" "seeded" {
  name    = "%[1]s-seeded"
  source  = %[2]q
}
`, name, src))
	t.Cleanup(func() { tf.Run("destroy", "-auto-approve") })
	tf.Run("apply", "-auto-approve")

	ctx := context.Background()
	api := acctest.Docker(t)
	byHand := name + "-by-hand"
	if _, err := api.VolumeCreate(ctx, volume.CreateOptions{Name: byHand, Labels: map[string]string{"team": "agents"}}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = api.VolumeRemove(ctx, byHand, true) })
	// A copy of every label of one of them, create token included.
	plain, err := api.VolumeInspect(ctx, name+"-plain")
	if err != nil {
		t.Fatal(err)
	}
	copied := name + "-copy"
	if _, err := api.VolumeCreate(ctx, volume.CreateOptions{Name: copied, Labels: plain.Labels}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = api.VolumeRemove(ctx, copied, true) })

	// The state is lost.
	tf.SetConfig("")
	tf.Exact("state", "rm", "sandbox_volume.plain", "sandbox_volume.seeded")
	generated, _ := tf.Query(`
list "sandbox_volume" "left" {
  provider         = sandbox
  include_resource = true
  config {
    name_prefix = "` + name + `"
  }
}
`)
	for _, want := range []string{name + "-plain", name + "-seeded"} {
		if !strings.Contains(generated, `"`+want+`"`) {
			t.Errorf("terraform query did not find %s:\n%s", want, generated)
		}
	}
	for _, foreign := range []string{byHand, copied} {
		if strings.Contains(generated, foreign) {
			t.Errorf("terraform query found the volume made by hand %s:\n%s", foreign, generated)
		}
	}
	tf.Run("apply", "-auto-approve")
	if ids := tf.StateIDs(); len(ids) != 2 {
		t.Fatalf("the import adopted %v, want the 2 volumes", ids)
	}
	if out, err := tf.Try("plan", "-detailed-exitcode", "-no-color", "-input=false"); err != nil {
		t.Fatalf("the plan after the import is not empty (%v):\n%s", err, out)
	}
	// Nor is the copy imported by name, and the destroy leaves it.
	acctest.Write(t, filepath.Join(tf.Dir, "copy.tf"), fmt.Sprintf("resource \"sandbox_volume\" \"copy\" {\n  name = %q\n}\n", copied))
	out, err := tf.Try("import", "-no-color", "-input=false", "sandbox_volume.copy", copied)
	if err == nil || !acctest.Phrase("Volume not made by this provider").MatchString(out) {
		t.Errorf("importing the copy did not fail as it should (%v):\n%s", err, out)
	}
	acctest.Write(t, filepath.Join(tf.Dir, "copy.tf"), "")
	tf.Run("destroy", "-auto-approve")
	if v, err := api.VolumeInspect(ctx, copied); err != nil || v.Labels[engine.LabelCreateToken] != plain.Labels[engine.LabelCreateToken] {
		t.Errorf("the destroy changed the copy %s: %v", copied, err)
	}
}
