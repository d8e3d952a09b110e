package docker

import (
	"context"
	"fmt"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/docker/docker/api/types/image"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
)

// EnsureImage makes sure ref is present on the engine: it inspects it and,
// when it is missing, tries one pull (none for an image ID, which no
// registry serves). It returns the image's inspect data, or an
// *ImageMissingError when the image is absent and the pull failed.
func (c *Client) EnsureImage(ctx context.Context, ref string) (engine.Image, error) {
	if engine.IsImageID(ref) {
		return c.ensureImageID(ctx, ref)
	}
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

// ensureImageID is EnsureImage for an image ID, which no pull can bring
// back. An ID the engine denies is read again as reread paces it, and on
// Podman for longer (podmanIDRereads): Podman's store answers "image not
// known" for a moment while another client removes an image (reread.go),
// and in CI runs rootless Podman under load denied for more than eight
// seconds an image that the same apply had just built, or that its plan
// had just read. An ID that stays missing costs some eight seconds before
// its error, on Podman some thirty.
func (c *Client) ensureImageID(ctx context.Context, id string) (engine.Image, error) {
	img, err := c.inspectImageTimes(ctx, id, c.idRereads(ctx), internalOrNotFound)
	switch {
	case err == nil:
		return img, nil
	case engine.IsNotFound(err):
		return engine.Image{}, &engine.ImageMissingError{Ref: id, PullErr: engine.ErrImageIDNotPullable}
	}
	return engine.Image{}, fmt.Errorf("inspecting image %q: %w", id, err)
}

// podmanIDRereads is how many times an image ID that Podman denies is
// asked in all: some thirty seconds (reread.go's pauses, doubling).
const podmanIDRereads = 8

// idRereads is how many times an image ID the engine denies is asked in
// all before it counts as gone.
func (c *Client) idRereads(ctx context.Context) int {
	if c.Kind(ctx) == KindPodman {
		return podmanIDRereads
	}
	return rereads
}

// internalOrNotFound says to ask again after an internal error or a denial.
func internalOrNotFound(err error) bool { return cerrdefs.IsInternal(err) || engine.IsNotFound(err) }

func (c *Client) inspectImage(ctx context.Context, ref string) (engine.Image, error) {
	return c.inspectImageTimes(ctx, ref, rereads, cerrdefs.IsInternal)
}

// inspectImageTimes inspects ref, asked again while again says so, up to
// times in all.
func (c *Client) inspectImageTimes(ctx context.Context, ref string, times int, again func(error) bool) (engine.Image, error) {
	var img image.InspectResponse
	err := c.rereadTimes(ctx, "the request to inspect an image", engine.QuickCallTimeout, times, again, func(ctx context.Context) (err error) {
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

// InspectImage returns the engine's data for an image. An image ID that
// Podman denies is asked again first, as reread paces it (ensureImageID):
// a refresh that took a denial for a removal would plan to build the image
// again, and to replace every sandbox of it.
func (c *Client) InspectImage(ctx context.Context, ref string) (engine.Image, error) {
	again := cerrdefs.IsInternal
	if engine.IsImageID(ref) && c.Kind(ctx) == KindPodman {
		again = internalOrNotFound
	}
	img, err := c.inspectImageTimes(ctx, ref, rereads, again)
	if err != nil {
		return engine.Image{}, fmt.Errorf("inspecting image %q: %w", ref, err)
	}
	return img, nil
}
