package imageresource_test

import (
	"archive/tar"
	"bytes"
	"context"
	"fmt"
	"io"
	"testing"

	"github.com/docker/docker/api/types/build"
	"github.com/docker/docker/api/types/image"
	"github.com/docker/docker/client"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/acctest"
)

// buildByHand builds, as a user would with docker build, an image FROM
// base with one step of its own, tagged tag.
func buildByHand(ctx context.Context, api *client.Client, base, tag string) error {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	dockerfile := []byte(fmt.Sprintf("FROM %s\nRUN touch /by-hand\n", base))
	if err := tw.WriteHeader(&tar.Header{Name: "Dockerfile", Mode: 0o644, Size: int64(len(dockerfile))}); err != nil {
		return err
	}
	if _, err := tw.Write(dockerfile); err != nil {
		return err
	}
	if err := tw.Close(); err != nil {
		return err
	}
	resp, err := api.ImageBuild(ctx, &buf, build.ImageBuildOptions{Tags: []string{tag}, Remove: true, Version: build.BuilderV1})
	if err != nil {
		return err
	}
	defer func() { _ = resp.Body.Close() }()
	_, err = io.Copy(io.Discard, resp.Body)
	return err
}

// An image built by hand FROM a sandbox_image carries the provider's labels,
// inherited: a sandbox_image whose name tags it refuses to take the tag,
// says why, and leaves the tag where it was.
func TestAccImage_inheritedLabelsDoNotMakeATagOurs(t *testing.T) {
	name := acctest.ImageName(t)
	dir := buildContext(t, name, "", map[string]string{})
	base := fmt.Sprintf("resource \"sandbox_image\" \"base\" {\n  name    = \"%s-base:1\"\n  context = %q\n}\n", name, dir)
	app := base + fmt.Sprintf("resource \"sandbox_image\" \"app\" {\n  name    = \"%s-app:1\"\n  context = %q\n}\n", name, dir)
	handTag := name + "-app:1"
	var handID string
	api := acctest.Docker(t)
	t.Cleanup(func() {
		_, _ = api.ImageRemove(context.Background(), handTag, image.RemoveOptions{Force: true})
	})
	acctest.Test(t, []resource.TestStep{{
		Config: base,
	}, {
		PreConfig: acctest.OutOfBand(t, func(ctx context.Context, api *client.Client) error {
			if err := buildByHand(ctx, api, name+"-base:1", handTag); err != nil {
				return err
			}
			img, err := api.ImageInspect(ctx, handTag)
			handID = img.ID
			return err
		}),
		Config:      app,
		ExpectError: acctest.Phrase(handTag + " already names image"),
	}, {
		Config: base,
		Check: func(*terraform.State) error {
			img, err := api.ImageInspect(context.Background(), handTag)
			if err != nil {
				return fmt.Errorf("the image built by hand lost its tag %s: %w", handTag, err)
			}
			if img.ID != handID {
				return fmt.Errorf("%s names %s, not the image built by hand, %s", handTag, img.ID, handID)
			}
			// The child keeps its parent, the sandbox_image, on the engine.
			_, err = api.ImageRemove(context.Background(), handID, image.RemoveOptions{Force: true})
			return err
		},
	}})
}
