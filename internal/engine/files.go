package engine

import (
	"archive/tar"
	"bytes"
	"context"
	"path"
	"strings"
	"time"

	"github.com/docker/docker/api/types/container"
)

// File is a file written into a container.
type File struct {
	Path    string // absolute
	Content []byte
	Mode    int64
}

// CopyFiles writes files into a container's filesystem, creating missing
// parent directories. Files are owned by root. The engine refuses this for
// a container with a read-only root filesystem.
func (c *Client) CopyFiles(ctx context.Context, id string, files []File) error {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, f := range files {
		hdr := &tar.Header{
			Name:     strings.TrimPrefix(path.Clean(f.Path), "/"),
			Mode:     f.Mode,
			Size:     int64(len(f.Content)),
			Typeflag: tar.TypeReg,
			ModTime:  time.Now(),
		}
		if err := tw.WriteHeader(hdr); err != nil {
			return err
		}
		if _, err := tw.Write(f.Content); err != nil {
			return err
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	return c.within(ctx, "the request to copy files into a container", SlowCallTimeout, func(ctx context.Context) error {
		return c.api.CopyToContainer(ctx, id, "/", &buf, container.CopyToContainerOptions{})
	})
}
