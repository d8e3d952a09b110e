package snapshotresource_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/compare"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/acctest"
)

const (
	snapAddr  = "sandbox_snapshot.work"
	againAddr = "sandbox_snapshot.again"
)

// workConfig is a workspace volume owned by nobody and an agent sandbox,
// running as nobody, that writes to it.
func workConfig(name string) string {
	return fmt.Sprintf(`
resource "sandbox_volume" "work" {
  name  = "%[1]s-work"
  owner = "65534:65534"
}

resource "sandbox_container" "agent" {
  name         = "%[1]s-agent"
  image        = %[2]q
  network_mode = "none"
  user         = "65534:65534"
  cap_drop     = ["ALL"]
  read_only    = true
  mounts       = { "/workspace" = { volume = sandbox_volume.work.name } }
}
`, name, acctest.TestImage)
}

// restoredConfig adds a snapshot of the workspace, a volume restored from
// it with a sandbox that mounts it, and a snapshot of the restored volume.
func restoredConfig(name, dir string) string {
	return workConfig(name) + fmt.Sprintf(`
resource "sandbox_snapshot" "work" {
  volume    = sandbox_volume.work.name
  directory = %[2]q
}

resource "sandbox_volume" "restored" {
  name     = "%[1]s-restored"
  snapshot = { file = sandbox_snapshot.work.file, sha256 = sandbox_snapshot.work.sha256 }
}

resource "sandbox_container" "resumed" {
  name         = "%[1]s-resumed"
  image        = %[3]q
  network_mode = "none"
  user         = "65534:65534"
  cap_drop     = ["ALL"]
  read_only    = true
  mounts       = { "/workspace" = { volume = sandbox_volume.restored.name } }
}

resource "sandbox_snapshot" "again" {
  volume    = sandbox_volume.restored.name
  directory = %[2]q
  triggers  = { after = sandbox_container.resumed.id }
}
`, name, dir, acctest.TestImage)
}

// agentWrites is what the agent writes to its workspace: nested files, a
// MiB of random bytes, an executable, and what a hostile agent would
// leave for a restore: a symbolic link out of the volume, a hard link, a
// setuid file and a FIFO.
const agentWrites = `set -e; cd /workspace
mkdir -p src/pkg; printf 'package main\n' > src/pkg/main.go; printf 'notes\n' > NOTES.md
head -c 1048576 /dev/urandom > blob; printf '#!/bin/sh\necho ran\n' > run.sh; chmod 755 run.sh
ln -s /etc/passwd escape; ln blob blob.hard; printf x > su; chmod 4755 su; mkfifo fifo; chmod 700 src`

// listing lists a workspace: every path, its mode, owner and links, and
// every file's SHA-256.
const listing = `cd /workspace && find . | sort && stat -c '%n %a %u:%g %h' $(find . | sort) ` +
	`&& readlink escape && find . -type f | sort | xargs sha256sum`

// A workspace an agent wrote is archived into a file with its digest, and
// a volume restored from it holds, byte for byte, what the agent wrote,
// less what no snapshot keeps (the FIFO, the setuid bit); the symbolic
// link out of the volume stays a link. A snapshot of the restored volume
// has the same digest. An archive changed on disk is noticed and taken
// again; destroy removes the archives.
func TestAccSnapshot_restoredByteForByte(t *testing.T) {
	name := acctest.Name(t)
	dir := t.TempDir()
	var wrote string
	digests := statecheck.CompareValue(compare.ValuesSame())
	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		CheckDestroy:             archivesGone(t, dir),
		Steps: []resource.TestStep{
			{Config: workConfig(name)},
			{
				PreConfig: func() {
					ctx := context.Background()
					id := name + "-agent"
					if _, err := acctest.ExecOK(ctx, t, id, "sh", "-c", agentWrites); err != nil {
						t.Fatal(err)
					}
					out, err := acctest.ExecOK(ctx, t, id, "sh", "-c", listing)
					if err != nil {
						t.Fatal(err)
					}
					wrote = out
				},
				Config: restoredConfig(name, dir),
				ConfigStateChecks: []statecheck.StateCheck{
					acctest.ExpectInside(t, "sandbox_container.resumed", func(ctx context.Context, id string) error {
						got, err := acctest.ExecOK(ctx, t, id, "sh", "-c", listing)
						if err != nil {
							return err
						}
						if want := restoredListing(wrote); got != want {
							return fmt.Errorf("restored:\n%s\nwant:\n%s", got, want)
						}
						return nil
					}),
					statecheck.ExpectKnownValue(snapAddr, tfjsonpath.New("files"), knownvalue.Int64Exact(10)),
					fileMatches(snapAddr),
					fileMatches(againAddr),
					digests.AddStateValue(snapAddr, tfjsonpath.New("sha256")),
					digests.AddStateValue(againAddr, tfjsonpath.New("sha256")),
				},
			},
			{
				PreConfig: func() { appendTo(t, dir, name+"-work-") },
				Config:    restoredConfig(name, dir),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(snapAddr, plancheck.ResourceActionCreate),
					plancheck.ExpectResourceAction("sandbox_volume.restored", plancheck.ResourceActionUpdate),
					plancheck.ExpectResourceAction(againAddr, plancheck.ResourceActionNoop),
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					fileMatches(snapAddr),
					digests.AddStateValue(snapAddr, tfjsonpath.New("sha256")),
				},
			},
			{
				// An archive removed on disk is taken again too.
				PreConfig: func() { removeArchive(t, dir, name+"-restored-") },
				Config:    restoredConfig(name, dir),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(againAddr, plancheck.ResourceActionCreate),
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					fileMatches(againAddr),
					digests.AddStateValue(againAddr, tfjsonpath.New("sha256")),
				},
			},
		},
	})
}

// restoredListing is what a restore of a workspace listed as wrote holds:
// no FIFO, no setuid bit, and a symbolic link root's.
func restoredListing(wrote string) string {
	var out []string
	for _, line := range strings.Split(wrote, "\n") {
		if line == "./fifo" || strings.HasPrefix(line, "./fifo ") {
			continue
		}
		line = strings.Replace(line, "./su 4755 ", "./su 755 ", 1)
		out = append(out, strings.Replace(line, "./escape 777 65534:65534", "./escape 777 0:0", 1))
	}
	return strings.Join(out, "\n")
}

// fileMatches checks that a snapshot's file is on disk with the digest and
// size its state records, and mode 0600.
func fileMatches(address string) statecheck.StateCheck {
	return stateFunc(func(attrs map[string]any) error {
		file, _ := attrs["file"].(string)
		b, err := os.ReadFile(file)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(b)
		st, err := os.Stat(file)
		switch {
		case err != nil:
			return err
		case hex.EncodeToString(sum[:]) != attrs["sha256"]:
			return fmt.Errorf("%s has SHA-256 %x, state says %v", file, sum, attrs["sha256"])
		case fmt.Sprint(len(b)) != fmt.Sprint(attrs["size_bytes"]):
			return fmt.Errorf("%s has %d bytes, state says %v", file, len(b), attrs["size_bytes"])
		case st.Mode().Perm() != 0o600:
			return fmt.Errorf("%s has mode %v", file, st.Mode())
		}
		return nil
	}, address)
}

// appendTo appends a byte to the archive in dir whose name starts with
// prefix.
func appendTo(t *testing.T, dir, prefix string) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), prefix) {
			f, err := os.OpenFile(dir+"/"+e.Name(), os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			_, _ = f.WriteString("x")
			_ = f.Close()
			return
		}
	}
	t.Fatalf("no archive %s* in %s", prefix, dir)
}

// removeArchive removes the archive in dir whose name starts with prefix.
func removeArchive(t *testing.T, dir, prefix string) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), prefix) {
			if err := os.Remove(dir + "/" + e.Name()); err != nil {
				t.Fatal(err)
			}
			return
		}
	}
	t.Fatalf("no archive %s* in %s", prefix, dir)
}

// archivesGone checks, after destroy, that the engine's sandboxes and
// volumes are gone, and that only the archive changed on disk is left.
func archivesGone(t *testing.T, dir string) func(*terraform.State) error {
	return func(s *terraform.State) error {
		if err := acctest.CheckDestroyed(t)(s); err != nil {
			return err
		}
		entries, err := os.ReadDir(dir)
		if err != nil {
			return err
		}
		if len(entries) != 1 {
			var names []string
			for _, e := range entries {
				names = append(names, e.Name())
			}
			return fmt.Errorf("%s holds %v, want only the changed archive", dir, names)
		}
		return nil
	}
}

// stateCheck checks a resource's attributes in the state.
type stateCheck struct {
	address string
	check   func(attrs map[string]any) error
}

func stateFunc(check func(attrs map[string]any) error, address string) statecheck.StateCheck {
	return stateCheck{address: address, check: check}
}

// CheckState implements statecheck.StateCheck.
func (c stateCheck) CheckState(_ context.Context, req statecheck.CheckStateRequest, resp *statecheck.CheckStateResponse) {
	if req.State == nil || req.State.Values == nil || req.State.Values.RootModule == nil {
		resp.Error = fmt.Errorf("no state")
		return
	}
	for _, r := range req.State.Values.RootModule.Resources {
		if r.Address == c.address {
			resp.Error = c.check(r.AttributeValues)
			return
		}
	}
	resp.Error = fmt.Errorf("%s is not in the state", c.address)
}
