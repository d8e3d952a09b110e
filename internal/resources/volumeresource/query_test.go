package volumeresource_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/docker/docker/api/types/volume"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/acctest"
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
	if strings.Contains(generated, byHand) {
		t.Errorf("terraform query found the volume made by hand:\n%s", generated)
	}
	tf.Run("apply", "-auto-approve")
	if ids := tf.StateIDs(); len(ids) != 2 {
		t.Fatalf("the import adopted %v, want the 2 volumes", ids)
	}
	if out, err := tf.Try("plan", "-detailed-exitcode", "-no-color", "-input=false"); err != nil {
		t.Fatalf("the plan after the import is not empty (%v):\n%s", err, out)
	}
}
