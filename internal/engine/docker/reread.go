package docker

import (
	"context"
	"time"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/docker/docker/api/types/image"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
)

// Podman's API answers a read of its images with an internal error when
// another image is removed while it reads them ("failed to convert
// ImageData ...: reading image <another>: image not known"), or while a
// build commits one, which under load takes seconds: its image inspect and
// list walk the whole store. Its container inspect failed internally once
// too, in a parallel rootless test run. Such a read is asked again, for
// about eight seconds, before its error counts.

// rereads is how many times an idempotent read is asked in all.
const rereads = 6

// rereadPause is the pause before the first read again; it doubles (0.25 s
// to 4 s, 7.75 s in all). A variable for the tests.
var rereadPause = 250 * time.Millisecond

// reread is within for a call that only reads: one the engine answered
// with an internal error is asked again, up to rereads times in all, each
// with its own deadline, while ctx lasts.
func (c *Client) reread(ctx context.Context, call string, f func(context.Context) error) error {
	return c.rereadWithin(ctx, call, engine.QuickCallTimeout, cerrdefs.IsInternal, f)
}

// rereadWithin is reread with each ask's own deadline, asked again for the
// errors again says are worth it.
func (c *Client) rereadWithin(ctx context.Context, call string, timeout time.Duration, again func(error) bool,
	f func(context.Context) error) error {
	return c.rereadTimes(ctx, call, timeout, rereads, again, f)
}

// rereadTimes is rereadWithin with the number of asks in all.
func (c *Client) rereadTimes(ctx context.Context, call string, timeout time.Duration, times int, again func(error) bool,
	f func(context.Context) error) error {
	err := c.within(ctx, call, timeout, f)
	pause := rereadPause
	for attempt := 1; attempt < times && again(err); attempt++ {
		select {
		case <-ctx.Done():
			return err
		case <-time.After(pause):
		}
		pause *= 2
		err = c.within(ctx, call, timeout, f)
	}
	return err
}

// listImages lists images, read again as reread says, each ask within
// SlowCallTimeout: Podman's list walks its whole store (each image's
// parents and whether it dangles), and under load beside builds it took
// more than 30 s (a rootless test run here failed a terraform query).
func (c *Client) listImages(ctx context.Context, opts image.ListOptions) ([]image.Summary, error) {
	var list []image.Summary
	err := c.rereadWithin(ctx, "the request to list images", engine.SlowCallTimeout, cerrdefs.IsInternal,
		func(ctx context.Context) (err error) {
			list, err = c.api.ImageList(ctx, opts)
			return err
		})
	return list, err
}
