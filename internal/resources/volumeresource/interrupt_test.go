package volumeresource_test

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/filters"
	"github.com/docker/docker/api/types/image"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/acctest"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
)

// isArchivePut matches the copy into a container, through which a volume is
// seeded.
func isArchivePut(r *http.Request) bool {
	return r.Method == http.MethodPut && strings.HasSuffix(r.URL.Path, "/archive")
}

// expectNoHelpers fails the test when a seeding helper (container or
// image) of the volume is on the engine: see helpersLeft.
func expectNoHelpers(t *testing.T, volume string) {
	t.Helper()
	if err := helpersLeft(t, volume)(nil); err != nil {
		t.Error(err)
	}
}

// helpersLeft fails when a seeding helper of the volume is on the engine:
// a container other than a sandbox that mounts it, or an image whose labels name it anywhere
// (not only under the helper's own label, which an import that Podman
// misread once hid, so that no filter by it found the images left).
func helpersLeft(t *testing.T, volume string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		ctx := context.Background()
		api := acctest.Docker(t)
		list, err := api.ContainerList(ctx, container.ListOptions{All: true,
			Filters: filters.NewArgs(filters.Arg("volume", volume))})
		if err != nil {
			return err
		}
		for _, c := range list {
			// A sandbox that mounts the volume is no helper.
			if c.Labels[engine.LabelResourceType] != "sandbox_container" {
				return fmt.Errorf("the seeding helper container %s still mounts %s: %v", c.ID, volume, c.Labels)
			}
		}
		for _, img := range acctest.ListImages(t, image.ListOptions{All: true}) {
			for k, v := range img.Labels {
				if strings.Contains(k, volume) || strings.Contains(v, volume) {
					return fmt.Errorf("the seeding helper image %s of %s is still on the engine (labels %v)", img.ID, volume, img.Labels)
				}
			}
		}
		return nil
	}
}

// One Ctrl-C while a volume is being seeded ends the apply within seconds;
// no volume is recorded, none is left half-seeded, and no helper remains.
// The next apply creates and seeds it whole.
func TestAccVolume_interruptedSeedingLeavesNothing(t *testing.T) {
	acctest.RequireAcc(t)
	name := acctest.Name(t)
	proxy := acctest.NewFaultyEngine(t)
	proxy.SetRule(acctest.On(isArchivePut, acctest.Stall))
	cli := acctest.NewCLI(t, proxy.ProviderBlock()+seededConfig(name, seedSource(t), "0"))
	apply := cli.Start("apply", "-auto-approve")
	for deadline := time.Now().Add(time.Minute); proxy.Count(acctest.Stall) == 0; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the seeding's copy never reached the engine")
		}
	}
	interrupted := time.Now()
	if err := apply.Cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	out, err := apply.Wait(time.Minute)
	if err == nil {
		t.Fatalf("the interrupted apply succeeded:\n%s", out)
	}
	if took := time.Since(interrupted); took > 30*time.Second {
		t.Errorf("the apply took %s to end after one Ctrl-C", took)
	}
	if ids := cli.StateIDs(); ids["sandbox_volume.test"] != "" {
		t.Errorf("the half-seeded volume is in the state: %v", ids)
	}
	if _, err := acctest.Engine(t).InspectVolume(context.Background(), name); !engine.IsNotFound(err) {
		t.Errorf("the half-seeded volume is on the engine (%v)", err)
	}
	expectNoHelpers(t, name)

	proxy.SetRule(func(*http.Request) acctest.Fault { return acctest.Forward })
	cli.Run("apply", "-auto-approve")
	got, err := acctest.ExecOK(context.Background(), t, name, "cat", "/workspace/README.md")
	if err != nil || got != "task: fix the bug\n" {
		t.Errorf("after the next apply the volume holds %q (%s)", got, acctest.ErrText(err))
	}
	cli.Run("destroy", "-auto-approve")
	expectNoHelpers(t, name)
}

// The engine goes away in the middle of a seeding: the volume cannot be
// removed, so it is recorded tainted, and the next apply, with the engine
// back, removes it and what the seeding left, and seeds a new one whole.
// Under a CLI that cannot save a failed create (Terraform 1.14 and later)
// it is not recorded instead (seedingCutNotRecorded).
func TestAccVolume_seedingCutByAGoneEngineConvergesOnTheNextApply(t *testing.T) {
	acctest.RequireAcc(t)
	name := acctest.Name(t)
	proxy := acctest.NewFaultyEngine(t)
	var gone atomic.Bool
	proxy.SetRule(func(r *http.Request) acctest.Fault {
		switch {
		case gone.Load():
			return acctest.Refuse
		case isArchivePut(r):
			gone.Store(true)
			return acctest.Refuse
		}
		return acctest.Forward
	})
	config := proxy.ProviderBlock() + seededConfig(name, seedSource(t), "0")
	if tf := acctest.TerraformCLI(t); !tf.SavesFailedCreates() {
		seedingCutNotRecorded(t, name, proxy, config)
		return
	}
	acctest.Test(t, []resource.TestStep{
		{
			Config:      config,
			ExpectError: regexp.MustCompile(`(?s)Half-seeded volume left.*tainted: the next apply removes it`),
		},
		{
			PreConfig: func() { proxy.SetRule(func(*http.Request) acctest.Fault { return acctest.Forward }) },
			Config:    config,
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(addr, plancheck.ResourceActionReplace),
			}},
			ConfigStateChecks: []statecheck.StateCheck{inside(t, "cat /workspace/README.md", "task: fix the bug\n")},
		},
	})
	expectNoHelpers(t, name)
}

// byHandCommand matches a command an error gives to remove what a failed
// create left: helpers, their images, a volume.
var byHandCommand = regexp.MustCompile(`docker -H \S+ (ps -aq|image ls -q) --filter label=\S+ \| xargs -r docker -H \S+ rmi? -f` +
	`|docker -H \S+ volume rm \S+`)

// seedingCutNotRecorded: under a CLI that cannot save a failed create, the
// half-seeded volume is not recorded, Terraform still writes its state,
// and the error gives the commands that remove the volume and what filled
// it. Once they are run, as a user would, the next apply creates the
// volume whole.
func seedingCutNotRecorded(t *testing.T, name string, proxy *acctest.FaultyEngine, config string) {
	tf := acctest.NewCLI(t, config)
	t.Cleanup(func() { tf.Run("destroy", "-auto-approve") })
	out, err := tf.Try("apply", "-auto-approve", "-no-color", "-input=false")
	flat := acctest.Flatten(out)
	if err == nil || !strings.Contains(flat, "Half-seeded volume left") || !strings.Contains(flat, "the volume is not recorded") ||
		strings.Contains(flat, "Failed to serialize") {
		t.Fatalf("the cut seeding did not fail as it should (%v):\n%s", err, out)
	}
	if ids := tf.StateIDs(); ids["sandbox_volume.test"] != "" {
		t.Errorf("the half-seeded volume is in the state: %v", ids)
	}
	commands := byHandCommand.FindAllString(flat, -1)
	if len(commands) != 3 {
		t.Fatalf("the error gives %d commands, want 3 (helpers, their image, the volume):\n%s", len(commands), out)
	}
	proxy.SetRule(func(*http.Request) acctest.Fault { return acctest.Forward })
	for _, command := range commands {
		acctest.RunByHand(t, command)
	}
	expectNoHelpers(t, name)
	tf.Run("apply", "-auto-approve")
	got, err := acctest.ExecOK(context.Background(), t, name, "cat", "/workspace/README.md")
	if err != nil || got != "task: fix the bug\n" {
		t.Errorf("after the next apply the volume holds %q (%s)", got, acctest.ErrText(err))
	}
}

// The engine makes the volume but its answer never reaches the provider:
// the create fails, and the volume, found by its create token, is removed.
func TestAccVolume_createCutOffAfterTheEngineMadeItLeavesNothing(t *testing.T) {
	name := acctest.Name(t)
	proxy := acctest.NewFaultyEngine(t)
	proxy.SetRule(acctest.On(func(r *http.Request) bool {
		return r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/volumes/create")
	}, acctest.CutAfterForward))
	acctest.Test(t, []resource.TestStep{{
		Config:      proxy.ProviderBlock() + config(name, ""),
		ExpectError: regexp.MustCompile(`(?s)Cannot create the volume.*` + regexp.QuoteMeta(proxy.Host)),
	}})
	if proxy.Count(acctest.CutAfterForward) != 1 {
		t.Fatalf("%d creates were cut off, want 1", proxy.Count(acctest.CutAfterForward))
	}
	if _, err := acctest.Engine(t).InspectVolume(context.Background(), name); !engine.IsNotFound(err) {
		t.Errorf("the volume whose create was cut off is on the engine (%v)", err)
	}
}
