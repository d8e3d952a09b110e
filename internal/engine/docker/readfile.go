package docker

import (
	"archive/tar"
	"context"
	"fmt"
	"io"
	"io/fs"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
)

// ReadFile reads one regular file, at most limit bytes long, from a
// container's filesystem (its mounted volumes included), running or not. It
// only reads: the engine's archive of the path is read as far as its one
// file. A missing path is a not-found error (IsNotFound).
func (c *Client) ReadFile(ctx context.Context, id, file string, limit int64) ([]byte, error) {
	var content []byte
	err := c.within(ctx, "the request to read a file from a container", engine.SlowCallTimeout, func(ctx context.Context) error {
		rc, stat, err := c.api.CopyFromContainer(ctx, id, file)
		if err != nil {
			return err
		}
		defer func() { _ = rc.Close() }()
		switch {
		case stat.Mode&fs.ModeSymlink != 0:
			return &engine.NotRegularFileError{Path: file, LinkTarget: stat.LinkTarget}
		case stat.Mode.IsDir():
			return &engine.NotRegularFileError{Path: file, Kind: "directory"}
		case !stat.Mode.IsRegular():
			return &engine.NotRegularFileError{Path: file, Kind: "special file"}
		case stat.Size > limit:
			return &engine.FileTooLargeError{Path: file, Size: stat.Size, Max: limit}
		}
		tr := tar.NewReader(rc)
		hdr, err := tr.Next()
		if err != nil {
			return fmt.Errorf("reading %s: %w", file, err)
		}
		if hdr.Size > limit {
			return &engine.FileTooLargeError{Path: file, Size: hdr.Size, Max: limit}
		}
		content, err = io.ReadAll(io.LimitReader(tr, limit))
		return err
	})
	return content, err
}
