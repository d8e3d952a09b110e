package snapshotresource_test

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/acctest"
)

// The action sandbox_snapshot takes a snapshot when invoked: a new archive
// in its directory whose SHA-256 the apply shows, and which no state
// records.
func TestAccSnapshotAction_takenOnDemand(t *testing.T) {
	name := acctest.Name(t)
	src, dir := t.TempDir(), t.TempDir()
	acctest.Write(t, filepath.Join(src, "notes.txt"), "what the agent learnt\n")
	config := fmt.Sprintf(`
resource "sandbox_volume" "work" {
  name   = "%s-work"
  source = %q
}

action "sandbox_snapshot" "now" {
  config {
    volume    = sandbox_volume.work.name
    directory = %q
  }
}
`, name, src, dir)
	tf := acctest.NewCLI(t, config)
	t.Cleanup(func() { tf.Run("destroy", "-auto-approve") })
	tf.Run("apply", "-auto-approve")

	out := tf.Run("apply", "-auto-approve", "-invoke=action.sandbox_snapshot.now")
	m := regexp.MustCompile(`snapshot of the volume "[^"]+": (\S+) \(sha256 ([0-9a-f]{64}), (\d+) files`).FindStringSubmatch(acctest.Flatten(out))
	if m == nil {
		t.Fatalf("the invoked action did not show the snapshot:\n%s", out)
	}
	b, err := os.ReadFile(m[1])
	if sum := sha256.Sum256(b); err != nil || hex.EncodeToString(sum[:]) != m[2] {
		t.Fatalf("the archive %s: %v, SHA-256 %x, shown %s", m[1], err, sum, m[2])
	}
	if filepath.Dir(m[1]) != dir {
		t.Errorf("the archive %s is not in the directory %s", m[1], dir)
	}
	if ids := tf.StateIDs(); len(ids) != 1 {
		t.Errorf("the state holds %v, want only the volume", ids)
	}

	// The action holds volume to the name rule, as the resource does: a
	// name that is a path is refused before any engine is asked.
	tf.SetConfig(fmt.Sprintf(`
resource "sandbox_volume" "work" {
  name   = "%s-work"
  source = %q
}

action "sandbox_snapshot" "now" {
  config {
    volume    = "../%s-work"
    directory = %q
  }
}
`, name, src, name, dir))
	out, err = tf.Try("apply", "-auto-approve", "-invoke=action.sandbox_snapshot.now")
	if err == nil || !strings.Contains(acctest.Flatten(out), "must be a volume's name") {
		t.Errorf("an action naming ../ as its volume: %v\n%s", err, out)
	}
	tf.SetConfig(config) // for the destroy
}
