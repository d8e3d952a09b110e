package snapshotresource_test

import (
	"archive/tar"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/acctest"
)

// swapLoop is what the hostile sandbox runs: it keeps swapping the
// directory d of its workspace for a symbolic link to / and for a FIFO,
// as fast as it can, beside a file it keeps.
const swapLoop = `cd /workspace && echo kept > keep && ` +
	`while :; do mkdir d && echo x > d/file; rm -rf d; ln -s / d; rm -f d; mkfifo d; rm -f d; done`

// swapRace is a sandbox on s that runs swapLoop over its workspace, and
// count snapshots of the workspace, each bounded by a minute, taken while
// it runs.
func swapRace(name, dir string, s side, count int) string {
	return s.provider + fmt.Sprintf(`
resource "sandbox_volume" "work" {
  provider = sandbox.%[1]s
  name     = "%[2]s-work"
  owner    = "65534:65534"
  %[3]s
}

resource "sandbox_container" "swapper" {
  provider     = sandbox.%[1]s
  name         = "%[2]s-swapper"
  image        = %[4]q
  network_mode = "none"
  user         = "65534:65534"
  cap_drop     = ["ALL"]
  read_only    = true
  command      = ["sh", "-c", %[5]q]
  mounts       = { "/workspace" = { volume = sandbox_volume.work.name } }
}

resource "sandbox_snapshot" "race" {
  count      = %[6]d
  provider   = sandbox.%[1]s
  volume     = sandbox_volume.work.name
  directory  = %[7]q
  timeouts   = { create = "1m" }
  depends_on = [sandbox_container.swapper]
}
`, s.alias, name, s.volumeExtra, acctest.TestImage, swapLoop, count, dir)
}

// raceSnapshots applies swapRace with the real CLI: every snapshot ends
// within its minute, taken or refused because the volume changed while it
// was read, and every archive taken holds the volume's own entries only
// (d as a directory holding file, or as the link to /, which is kept as a
// link; a FIFO is left out), never what a link to / leads to.
func raceSnapshots(t *testing.T, s side) {
	name := acctest.Name(t)
	if s.volumeExtra != "" {
		name = acctest.ClusterName(t)
	}
	dir := t.TempDir()
	const count = 3
	tf := acctest.NewCLI(t, swapRace(name, dir, s, count))
	t.Cleanup(func() { tf.Run("destroy", "-auto-approve") })
	start := time.Now()
	out, err := tf.Try("apply", "-auto-approve", "-no-color", "-input=false")
	took := time.Since(start)
	t.Logf("the apply took %s:\n%s", took, out)
	if took > 4*time.Minute {
		t.Errorf("the snapshots took %s, each bounded by a minute", took)
	}
	if err != nil {
		// Only the volume's changes may stop a snapshot.
		flat := acctest.Flatten(out)
		errs := regexp.MustCompile(`Error: ([^\n]+)`).FindAllStringSubmatch(out, -1)
		for _, e := range errs {
			if strings.TrimSpace(e[1]) != "Volume changed during the snapshot" {
				t.Errorf("a snapshot failed otherwise than by the volume's change: %s\n%s", e[1], flat)
			}
		}
		if len(errs) == 0 {
			t.Fatalf("the apply failed with no error: %v", err)
		}
	}
	archives, _ := filepath.Glob(filepath.Join(dir, "*.tar"))
	t.Logf("%d of %d snapshots taken", len(archives), count)
	for _, a := range archives {
		checkOnlyTheVolume(t, a)
	}
}

// checkOnlyTheVolume fails t unless the archive at path holds only what
// swapLoop makes.
func checkOnlyTheVolume(t *testing.T, path string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }()
	tr := tar.NewReader(f)
	kept := false
	var seen []string
	defer func() { t.Logf("%s: %s", filepath.Base(path), strings.Join(seen, " ")) }()
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		entry := strings.TrimSuffix(strings.TrimPrefix(h.Name, "./"), "/")
		seen = append(seen, fmt.Sprintf("%s(%c)", entry, h.Typeflag))
		switch {
		case entry == "" || entry == ".":
		case entry == "keep" && h.Typeflag == tar.TypeReg:
			kept = true
		case entry == "d" && (h.Typeflag == tar.TypeDir || h.Typeflag == tar.TypeSymlink && h.Linkname == "/"):
		case entry == "d/file" && h.Typeflag == tar.TypeReg && h.Size <= 2:
		default:
			t.Errorf("%s holds %q (type %c, link %q), which is not the volume's", filepath.Base(path), h.Name,
				h.Typeflag, h.Linkname)
		}
	}
	if !kept {
		t.Errorf("%s lacks the file the sandbox kept", filepath.Base(path))
	}
}

// On the engine under test (the machine's Docker, Podman rootful and
// rootless, TLS and SSH in their passes), where the sandbox is paused for
// the read where the engine can pause it.
func TestAccSnapshot_swapsStayOutside(t *testing.T) {
	acctest.RequireAcc(t)
	raceSnapshots(t, underTest("engine"))
}

// On the test cluster, where a pod cannot be paused: the walk races the
// sandbox.
func TestAccClusterSnapshot_swapsStayOutside(t *testing.T) {
	acctest.RequireCluster(t)
	raceSnapshots(t, clusterSide(t, "k8s"))
}
