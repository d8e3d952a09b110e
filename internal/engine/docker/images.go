package docker

import (
	"context"
	"fmt"

	"github.com/docker/docker/api/types/image"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
)

// EnsureImage makes sure ref is present on the engine: it inspects it and,
// when it is missing, tries one pull. It returns the image's inspect data, or
// an *ImageMissingError when the image is absent and the pull failed.
func (c *Client) EnsureImage(ctx context.Context, ref string) (engine.Image, error) {
	img, err := c.inspectImage(ctx, ref)
	if err == nil {
		return img, nil
	}
	if !engine.IsNotFound(err) {
		return engine.Image{}, fmt.Errorf("inspecting image %q: %w", ref, err)
	}
	if err := c.pull(ctx, ref); err != nil {
		return engine.Image{}, &engine.ImageMissingError{Ref: ref, PullErr: err}
	}
	img, err = c.inspectImage(ctx, ref)
	if err != nil {
		return engine.Image{}, &engine.ImageMissingError{Ref: ref, PullErr: err}
	}
	return img, nil
}

func (c *Client) inspectImage(ctx context.Context, ref string) (engine.Image, error) {
	var img image.InspectResponse
	err := c.reread(ctx, "the request to inspect an image", func(ctx context.Context) (err error) {
		img, err = c.api.ImageInspect(ctx, ref)
		return err
	})
	return imageOf(img), err
}

// imageOf is an image's inspect data as the seam's engine.Image.
func imageOf(img image.InspectResponse) engine.Image {
	out := engine.Image{ID: img.ID, RepoTags: img.RepoTags, Created: img.Created}
	if c := img.Config; c != nil {
		out.Labels, out.Entrypoint, out.Cmd, out.Env = c.Labels, c.Entrypoint, c.Cmd, c.Env
		out.WorkingDir, out.User = c.WorkingDir, c.User
	}
	return out
}

// InspectImage returns the engine's data for an image.
func (c *Client) InspectImage(ctx context.Context, ref string) (engine.Image, error) {
	img, err := c.inspectImage(ctx, ref)
	if err != nil {
		return engine.Image{}, fmt.Errorf("inspecting image %q: %w", ref, err)
	}
	return img, nil
}
