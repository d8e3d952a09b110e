package snapshotresource_test

import (
	"archive/tar"
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/acctest"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
)

// What a hostile sandbox writes to make a restore unpack more than the
// provider checked, carried from one engine to another: the restored side
// must hold exactly what the writing side listed.

// hostileOwner is an owner past the 21 bits of a tar header's octal
// field, as OpenShift-style and user-namespaced IDs are.
const hostileOwner = "3000000:3000000"

// hostileTrip is a workspace written on from by a sandbox running as
// hostileOwner with write, snapshotted, restored on to, and listed on both
// sides with list.
func hostileTrip(name, dir string, from, to side, write, list string) string {
	sandbox := func(s side, role, volume string) string { return sandboxOn(s, role, volume, name, hostileOwner) }
	return from.provider + to.provider + fmt.Sprintf(`
resource "sandbox_volume" "work" {
  provider = sandbox.%[1]s
  name     = "%[3]s-work"
  owner    = %[9]q
  %[4]s
}

resource "sandbox_exec" "write" {
  provider     = sandbox.%[1]s
  container_id = sandbox_container.agent.id
  command      = ["sh", "-c", %[6]q]
  timeout      = "5m"
}

resource "sandbox_snapshot" "work" {
  provider    = sandbox.%[1]s
  volume      = sandbox_volume.work.name
  directory   = %[7]q
  max_size_mb = 20480
  triggers    = { after = sandbox_exec.write.id }
}

resource "sandbox_volume" "resumed" {
  provider = sandbox.%[2]s
  name     = "%[3]s-resumed"
  snapshot = { file = sandbox_snapshot.work.file, sha256 = sandbox_snapshot.work.sha256 }
  timeouts = { create = "20m" }
  %[5]s
}

resource "sandbox_exec" "read" {
  provider     = sandbox.%[2]s
  container_id = sandbox_container.resumed.id
  command      = ["sh", "-c", %[8]q]
}

output "wrote" { value = sandbox_exec.write.stdout }
output "read" { value = sandbox_exec.read.stdout }
`, from.alias, to.alias, name, from.volumeExtra, to.volumeExtra, write+"\n"+list, dir, list, hostileOwner) +
		sandbox(from, "agent", "sandbox_volume.work") + sandbox(to, "resumed", "sandbox_volume.resumed")
}

// hostileListing lists a workspace: every path with its type, mode,
// owner, size and time, and the first bytes of the large file.
const hostileListing = `cd /workspace && find . | sort | while read -r f; do stat -c '%n %F %a %u:%g %s %Y' "$f"; done`

// setuidTarBase64 is a tar of a setuid-root program, in base64: what the
// large file's content starts with, for a reader that takes content for
// headers.
func setuidTarBase64(t *testing.T) string {
	var b bytes.Buffer
	tw := tar.NewWriter(&b)
	if err := tw.WriteHeader(&tar.Header{Name: "evil", Typeflag: tar.TypeReg, Mode: 0o4755, Size: 4,
		ModTime: time.Unix(1700000000, 0)}); err != nil {
		t.Fatal(err)
	}
	_, _ = tw.Write([]byte("#!/x"))
	_ = tw.Flush()
	return base64.StdEncoding.EncodeToString(b.Bytes())
}

// The case: a sandbox on Docker writes a sparse file of 9 GiB
// whose content starts with a tar of a setuid-root program, an entry that
// sorts after it, and its files as uid 3000000. Restored into a claim on
// the test cluster, the claim holds exactly that: the 9 GiB file with its
// size, no setuid program beside it, the entry after it, and uid 3000000.
// Before, busybox's tar in the helper read the file as empty and its
// content as a root-owned setuid `evil`, and owners of 2^21 and more as
// root.
func TestAccClusterSnapshot_hostileContentRestoredExactly(t *testing.T) {
	acctest.RequireCluster(t)
	name := acctest.ClusterName(t)
	write := fmt.Sprintf(`set -e; cd /workspace
echo %s | base64 -d > big; truncate -s 9663676416 big; printf after > zz-after; mkdir sub; printf x > sub/file`,
		setuidTarBase64(t))
	cluster := clusterSide(t, "k8s")
	cluster.volumeExtra = "size_mb = 10240"
	tf := acctest.NewCLI(t, hostileTrip(name, t.TempDir(), dockerSide("engine"), cluster, write, hostileListing))
	t.Cleanup(func() { tf.Run("destroy", "-auto-approve") })
	tf.Run("apply", "-auto-approve")
	wrote, read := tf.Exact("output", "-raw", "wrote"), tf.Exact("output", "-raw", "read")
	for _, want := range []string{"./big regular file 644 3000000:3000000 9663676416 ", "./zz-after regular file"} {
		if !strings.Contains(wrote, want) {
			t.Fatalf("the sandbox's listing lacks %q:\n%s", want, wrote)
		}
	}
	if read != wrote {
		t.Fatalf("restored on the cluster:\n%s\nwritten on Docker:\n%s", read, wrote)
	}
}

// A claim written by a sandbox running as uid 3000000 on the cluster,
// with a file dated before 1970, read by the provider's own program in the
// helper pod: the snapshot keeps both (busybox's `tar -c` kept only the
// last 8 octal digits of such an owner, and wrote the time as 1970). The
// Docker engine's archive endpoint would restore that time as 1970, so the
// restore there is refused, naming the entry, and leaves no volume.
func TestAccClusterSnapshot_largeOwnersAndOldTimesLeaveTheCluster(t *testing.T) {
	acctest.RequireCluster(t)
	name := acctest.ClusterName(t)
	dir := t.TempDir()
	write := `set -e; cd /workspace; printf old > old; touch -d '1969-07-20 20:17:40' old; mkdir d; printf n > d/new`
	cluster := clusterSide(t, "k8s")
	tf := acctest.NewCLI(t, hostileTrip(name, dir, cluster, dockerSide("engine"), write, hostileListing)+`
output "file" { value = sandbox_snapshot.work.file }
`)
	t.Cleanup(func() { tf.Run("destroy", "-auto-approve") })
	out, err := tf.Try("apply", "-auto-approve", "-no-color", "-input=false")
	if err == nil || !strings.Contains(acctest.Flatten(out), "cannot be restored exactly here") ||
		!strings.Contains(acctest.Flatten(out), `"old" is dated 1969-07-20T20:17:40Z`) {
		t.Fatalf("the restore on Docker of a file dated 1969: %v\n%s", err, out)
	}
	if _, err := acctest.Engine(t).InspectVolume(context.Background(), name+"-resumed"); !engine.IsNotFound(err) {
		t.Errorf("the refused restore left its volume (%v)", err)
	}
	archived := map[string]string{}
	f, err := os.Open(tf.Exact("output", "-raw", "file"))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }()
	for tr := tar.NewReader(f); ; {
		h, err := tr.Next()
		if err != nil {
			break
		}
		archived[h.Name] = fmt.Sprintf("%d:%d %d", h.Uid, h.Gid, h.ModTime.Unix())
	}
	if archived["old"] != "3000000:3000000 -14182940" || !strings.HasPrefix(archived["d/new"], "3000000:3000000 ") {
		t.Errorf("the snapshot taken on the cluster holds %v", archived)
	}
}

// A snapshot of a claim with the default helper image, which no node of
// the test cluster has and none can pull, fails at once, naming the
// setting, and leaves no archive and no helper pod.
func TestAccClusterSnapshot_defaultHelperImageNeedsANodeThatHasIt(t *testing.T) {
	name := acctest.ClusterName(t)
	dir := t.TempDir()
	acctest.ClusterTest(t, []resource.TestStep{{
		Config: acctest.ClusterProviderDefaultHelper(t) + fmt.Sprintf(`
resource "sandbox_volume" "work" {
  name    = "%s-work"
  size_mb = 16
}

resource "sandbox_snapshot" "work" {
  volume    = sandbox_volume.work.name
  directory = %q
}
`, name, dir),
		ExpectError: regexp.MustCompile(`(?s)Helper image needed on this cluster.*` +
			acctest.Phrase("none of the cluster's 1 nodes has it").String() + `.*Set\s+kubernetes\.helper_image`),
	}, {
		PreConfig: func() {
			if left, _ := os.ReadDir(dir); len(left) > 0 {
				t.Errorf("the failed snapshot left %d files in its directory", len(left))
			}
		},
		Config: acctest.ClusterProvider(t, "") + fmt.Sprintf(`
resource "sandbox_volume" "work" {
  name    = "%s-work"
  size_mb = 16
}
`, name),
	}})
}
