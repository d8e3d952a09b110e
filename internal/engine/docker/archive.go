package docker

import (
	"archive/tar"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync/atomic"
	"time"

	"github.com/docker/docker/api/types"
	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/pkg/stdcopy"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/archive"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/volumetar"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/volumetar/helpers"
)

// streamTimeout bounds a whole stream of a volume's archive, in or out. It
// is only a backstop: the stream fails as soon as it stops moving for
// stallTimeout, and the resource's own timeouts bound it from above.
const streamTimeout = 6 * time.Hour

// stallTimeout is how long a stream of a volume's archive may stand
// still before the engine counts as not answering.
const stallTimeout = engine.QuickCallTimeout

// ArchiveVolume reads the volume's content out through a helper container
// that mounts it read-only at SeedDir, its entries under SeedDir, holding
// its writers still meanwhile with hold, hands the stream to read, and
// removes the helper and its image however it ends. The helper runs the
// provider's own program (package volumetar), which reads the volume
// inside it without following anything a sandbox swaps in, through an
// exec's stream: the Docker engine holds a container's lock for the whole
// of an archive endpoint's stream, and every other container's create and
// removal wait behind it (moby/moby#29058), so a small snapshot would
// wait for a large one beside it. Podman's archive endpoint gives every
// file its container user's owner besides. Where the provider has no
// program for the engine's host (an architecture the release holds no
// helper for, or a provider built without them), Docker's archive
// endpoint gives the stream, and Podman refuses (at plan:
// SnapshotRefusal). A stream that stands still for stallTimeout fails as
// an engine that did not answer.
func (c *Client) ArchiveVolume(ctx context.Context, volume, token string, hold func(context.Context) func(),
	read func(tar io.Reader) error) (err error) {
	defer func() { err = errors.Join(err, c.CleanUpSeed(ctx, token)) }()
	use := helperRunsProgram
	program, err := c.helper(ctx)
	if err != nil {
		if c.Kind(ctx) == KindPodman || !errors.As(err, new(*NoProgramError)) {
			return err
		}
		use, program = helperReads, nil
	}
	id, err := c.startHelper(ctx, volume, token, use, program)
	if err != nil {
		return err
	}
	if hold != nil {
		release := hold(ctx)
		defer release() // before the helper's removal, which the engine may take its time over
	}
	download := c.watch(ctx, nil)
	defer download.stop()
	if use == helperRunsProgram {
		err = c.runProgram(download, id, read)
	} else {
		err = c.within(download.ctx, "the request to archive a volume", streamTimeout, func(ctx context.Context) error {
			rc, _, err := c.api.CopyFromContainer(ctx, id, "/"+engine.SeedDir)
			if err != nil {
				return err
			}
			defer func() { _ = rc.Close() }()
			download.r = rc
			if err := read(download); err != nil {
				return err
			}
			return archive.CheckEnd(download) // the engine's padding, and nothing else
		})
	}
	if err != nil {
		return fmt.Errorf("archiving the volume: %w", download.cause(err))
	}
	return nil
}

// runProgram runs the provider's program in the helper and hands what it
// writes to read.
func (c *Client) runProgram(download *watched, id string, read func(tar io.Reader) error) error {
	ctx := download.ctx
	var created container.ExecCreateResponse
	err := c.within(ctx, "the request to create an exec", engine.QuickCallTimeout, func(ctx context.Context) (err error) {
		created, err = c.api.ContainerExecCreate(ctx, id, container.ExecOptions{
			Cmd:          []string{helperProgram, volumetar.Command, "/" + engine.SeedDir, engine.SeedDir},
			AttachStdout: true, AttachStderr: true,
		})
		return err
	})
	if err != nil {
		return err
	}
	// Its start is the stream's: the watch bounds it, and an engine that
	// never answers it is a stream that stood still.
	execID := created.ID
	att, err := attachWithin(ctx, func() (types.HijackedResponse, error) {
		return c.api.ContainerExecAttach(ctx, execID, container.ExecAttachOptions{})
	})
	if err != nil {
		return err
	}
	defer att.Close()
	pr, pw := io.Pipe()
	stderr := engine.NewOutput(4096)
	copied := make(chan struct{})
	go func() {
		defer close(copied)
		_, err := stdcopy.StdCopy(pw, stderr.Stderr(), closeWhenDone(ctx, att))
		_ = pw.CloseWithError(err)
	}()
	download.r = pr
	err = read(download)
	if err == nil {
		err = archive.CheckEnd(download) // to the program's end
	}
	_ = pr.CloseWithError(err)
	<-copied // what the program said is whole
	said := strings.TrimSpace(stderr.Result("", 0).Stderr)
	res, inspectErr := c.inspectExec(ctx, execID)
	switch {
	case inspectErr == nil && !res.Running && res.ExitCode == volumetar.ExitChanged:
		// The stream it cut short says less than why it did.
		return &engine.VolumeChangedError{Said: said}
	case err != nil && said != "":
		return fmt.Errorf("%w (the provider's program in the helper container said: %q)", err, said)
	case err != nil:
		return err
	case inspectErr != nil:
		return inspectErr
	case res.ExitCode != 0:
		return fmt.Errorf("the provider's program in the helper container exited with %d: %q", res.ExitCode, said)
	}
	return nil
}

// helper chooses the program a helper runs to read a volume on the
// engine's host (a Linux host, as every engine the backend reaches runs
// its containers on): the provider's embedded build for its architecture,
// or its own executable (helpers.HelperFor). Where there is none, it
// says which feature needs it, and why.
func (c *Client) helper(ctx context.Context) (*helpers.Helper, error) {
	facts, err := c.Facts(ctx)
	if err != nil {
		return nil, err
	}
	program, err := helpers.HelperFor(helpers.Platform{OS: "linux", Arch: helpers.EngineArch(facts.Arch)})
	if err != nil {
		return nil, &NoProgramError{Err: err}
	}
	return program, nil
}

// NoProgramError is an engine whose host runs none of the provider's helper
// programs: on Podman, whose archive endpoint does not keep files' owners,
// no snapshot of a volume can be taken.
type NoProgramError struct{ Err error }

func (e *NoProgramError) Error() string {
	return "taking a snapshot of a volume on Podman (sandbox_snapshot) needs the provider's helper program, " +
		"since Podman's archive endpoint does not keep files' owners: " + e.Err.Error()
}

func (e *NoProgramError) Unwrap() error { return e.Err }

// SnapshotRefusal: Podman's snapshots need a helper program for the
// engine's host (ArchiveVolume).
func (p Podman) SnapshotRefusal(ctx context.Context) string {
	if _, err := p.helper(ctx); errors.As(err, new(*NoProgramError)) {
		return err.Error()
	}
	return ""
}

// ArchivesInOrder: the Docker engine's and Podman's archives walk each
// directory in its names' order (should one not, the stream fails on the
// first entry out of order, and the caller reads it again, spooled).
func (c *Client) ArchivesInOrder() bool { return true }

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

// EntryRefusal: the Docker engine's and Podman's archive endpoints set a
// time before 1970, or after 2262, to 1970 (their Chtimes), where a
// restore must make exactly what the archive holds; and rootless Podman
// cannot give a file an owner past its user namespace's IDs (its Facts).
func (c *Client) EntryRefusal(ctx context.Context) (func(h *tar.Header) string, error) {
	facts, err := c.Facts(ctx)
	if err != nil {
		return nil, err
	}
	return func(h *tar.Header) string {
		if h.ModTime.Before(time.Unix(0, 0)) || h.ModTime.After(engine.LatestFileTime) {
			return fmt.Sprintf("is dated %s, which the archive endpoint of %s, through which a volume is filled, "+
				"sets to 1970-01-01 (it sets no time before 1970 or after 2262)", h.ModTime.UTC().Format(time.RFC3339),
				c.Where())
		}
		if below := facts.OwnersBelow; below > 0 && (int64(h.Uid) >= below || int64(h.Gid) >= below) {
			return fmt.Sprintf("is owned by %d:%d, which %s cannot give a file: it is rootless Podman, whose user "+
				"namespace maps the IDs 0 to %d only (the user's ranges in /etc/subuid and /etc/subgid)",
				h.Uid, h.Gid, c.Where(), below-1)
		}
		return ""
	}, nil
}
