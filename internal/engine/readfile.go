package engine

import (
	"archive/tar"
	"context"
	"fmt"
	"io"
	"io/fs"
)

// FileTooLargeError is a file larger than a read's bound.
type FileTooLargeError struct {
	Path      string
	Size, Max int64
}

func (e *FileTooLargeError) Error() string {
	return fmt.Sprintf("%s is %d bytes, more than the %d bytes allowed", e.Path, e.Size, e.Max)
}

// NotRegularFileError is a path that is not a regular file (a directory, a
// symbolic link, a device).
type NotRegularFileError struct {
	Path, Kind, LinkTarget string
}

func (e *NotRegularFileError) Error() string {
	if e.LinkTarget != "" {
		return fmt.Sprintf("%s is a symbolic link to %s", e.Path, e.LinkTarget)
	}
	return fmt.Sprintf("%s is a %s, not a regular file", e.Path, e.Kind)
}

// ReadFile reads one regular file, at most limit bytes long, from a
// container's filesystem (its mounted volumes included), running or not. It
// only reads: the engine's archive of the path is read as far as its one
// file. A missing path is a not-found error (IsNotFound).
func (c *Client) ReadFile(ctx context.Context, id, file string, limit int64) ([]byte, error) {
	var content []byte
	err := c.within(ctx, "the request to read a file from a container", SlowCallTimeout, func(ctx context.Context) error {
		rc, stat, err := c.api.CopyFromContainer(ctx, id, file)
		if err != nil {
			return err
		}
		defer func() { _ = rc.Close() }()
		switch {
		case stat.Mode&fs.ModeSymlink != 0:
			return &NotRegularFileError{Path: file, LinkTarget: stat.LinkTarget}
		case stat.Mode.IsDir():
			return &NotRegularFileError{Path: file, Kind: "directory"}
		case !stat.Mode.IsRegular():
			return &NotRegularFileError{Path: file, Kind: "special file"}
		case stat.Size > limit:
			return &FileTooLargeError{Path: file, Size: stat.Size, Max: limit}
		}
		tr := tar.NewReader(rc)
		hdr, err := tr.Next()
		if err != nil {
			return fmt.Errorf("reading %s: %w", file, err)
		}
		if hdr.Size > limit {
			return &FileTooLargeError{Path: file, Size: hdr.Size, Max: limit}
		}
		content, err = io.ReadAll(io.LimitReader(tr, limit))
		return err
	})
	return content, err
}
