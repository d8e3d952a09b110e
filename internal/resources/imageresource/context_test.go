package imageresource_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/filters"
	"github.com/docker/docker/api/types/image"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/acctest"
)

// A context that is a symlink to a directory builds that directory, and
// plans nothing after apply.
func TestAccImage_contextThroughASymlink(t *testing.T) {
	name := acctest.ImageName(t)
	dir := buildContext(t, name, "COPY greeting.txt /etc/greeting\n", map[string]string{"greeting.txt": "through a link"})
	link := filepath.Join(t.TempDir(), "context")
	if err := os.Symlink(dir, link); err != nil {
		t.Fatal(err)
	}
	config := imageConfig(name, link, "")
	acctest.Test(t, []resource.TestStep{{
		Config:            config,
		ConfigStateChecks: []statecheck.StateCheck{expectFile(t, "/etc/greeting", "through a link")},
	}, {
		Config:           config,
		ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
	}})
}

// A build cut off by Ctrl-C ends the apply, records nothing, and leaves
// neither the images of the steps it made nor the container of the step
// under way. Podman's API goes on with a build whose client is gone and
// leaves its image untagged, and either engine can commit a step's image
// in the instant of the cut, before its ID reaches the provider (once in
// a CI run on Docker under load): the next build of the same
// configuration takes that image from its cache, and none is left.
func TestAccImage_ctrlCDuringTheBuildLeavesNothing(t *testing.T) {
	interruptBuild(t, "sandbox_image.test: Creating...", 3*time.Second, nil)
}

// A build cut off in a COPY, which the classic builder commits with no
// container holding the image below it, leaves the images it made for the
// next build's cache: removing the one below would leave the COPY's image,
// committed after the cut, without its parent, where no build finds it
// (once in a CI run on Docker under load, when the build above was cut
// off during its COPY).
func TestAccImage_ctrlCDuringACopyLeavesNoImageWithoutItsParent(t *testing.T) {
	interruptBuild(t, "COPY big.bin /big.bin", 0, func(tf *acctest.CLI, dir string) {
		// Zeros the engine writes out: long enough a step to be cut.
		if err := os.Truncate(filepath.Join(dir, "big.bin"), 768<<20); err != nil {
			t.Fatal(err)
		}
		tf.Env = append(tf.Env, "TF_LOG=INFO") // the build's steps, as the provider logs them
	})
}

// interruptBuild interrupts an apply that builds a COPY of big.bin and a
// step of a few seconds once its output has said when, then checks that
// the apply failed and left nothing, and that the next apply leaves no
// image untagged.
func interruptBuild(t *testing.T, when string, after time.Duration, prepare func(tf *acctest.CLI, dir string)) {
	const stepSeconds = 8
	name := acctest.ImageName(t)
	dir := buildContext(t, name, fmt.Sprintf("COPY big.bin /big.bin\nRUN echo started && sleep %d\n", stepSeconds),
		map[string]string{"big.bin": "a"})
	tf := acctest.NewCLI(t, fmt.Sprintf("resource \"sandbox_image\" \"test\" {\n  name    = %q\n  context = %q\n}\n", name, dir))
	t.Cleanup(func() { tf.Run("destroy", "-auto-approve") })
	if prepare != nil {
		prepare(tf, dir)
	}
	// The interrupt must come while the build runs. An apply that ended
	// before it (once in a CI run on Podman, whose output that run did not
	// keep) leaves nothing to interrupt: it is run again, once, with its
	// output logged.
	var out string
	for attempt := 1; ; attempt++ {
		apply := tf.Start("apply", "-auto-approve")
		apply.WaitFor(t, when, 2*time.Minute)
		time.Sleep(after)
		if err := apply.Cmd.Process.Signal(os.Interrupt); err != nil {
			early, waitErr := apply.Wait(time.Minute)
			if attempt == 1 {
				t.Logf("terraform ended (%v) before the interrupt, running it again:\n%s", waitErr, early)
				continue
			}
			t.Fatalf("terraform ended (%v) before the interrupt twice (%v):\n%s", waitErr, err, early)
		}
		var err error
		if out, err = apply.Wait(time.Minute); err == nil {
			t.Fatalf("the interrupted build succeeded:\n%s", out)
		}
		break
	}
	acctest.WaitForProviderExit(t, time.Minute)
	if state := tf.Exact("state", "list"); strings.Contains(state, "sandbox_image.test") {
		t.Errorf("the interrupted build is in the state:\n%s", state)
	}
	if ids := acctest.ImagesNamed(t, name); len(ids) != 0 {
		t.Errorf("the interrupted build left images tagged %s: %v", name, ids)
	}
	// The engine may take a moment to stop the step's container.
	deadline := time.Now().Add(30 * time.Second)
	for {
		list, err := acctest.Docker(t).ContainerList(context.Background(), container.ListOptions{All: true,
			Filters: filters.NewArgs(filters.Arg("label", "test.name="+name))})
		if err != nil {
			t.Fatal(err)
		}
		if len(list) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the interrupted build left %d container(s), the first %s", len(list), list[0].ID)
		}
		time.Sleep(time.Second)
	}
	if acctest.IsPodman(t) {
		time.Sleep((stepSeconds + 4) * time.Second) // the build Podman went on with ends
	}
	// A step's image the engine committed after the cut, before its ID
	// reached the provider, is the next build's, from the cache.
	tf.Run("apply", "-auto-approve")
	expectNoDanglingImages(t, name, "the interrupted build")
}

// A plan saved before the build context changed is not applied: Terraform
// plans the image again at apply, sees another digest and stops before the
// new build, in its own words ("Provider produced inconsistent final
// plan": the provider cannot tell that plan from the first). A rebuild is
// a replacement, so Terraform has removed the old image by then
// (interruptions guide): nothing is left behind, no image of the changed
// context is built, and the next plan and apply build from what the
// context holds then.
func TestAccImage_savedPlanAfterTheContextChanged(t *testing.T) {
	name := acctest.ImageName(t)
	dir := buildContext(t, name, "COPY a.txt /a.txt\n", map[string]string{"a.txt": "1"})
	tf := acctest.NewCLI(t, fmt.Sprintf("resource \"sandbox_image\" \"test\" {\n  name    = \"%s:1\"\n  context = %q\n}\n", name, dir))
	t.Cleanup(func() { tf.Run("destroy", "-auto-approve") })
	tf.Run("apply", "-auto-approve")
	built := imagesOfTest(t, name)

	acctest.Write(t, filepath.Join(dir, "a.txt"), "2")
	tf.Run("plan", "-out=saved.tfplan")
	acctest.Write(t, filepath.Join(dir, "a.txt"), "3")
	out, err := tf.Try("apply", "-no-color", "-input=false", "saved.tfplan")
	if err == nil {
		t.Fatalf("a saved plan was applied after its context changed:\n%s", out)
	}
	if flat := acctest.Flatten(out); !strings.Contains(flat, "Provider produced inconsistent final plan") ||
		!strings.Contains(flat, "sandbox_image.test") || !strings.Contains(flat, ".context_digest") {
		t.Errorf("the refused apply does not name the resource and its context digest:\n%s", out)
	}
	for _, id := range imagesOfTest(t, name) {
		if !slices.Contains(built, id) {
			t.Errorf("the refused apply built or left image %s", id)
		}
	}
	if plan := tf.Run("plan"); !strings.Contains(plan, "sandbox_image.test will be created") {
		t.Errorf("the plan after the refused apply does not build the image again:\n%s", plan)
	}
	tf.Run("apply", "-auto-approve")
	if now := acctest.ImagesNamed(t, name+":1"); len(now) != 1 {
		t.Errorf("the apply after the refused one left %s naming %v", name+":1", now)
	}
}

// imagesOfTest lists every image, intermediate ones included, that a build
// of this test's context made (its Dockerfile labels them).
func imagesOfTest(t *testing.T, name string) []string {
	t.Helper()
	list := acctest.ListImages(t, image.ListOptions{
		All: true, Filters: filters.NewArgs(filters.Arg("label", "test.name="+name)),
	})
	ids := make([]string, 0, len(list))
	for _, img := range list {
		ids = append(ids, img.ID)
	}
	return ids
}
