package docker

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync/atomic"
	"time"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
)

// streamTimeout bounds a whole stream of a volume's archive, in or out. It
// is only a backstop: the stream fails as soon as it stops moving for
// stallTimeout, and the resource's own timeouts bound it from above.
const streamTimeout = 6 * time.Hour

// stallTimeout is how long a stream of a volume's archive may stand
// still before the engine counts as not answering.
const stallTimeout = engine.QuickCallTimeout

// ArchiveVolume reads the volume's content out through a helper container
// that mounts it read-only at SeedDir (the engine's archive of that path:
// its entries under SeedDir), holding its writers still meanwhile with
// hold, hands the stream to read, and removes the helper and its image
// however it ends. A stream that stands still for stallTimeout fails as
// an engine that did not answer.
func (c *Client) ArchiveVolume(ctx context.Context, volume, token string, hold func(context.Context) func(),
	read func(tar io.Reader) error) (err error) {
	defer func() { err = errors.Join(err, c.CleanUpSeed(ctx, token)) }()
	id, err := c.startHelper(ctx, volume, token, true)
	if err != nil {
		return err
	}
	if hold != nil {
		release := hold(ctx)
		defer release() // before the helper's removal, which the engine may take its time over
	}
	download := c.watch(ctx, nil)
	defer download.stop()
	err = c.within(download.ctx, "the request to archive a volume", streamTimeout, func(ctx context.Context) error {
		rc, _, err := c.api.CopyFromContainer(ctx, id, "/"+engine.SeedDir)
		if err != nil {
			return err
		}
		defer func() { _ = rc.Close() }()
		download.r = rc
		return read(download)
	})
	if err != nil {
		return fmt.Errorf("archiving the volume: %w", download.cause(err))
	}
	return nil
}

// watched is a stream to or from the engine that cancels its call when
// it stands still for stallTimeout.
type watched struct {
	ctx      context.Context
	cancel   context.CancelFunc
	r        io.Reader
	timer    *time.Timer
	stalled  atomic.Bool
	endpoint string
}

// watch watches r (set later for a download), within ctx: the call that
// moves the stream runs under the returned ctx.
func (c *Client) watch(ctx context.Context, r io.Reader) *watched {
	w := &watched{r: r, endpoint: c.endpoint}
	w.ctx, w.cancel = context.WithCancel(ctx)
	w.timer = time.AfterFunc(stallTimeout, func() {
		w.stalled.Store(true)
		w.cancel()
	})
	return w
}

// Read reads the stream, and gives it stallTimeout more with every byte.
// At its end, the engine has the time of a slow call to answer.
func (w *watched) Read(p []byte) (int, error) {
	n, err := w.r.Read(p)
	switch {
	case errors.Is(err, io.EOF):
		w.timer.Reset(engine.SlowCallTimeout)
	case n > 0:
		w.timer.Reset(stallTimeout)
	}
	return n, err
}

func (w *watched) stop() {
	w.timer.Stop()
	w.cancel()
}

// cause is err, or the engine's silence when the stream stood still.
func (w *watched) cause(err error) error {
	if w.stalled.Load() {
		return &engine.UnansweredError{Endpoint: w.endpoint, Call: "the stream of a volume's archive", After: stallTimeout}
	}
	return err
}
