package docker

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/docker/docker/api/types/image"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
)

// The removal of images. None asks the engine to prune the image's untagged
// parents, as `docker rmi` does by default: such a parent may be an image
// the provider did not make (a base image given by its ID, a build of the
// user's), and the provider removes only what it made. A build's own
// intermediate images are removed by name instead (RemoveBuilt).

// RemoveImage removes ref (an image ID or a tag), and none of its parents.
// Given a tag, the engine removes that tag, and the image only when no
// other tag names it. It refuses, as a conflict, an image a container
// uses.
func (c *Client) RemoveImage(ctx context.Context, ref string) error {
	return c.within(ctx, "the request to remove an image", engine.SlowCallTimeout, func(ctx context.Context) error {
		if c.Kind(ctx) == KindPodman {
			// Podman's Docker-compatible API ignores noprune.
			return c.removePodmanImage(ctx, ref)
		}
		_, err := c.api.ImageRemove(ctx, ref, image.RemoveOptions{PruneChildren: false})
		return err
	})
}

// RemoveBuilt removes the image a build made (none when its ID is empty),
// then the intermediate images it made for its steps, newest first. An
// intermediate that is gone, or that the engine keeps (another image built
// on it from the cache, or a container of it), is left.
func (c *Client) RemoveBuilt(ctx context.Context, built engine.Built) error {
	if built.ID != "" {
		if err := c.RemoveImage(ctx, built.ID); err != nil && !engine.IsNotFound(err) {
			return err
		}
	}
	c.removeIntermediates(ctx, built.Intermediates, false)
	return nil
}

// removeIntermediates removes, newest first, the images a build made for
// its steps. The engine keeps any that a tag, a container or another image
// still needs. It runs within its own deadline, even when the build was
// cut off by Ctrl-C. For a build that did not finish (waitInUse), an image
// in use is asked for again until the deadline: a build cut off goes on
// for a moment on the engine, whose step container holds the newest image
// until the engine removes it.
func (c *Client) removeIntermediates(ctx context.Context, made []string, waitInUse bool) {
	if len(made) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), intermediatesTimeout)
	defer cancel()
	for _, id := range slices.Backward(made) {
		for {
			err := c.RemoveImage(ctx, id)
			if !waitInUse || !engine.IsConflict(err) || ctx.Err() != nil {
				break
			}
			select {
			case <-ctx.Done():
			case <-time.After(250 * time.Millisecond):
			}
		}
	}
}

// intermediatesTimeout bounds the removal of the intermediate images of a
// build. 10 s ran out on an engine under load (the step's container held
// the newest image past it, and the image was left dangling); 30 s is the
// undo of a sandbox's create (cleanupTimeout).
const intermediatesTimeout = 30 * time.Second

// podmanRemoval is the answer of Podman's own removal of images.
type podmanRemoval struct {
	ExitCode int
	Errors   []string
}

// Exit codes of Podman's removal of images (podman-rmi(1)).
const (
	podmanRemovalNotFound = 1
	podmanRemovalInUse    = 2
)

// removePodmanImage removes ref through Podman's own API, without its
// untagged parents, with the error classified as the Docker-compatible
// API's would be.
func (c *Client) removePodmanImage(ctx context.Context, ref string) error {
	query := url.Values{"images": {ref}, "noprune": {"true"}}
	resp, err := c.send(ctx, http.MethodDelete, "/v4.0.0/libpod/images/remove?"+query.Encode())
	if err != nil {
		return err
	}
	defer func() { _ = resp.Body.Close() }()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	if err != nil {
		return fmt.Errorf("reading Podman's answer to the removal of image %s: %w", ref, err)
	}
	return podmanRemovalError(ref, resp.StatusCode, body)
}

// podmanRemovalError is the error Podman's answer (its HTTP status and
// body) to the removal of ref says, classified: a missing image is not
// found, one a container uses is a conflict.
func podmanRemovalError(ref string, status int, body []byte) error {
	var answer podmanRemoval
	if err := json.Unmarshal(body, &answer); err != nil || status != http.StatusOK {
		text := strings.TrimSpace(string(body))
		switch status {
		case http.StatusNotFound:
			return fmt.Errorf("image %s: %s: %w", ref, text, cerrdefs.ErrNotFound)
		case http.StatusConflict:
			return fmt.Errorf("image %s: %s: %w", ref, text, cerrdefs.ErrConflict)
		}
		return fmt.Errorf("removing image %s: Podman answered %d: %s", ref, status, text)
	}
	text := strings.Join(answer.Errors, "; ")
	switch answer.ExitCode {
	case 0:
		return nil
	case podmanRemovalNotFound:
		return fmt.Errorf("%s: %w", text, cerrdefs.ErrNotFound)
	case podmanRemovalInUse:
		return fmt.Errorf("%s: %w", text, cerrdefs.ErrConflict)
	}
	return fmt.Errorf("removing image %s: Podman's exit code %d: %s", ref, answer.ExitCode, text)
}

// buildClockSlack is how much earlier than the engine's time, as the
// provider reads it, a build is taken to have begun: the reading's own
// error (half a request's round trip) and the engine's clock granularity.
const buildClockSlack = 2 * time.Second

// madeSince keeps those of ids (images a build's output named as made for
// its steps) that the engine shows the build could have made: untagged,
// and made since it began, by the engine's clock. Each is kept by its full
// ID. The output carries what the steps print, a RUN's among it, so an ID
// in it proves nothing: a step that prints " ---> ID" names an image the
// user or another build made, and that image, tagged or older than the
// build, is left alone. It asks the engine within its own deadline, even
// when the build was cut off by Ctrl-C.
func (c *Client) madeSince(ctx context.Context, ids []string, began time.Time) []string {
	if len(ids) == 0 {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), intermediatesTimeout)
	defer cancel()
	var made []string
	for _, id := range ids {
		img, err := c.inspectImage(ctx, id)
		if err != nil || slices.ContainsFunc(img.RepoTags, func(tag string) bool { return !strings.HasPrefix(tag, "<none>") }) {
			continue
		}
		created, err := time.Parse(time.RFC3339Nano, img.Created)
		if full := strings.TrimPrefix(img.ID, "sha256:"); err == nil && !created.Before(began) && !slices.Contains(made, full) {
			made = append(made, full)
		}
	}
	return made
}
