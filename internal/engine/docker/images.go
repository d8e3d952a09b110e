package docker

import (
	"context"
	"fmt"
	"io"

	"github.com/docker/docker/api/types/image"
	"github.com/docker/docker/pkg/jsonmessage"

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
	var img engine.Image
	err := c.reread(ctx, "the request to inspect an image", func(ctx context.Context) (err error) {
		img, err = c.api.ImageInspect(ctx, ref)
		return err
	})
	return img, err
}

// pull pulls ref and reads the progress stream to its end, returning the
// first error the engine reports in it. It has no deadline of its own: a
// pull takes as long as the image is large, within the caller's (the
// create timeout).
func (c *Client) pull(ctx context.Context, ref string) error {
	rc, err := c.api.ImagePull(ctx, ref, image.PullOptions{})
	if err != nil {
		return err
	}
	defer func() { _ = rc.Close() }()
	return jsonmessage.DisplayJSONMessagesStream(rc, io.Discard, 0, false, nil)
}

// InspectImage returns the engine's data for an image.
func (c *Client) InspectImage(ctx context.Context, ref string) (engine.Image, error) {
	img, err := c.inspectImage(ctx, ref)
	if err != nil {
		return engine.Image{}, fmt.Errorf("inspecting image %q: %w", ref, err)
	}
	return img, nil
}
