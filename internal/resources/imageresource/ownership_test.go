package imageresource_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/docker/docker/api/types/build"
	"github.com/docker/docker/api/types/image"
	"github.com/docker/docker/client"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/acctest"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
)

// buildByHand builds, as a user would with docker build, an image FROM
// base with one step of its own, tagged tag, and returns its ID.
func buildByHand(ctx context.Context, api *client.Client, base, step, tag string) (string, error) {
	return buildByHandWith(ctx, api, base, step, tag, nil)
}

// buildByHandWith is buildByHand whose build also sets labels, as the
// build API's labels (the provider's way).
func buildByHandWith(ctx context.Context, api *client.Client, base, step, tag string, labels map[string]string) (string, error) {
	err := acctest.BuildByHand(ctx, api, fmt.Sprintf("FROM %s\n%s\n", base, step),
		build.ImageBuildOptions{Tags: []string{tag}, Labels: labels})
	if err != nil {
		return "", err
	}
	img, err := api.ImageInspect(ctx, tag)
	return img.ID, err
}

// An image built by hand FROM a sandbox_image carries the provider's labels,
// inherited: a sandbox_image whose name tags it refuses to take the tag,
// says why, and leaves the tag where it was.
func TestAccImage_inheritedLabelsDoNotMakeATagOurs(t *testing.T) {
	acctest.RequireAcc(t)
	name := acctest.ImageName(t)
	dir := buildContext(t, name, "", map[string]string{})
	base := fmt.Sprintf("resource \"sandbox_image\" \"base\" {\n  name    = \"%s-base:1\"\n  context = %q\n}\n", name, dir)
	app := base + fmt.Sprintf("resource \"sandbox_image\" \"app\" {\n  name    = \"%s-app:1\"\n  context = %q\n}\n", name, dir)
	handTag := name + "-app:1"
	var handID string
	api := acctest.Docker(t)
	t.Cleanup(func() {
		_, _ = api.ImageRemove(context.Background(), handTag, image.RemoveOptions{Force: true, PruneChildren: true})
	})
	acctest.Test(t, []resource.TestStep{{
		Config: base,
	}, {
		PreConfig: acctest.OutOfBand(t, func(ctx context.Context, api *client.Client) error {
			var err error
			handID, err = buildByHand(ctx, api, name+"-base:1", "RUN touch /by-hand", handTag)
			return err
		}),
		Config:      app,
		ExpectError: acctest.Phrase(handTag + " already names image"),
	}, {
		Config: base,
		Check: func(*terraform.State) error {
			img, err := api.ImageInspect(context.Background(), handTag)
			for try := 0; err != nil && !engine.IsNotFound(err) && try < 5; try++ {
				// Podman's inspect fails now and then while another test
				// removes an image ("reading image ...").
				time.Sleep(time.Second)
				img, err = api.ImageInspect(context.Background(), handTag)
			}
			if err != nil {
				return fmt.Errorf("the image built by hand lost its tag %s: %w", handTag, err)
			}
			if img.ID != handID {
				return fmt.Errorf("%s names %s, not the image built by hand, %s", handTag, img.ID, handID)
			}
			// The child keeps its parent, the sandbox_image, on the engine.
			_, err = api.ImageRemove(context.Background(), handID, image.RemoveOptions{Force: true, PruneChildren: true})
			return err
		},
	}})
}

// Two configurations cannot share one image name: the second is refused
// with the first's image, and the first keeps its tag. A rebuild is of the
// same configuration, so it still moves its own name off its kept image.
func TestAccImage_twoConfigurationsCannotShareAName(t *testing.T) {
	acctest.RequireAcc(t)
	name := acctest.ImageName(t)
	dir := buildContext(t, name, "", map[string]string{"a.txt": "1"})
	// The second configuration builds the same files from its own copy.
	otherDir := buildContext(t, name, "", map[string]string{"a.txt": "1"})
	configOf := func(dir string) string {
		return fmt.Sprintf(`resource "sandbox_image" "test" {
  name            = "%s:1"
  context         = %q
  keep_on_destroy = true
}
`, name, dir)
	}
	config := configOf(dir)
	api := acctest.Docker(t)
	var owned []string
	t.Cleanup(func() {
		for _, id := range append(acctest.ImagesNamed(t, name), owned...) {
			_, _ = api.ImageRemove(context.Background(), id, image.RemoveOptions{Force: true, PruneChildren: true})
		}
	})
	first := acctest.NewCLI(t, config)
	t.Cleanup(func() { first.Run("destroy", "-auto-approve") })
	first.Run("apply", "-auto-approve")
	owned = acctest.ImagesNamed(t, name+":1")

	second := acctest.NewCLI(t, configOf(otherDir))
	out, err := second.Start("apply", "-auto-approve").Wait(2 * time.Minute)
	if err == nil {
		second.Run("destroy", "-auto-approve")
		t.Fatalf("a second configuration took the name of the first's image:\n%s", out)
	}
	if want := "Name owned by another sandbox_image"; !strings.Contains(acctest.Flatten(out), want) {
		t.Errorf("the second apply does not say %q:\n%s", want, out)
	}
	if now := acctest.ImagesNamed(t, name+":1"); len(now) != 1 || len(owned) != 1 || now[0] != owned[0] {
		t.Errorf("the name moved: it named %v, now %v", owned, now)
	}
	if plan := first.Run("plan"); !strings.Contains(plan, "No changes") {
		t.Errorf("the first configuration plans changes after the second was refused:\n%s", plan)
	}

	// A rebuild of the first (its old image kept) moves its own name.
	acctest.Write(t, filepath.Join(dir, "a.txt"), "2")
	first.Run("apply", "-auto-approve")
	if now := acctest.ImagesNamed(t, name+":1"); len(now) != 1 || now[0] == owned[0] {
		t.Errorf("the rebuild did not move the name off the kept image: it names %v (was %v)", now, owned)
	}
}
