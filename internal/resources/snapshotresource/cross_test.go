package snapshotresource_test

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/acctest"
)

// Resuming elsewhere: a workspace written by a sandbox on one engine,
// snapshotted there, restored on another engine or a cluster and read
// back there by a sandbox, byte for byte. Each side's commands run through
// sandbox_exec, so that the test reads both sides the same way whatever
// runs them.

// side is one engine of a round trip: its provider block (aliased), and
// what a volume on it needs besides its name.
type side struct {
	provider, alias, volumeExtra string
}

// dockerSide is the machine's own Docker engine.
func dockerSide(alias string) side {
	return side{alias: alias, provider: fmt.Sprintf(`
provider "sandbox" {
  alias = %q
  host  = "unix:///var/run/docker.sock"
}
`, alias)}
}

// underTest is the engine the pass tests (DOCKER_HOST and the like).
func underTest(alias string) side {
	return side{alias: alias, provider: fmt.Sprintf("\nprovider \"sandbox\" {\n  alias = %q\n}\n", alias)}
}

// clusterSide is the test cluster: a claim needs a size.
func clusterSide(t *testing.T, alias string) side {
	return side{alias: alias, provider: acctest.ClusterProviderAs(t, alias, ""), volumeExtra: "size_mb = 16"}
}

// roundTrip is the configuration: the agent's workspace on from, written
// by agentWrites and listed, its snapshot, and the workspace resumed on to
// and listed there.
func roundTrip(name, dir string, from, to side) string {
	sandbox := func(s side, role, volume string) string { return sandboxOn(s, role, volume, name, "65534:65534") }
	return from.provider + to.provider + fmt.Sprintf(`
resource "sandbox_volume" "work" {
  provider = sandbox.%[1]s
  name     = "%[3]s-work"
  owner    = "65534:65534"
  %[4]s
}

resource "sandbox_exec" "write" {
  provider     = sandbox.%[1]s
  container_id = sandbox_container.agent.id
  command      = ["sh", "-c", %[6]q]
}

resource "sandbox_snapshot" "work" {
  provider  = sandbox.%[1]s
  volume    = sandbox_volume.work.name
  directory = %[7]q
  triggers  = { after = sandbox_exec.write.id }
}

resource "sandbox_volume" "resumed" {
  provider = sandbox.%[2]s
  name     = "%[3]s-resumed"
  snapshot = { file = sandbox_snapshot.work.file, sha256 = sandbox_snapshot.work.sha256 }
  %[5]s
}

resource "sandbox_exec" "read" {
  provider     = sandbox.%[2]s
  container_id = sandbox_container.resumed.id
  command      = ["sh", "-c", %[8]q]
}
`, from.alias, to.alias, name, from.volumeExtra, to.volumeExtra, agentWrites+"\n"+portableListing, dir,
		portableListing) + sandbox(from, "agent", "sandbox_volume.work") + sandbox(to, "resumed", "sandbox_volume.resumed")
}

// sandboxOn is the sandbox role of a round trip on s, running as user,
// that mounts volume at /workspace.
func sandboxOn(s side, role, volume, name, user string) string {
	return fmt.Sprintf(`
resource "sandbox_container" %[2]q {
  provider     = sandbox.%[1]s
  name         = "%[4]s-%[2]s"
  image        = %[5]q
  network_mode = "none"
  user         = %[6]q
  cap_drop     = ["ALL"]
  read_only    = true
  mounts       = { "/workspace" = { volume = %[3]s.name } }
}
`, s.alias, role, volume, name, acctest.TestImage, user)
}

// portableListing is listing without link counts of directories, which
// gVisor counts its own way.
const portableListing = `cd /workspace && find . | sort && stat -c '%n %a %u:%g' $(find . | sort) && ` +
	`stat -c '%n %h' blob blob.hard && readlink escape && find . -type f | sort | xargs sha256sum`

// roundTripCLI applies the round trip with the real terraform CLI, which
// runs one provider process per provider configuration as users get it
// (in-process test providers serve every configuration from one
// instance), and compares both sides' listings; the plan after it is
// empty, and destroy removes the archive.
func roundTripCLI(t *testing.T, name string, from, to side) {
	dir := t.TempDir()
	tf := acctest.NewCLI(t, roundTrip(name, dir, from, to)+`
output "wrote" { value = sandbox_exec.write.stdout }
output "read" { value = sandbox_exec.read.stdout }
output "file" { value = sandbox_snapshot.work.file }
output "sha256" { value = sandbox_snapshot.work.sha256 }
`)
	t.Cleanup(func() { tf.Run("destroy", "-auto-approve") })
	tf.Run("apply", "-auto-approve")
	out := func(name string) string { return tf.Exact("output", "-raw", name) }
	wrote, read := out("wrote"), out("read")
	if !strings.Contains(wrote, "\nblob.hard 2\n") {
		t.Fatalf("the agent's listing lacks the hard link:\n%s", wrote)
	}
	if want := restoredListing(wrote); read != want {
		t.Fatalf("resumed:\n%s\nwant:\n%s", read, want)
	}
	b, err := os.ReadFile(out("file"))
	if sum := sha256.Sum256(b); err != nil || hex.EncodeToString(sum[:]) != out("sha256") {
		t.Fatalf("the archive %s: %v, SHA-256 %x, state %s", out("file"), err, sum, out("sha256"))
	}
	if plan, err := tf.Try("plan", "-detailed-exitcode", "-no-color", "-input=false"); err != nil {
		t.Fatalf("the plan after the round trip is not empty: %v\n%s", err, plan)
	}
	tf.Run("destroy", "-auto-approve")
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Fatalf("destroy left %v in %s", left, dir)
	}
}

// From Docker to the test cluster.
func TestAccClusterSnapshot_dockerToCluster(t *testing.T) {
	acctest.RequireCluster(t)
	roundTripCLI(t, acctest.ClusterName(t), dockerSide("docker"), clusterSide(t, "cluster"))
}

// From the test cluster to Docker.
func TestAccClusterSnapshot_clusterToDocker(t *testing.T) {
	acctest.RequireCluster(t)
	roundTripCLI(t, acctest.ClusterName(t), clusterSide(t, "cluster"), dockerSide("docker"))
}

// From the engine under test (rootless Podman in the rootless pass) to the
// machine's Docker engine.
func TestAccSnapshot_resumedOnTheMachinesDocker(t *testing.T) {
	t.Parallel()
	roundTripCLI(t, acctest.Name(t), underTest("from"), dockerSide("docker"))
}
