package snapshotresource_test

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/filters"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/acctest"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
)

// isArchive matches the engine's archive endpoint, through which a PUT
// fills a volume.
func isArchive(method string) func(r *http.Request) bool {
	return func(r *http.Request) bool { return r.Method == method && strings.HasSuffix(r.URL.Path, "/archive") }
}

// isVolumeRead matches the start of the exec that reads a volume: the
// provider's program in the helper (these configurations run no other
// command).
func isVolumeRead(r *http.Request) bool {
	return r.Method == http.MethodPost && strings.Contains(r.URL.Path, "/exec/") && strings.HasSuffix(r.URL.Path, "/start")
}

// snapshotConfig is the workspace, its running agent, and a snapshot of
// it into dir, with extra arguments.
func snapshotConfig(name, dir, extra string) string {
	return workConfig(name) + fmt.Sprintf(`
resource "sandbox_snapshot" "work" {
  volume    = sandbox_volume.work.name
  directory = %q
%s
}
`, dir, extra)
}

// expectNothingLeft fails the test when the directory holds a file (a
// partial archive), a helper container of the provider still mounts the
// volume, or the agent is left paused.
func expectNothingLeft(t *testing.T, dir, volume, agent string) {
	t.Helper()
	ctx := context.Background()
	if left, err := os.ReadDir(dir); err != nil || len(left) != 0 {
		t.Errorf("%s holds %v (%v)", dir, left, err)
	}
	helpers, err := acctest.Docker(t).ContainerList(ctx, container.ListOptions{All: true, Filters: filters.NewArgs(
		filters.Arg("volume", volume), filters.Arg("label", engine.LabelResourceType+"=sandbox_volume"))})
	if err != nil || len(helpers) != 0 {
		t.Errorf("helpers left mounting %s: %d (%v)", volume, len(helpers), err)
	}
	c := acctest.Inspect(t, agent)
	if c.State == nil || c.State.Paused || !c.State.Running {
		t.Errorf("the agent %s is left paused or stopped: %+v", agent, c.State)
	}
}

// One Ctrl-C while the engine streams a volume's archive (held still
// here) ends the apply within seconds: no snapshot is recorded, no partial
// archive is left, no helper remains, and the agent paused for the copy
// runs again. The next apply takes the snapshot whole.
func TestAccSnapshot_interruptedLeavesNothing(t *testing.T) {
	acctest.RequireAcc(t)
	name, dir := acctest.Name(t), t.TempDir()
	proxy := acctest.NewFaultyEngine(t)
	cli := acctest.NewCLI(t, proxy.ProviderBlock()+snapshotConfig(name, dir, ""))
	t.Cleanup(func() { cli.Run("destroy", "-auto-approve") })
	cli.Run("apply", "-auto-approve", "-target=sandbox_container.agent")
	proxy.SetRule(acctest.On(isVolumeRead, acctest.Stall))
	apply := cli.Start("apply", "-auto-approve")
	for deadline := time.Now().Add(time.Minute); proxy.Count(acctest.Stall) == 0; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the snapshot's read never reached the engine")
		}
	}
	if !acctest.Inspect(t, name+"-agent").State.Paused {
		t.Error("the agent, which writes to the volume, runs on while its volume is read")
	}
	interrupted := time.Now()
	if err := apply.Cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	if out, err := apply.Wait(time.Minute); err == nil {
		t.Fatalf("the interrupted apply succeeded:\n%s", out)
	}
	if took := time.Since(interrupted); took > 30*time.Second {
		t.Errorf("the apply took %s to end after one Ctrl-C", took)
	}
	if ids := cli.StateIDs(); ids["sandbox_snapshot.work"] != "" {
		t.Errorf("the interrupted snapshot is in the state: %v", ids)
	}
	expectNothingLeft(t, dir, name+"-work", name+"-agent")

	proxy.SetRule(func(*http.Request) acctest.Fault { return acctest.Forward })
	cli.Run("apply", "-auto-approve")
	if left, _ := os.ReadDir(dir); len(left) != 1 {
		t.Errorf("after the next apply %s holds %v, want one archive", dir, left)
	}
}

// An engine that stops answering in the middle of a snapshot fails it
// within the stream's own bound, and one slower than timeouts.create
// fails it at that bound; both leave nothing. A restore whose copy the
// engine drops creates nothing either.
func TestAccSnapshot_faultsLeaveNothing(t *testing.T) {
	name, dir := acctest.Name(t), t.TempDir()
	proxy := acctest.NewFaultyEngine(t)
	stall := func() { proxy.SetRule(acctest.On(isVolumeRead, acctest.Stall)) }
	left := func() { expectNothingLeft(t, dir, name+"-work", name+"-agent") }
	restored := fmt.Sprintf(`
resource "sandbox_volume" "restored" {
  name     = "%s-restored"
  snapshot = { file = sandbox_snapshot.work.file, sha256 = sandbox_snapshot.work.sha256 }
}
`, name)
	acctest.Test(t, []resource.TestStep{{
		Config: proxy.ProviderBlock() + workConfig(name),
	}, {
		PreConfig:   stall,
		Config:      proxy.ProviderBlock() + snapshotConfig(name, dir, `  timeouts = { create = "5s" }`),
		ExpectError: regexp.MustCompile(`Snapshot timed out(.|\n)*timeouts.create`),
	}, {
		PreConfig:   func() { left(); stall() },
		Config:      proxy.ProviderBlock() + snapshotConfig(name, dir, ""),
		ExpectError: acctest.Phrase("did not answer the stream of a volume's archive within 30s"),
	}, {
		PreConfig: func() {
			left()
			proxy.SetRule(acctest.On(isArchive(http.MethodPut), acctest.Refuse))
		},
		Config:      proxy.ProviderBlock() + snapshotConfig(name, dir, "") + restored,
		ExpectError: regexp.MustCompile(`Cannot restore the volume`),
	}, {
		PreConfig: func() {
			if _, err := acctest.Engine(t).InspectVolume(context.Background(), name+"-restored"); !engine.IsNotFound(err) {
				t.Errorf("the volume whose restore failed is on the engine (%v)", err)
			}
			proxy.SetRule(func(*http.Request) acctest.Fault { return acctest.Forward })
		},
		Config: proxy.ProviderBlock() + snapshotConfig(name, dir, "") + restored,
	}})
}

// A volume that holds more than max_size_mb or max_files is refused on
// the attribute that bounds it, and leaves nothing: a sandbox can fill its
// volume, and must not fill the disk of the machine running Terraform.
func TestAccSnapshot_boundsRefuseWhatHoldsMore(t *testing.T) {
	name, dir := acctest.Name(t), t.TempDir()
	fill := func() {
		script := "cd /workspace && head -c 2097152 /dev/zero > big && touch a b c d e"
		if _, err := acctest.ExecOK(context.Background(), t, name+"-agent", "sh", "-c", script); err != nil {
			t.Fatal(err)
		}
	}
	acctest.Test(t, []resource.TestStep{{
		Config: workConfig(name),
	}, {
		PreConfig:   fill,
		Config:      snapshotConfig(name, dir, "  max_size_mb = 1"),
		ExpectError: regexp.MustCompile(`Volume too large for the snapshot(.|\n)*max_size_mb \(1 MiB\)`),
	}, {
		PreConfig:   func() { expectNothingLeft(t, dir, name+"-work", name+"-agent") },
		Config:      snapshotConfig(name, dir, "  max_files = 4"),
		ExpectError: regexp.MustCompile(`Volume holds too many files(.|\n)*max_files \(4\)`),
	}, {
		PreConfig: func() { expectNothingLeft(t, dir, name+"-work", name+"-agent") },
		Config:    snapshotConfig(name, dir, "  max_size_mb = 3\n  max_files = 7"),
	}})
}
