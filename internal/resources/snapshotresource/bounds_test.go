package snapshotresource_test

import (
	"context"
	"fmt"
	"os"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/acctest"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
)

// memoryConfig is a memory volume (a tmpfs, where a sparse file of any
// size is free) and a sandbox that writes to it.
func memoryConfig(name string) string {
	return fmt.Sprintf(`
resource "sandbox_volume" "mem" {
  name    = "%[1]s-mem"
  medium  = "memory"
  size_mb = 2
}

resource "sandbox_container" "agent" {
  name         = "%[1]s-agent"
  image        = %[2]q
  network_mode = "none"
  cap_drop     = ["ALL"]
  read_only    = true
  mounts       = { "/workspace" = { volume = sandbox_volume.mem.name } }
}
`, name, acctest.TestImage)
}

// A 1-byte file, then a sparse file of 2^63-1 bytes: a bound checked as
// bytes+size > max wraps in int64, and the snapshot streamed zeros into
// the directory until the disk or its timeout gave out. The header alone
// is refused by max_size_mb, and nothing is left in the directory. The
// snapshot's timeout is short, so that the old behaviour fails this test
// as a timeout rather than after 20 minutes.
func TestAccSnapshot_sparseFileOfEveryByteIsRefusedAtOnce(t *testing.T) {
	name := acctest.Name(t)
	dir := t.TempDir()
	snapshot := fmt.Sprintf(`
resource "sandbox_snapshot" "work" {
  volume      = sandbox_volume.mem.name
  directory   = %q
  max_size_mb = 1
  timeouts    = { create = "2m" }
  depends_on  = [sandbox_container.agent]
}
`, dir)
	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		CheckDestroy: func(s *terraform.State) error {
			if err := acctest.CheckDestroyed(t)(s); err != nil {
				return err
			}
			return emptyDir(dir)
		},
		Steps: []resource.TestStep{
			{Config: memoryConfig(name)},
			{
				PreConfig: func() {
					if _, err := acctest.ExecOK(context.Background(), t, name+"-agent", "sh", "-c",
						"printf x > /workspace/a-one && truncate -s 9223372036854775807 /workspace/b-huge"); err != nil {
						t.Fatal(err)
					}
				},
				Config:      memoryConfig(name) + snapshot,
				ExpectError: regexp.MustCompile(`(?s)Volume too large for the snapshot.*max_size_mb \(1 MiB\)`),
			},
			{
				PreConfig: func() {
					if err := emptyDir(dir); err != nil {
						t.Fatal(err)
					}
				},
				Config: memoryConfig(name),
			},
		},
	})
}

// emptyDir fails unless dir holds nothing: no archive, no part of one.
func emptyDir(dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	if len(entries) > 0 {
		return fmt.Errorf("%s holds %s, want nothing", dir, entries[0].Name())
	}
	return nil
}

// Two snapshots in one apply, as Terraform runs them side by side: a
// volume of one file beside one of 4 GiB (a sparse file, whose every byte
// the engine still streams). Each finishes within its own timeout,
// whatever the other holds: the small one's is 2 minutes, far less than
// the large one takes. Then both are restored, side by side, the same way.
func TestAccSnapshot_smallBesideLarge(t *testing.T) {
	name := acctest.Name(t)
	dir := t.TempDir()
	config := fmt.Sprintf(`
resource "sandbox_volume" "large" {
  name = "%[1]s-large"
}

resource "sandbox_volume" "small" {
  name = "%[1]s-small"
}

resource "sandbox_container" "agent" {
  name         = "%[1]s-agent"
  image        = %[2]q
  network_mode = "none"
  cap_drop     = ["ALL"]
  read_only    = true
  mounts = {
    "/large" = { volume = sandbox_volume.large.name }
    "/small" = { volume = sandbox_volume.small.name }
  }
}
`, name, acctest.TestImage)
	snapshots := fmt.Sprintf(`
resource "sandbox_snapshot" "large" {
  volume      = sandbox_volume.large.name
  directory   = %[1]q
  max_size_mb = 8192
  depends_on  = [sandbox_container.agent]
}

resource "sandbox_snapshot" "small" {
  volume     = sandbox_volume.small.name
  directory  = %[1]q
  timeouts   = { create = "2m" }
  depends_on = [sandbox_container.agent]
}
`, dir)
	acctest.Test(t, []resource.TestStep{
		{Config: config},
		{
			PreConfig: func() {
				if _, err := acctest.ExecOK(context.Background(), t, name+"-agent", "sh", "-c",
					"truncate -s 4294967296 /large/big && printf small > /small/one"); err != nil {
					t.Fatal(err)
				}
			},
			Config: config + snapshots,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("sandbox_snapshot.small", tfjsonpath.New("files"), knownvalue.Int64Exact(2)),
				statecheck.ExpectKnownValue("sandbox_snapshot.large", tfjsonpath.New("files"), knownvalue.Int64Exact(2)),
			},
		},
		{
			// And restored side by side: the small restore's timeout is
			// 2 minutes too.
			Config: config + snapshots + fmt.Sprintf(`
resource "sandbox_volume" "large_again" {
  name     = "%[1]s-large-again"
  snapshot = { file = sandbox_snapshot.large.file, sha256 = sandbox_snapshot.large.sha256 }
}

resource "sandbox_volume" "small_again" {
  name     = "%[1]s-small-again"
  snapshot = { file = sandbox_snapshot.small.file, sha256 = sandbox_snapshot.small.sha256 }
  timeouts = { create = "2m" }
}
`, name),
			ConfigStateChecks: []statecheck.StateCheck{
				acctest.ExpectVolume(t, name+"-small-again", func(engine.Volume) error { return nil }),
				acctest.ExpectVolume(t, name+"-large-again", func(engine.Volume) error { return nil }),
			},
		},
	})
}
