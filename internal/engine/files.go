package engine

import (
	"archive/tar"
	"bytes"
	"context"
	"path"
	"strings"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/filters"
	"github.com/docker/docker/api/types/image"
)

// File is a file written into a container.
type File struct {
	Path    string // absolute
	Content []byte
	Mode    int64
}

// CopyFiles writes files into a container's filesystem, creating missing
// parent directories. Files are owned by root. The engine refuses this for
// a container with a read-only root filesystem: see DeriveImage.
func (c *Client) CopyFiles(ctx context.Context, id string, files []File) error {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	if err := writeFiles(tw, "", files); err != nil {
		return err
	}
	if err := tw.Close(); err != nil {
		return err
	}
	return c.within(ctx, "the request to copy files into a container", SlowCallTimeout, func(ctx context.Context) error {
		return c.api.CopyToContainer(ctx, id, "/", &buf, container.CopyToContainerOptions{})
	})
}

// DeriveImage builds, FROM base, an untagged image that holds files, for a
// container whose root filesystem is read-only and so cannot be written
// into. The image carries labels; it returns its ID.
func (c *Client) DeriveImage(ctx context.Context, base string, files []File, labels map[string]string) (string, error) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	dockerfile := []byte("FROM " + base + "\nCOPY files/ /\n")
	if err := writeFiles(tw, "", []File{{Path: "/Dockerfile", Content: dockerfile, Mode: 0o644}}); err != nil {
		return "", err
	}
	if err := writeFiles(tw, "files", files); err != nil {
		return "", err
	}
	if err := tw.Close(); err != nil {
		return "", err
	}
	return c.BuildImage(ctx, BuildSpec{Context: &buf, Dockerfile: "Dockerfile", Labels: labels}, func(string) {})
}

// writeFiles writes files into tw under dir.
func writeFiles(tw *tar.Writer, dir string, files []File) error {
	for _, f := range files {
		hdr := &tar.Header{
			Name:     path.Join(dir, strings.TrimPrefix(path.Clean(f.Path), "/")),
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
	return nil
}

// ImagesLabelled returns the IDs of the images that carry the label
// key=value.
func (c *Client) ImagesLabelled(ctx context.Context, key, value string) ([]string, error) {
	var ids []string
	err := c.within(ctx, "the request to list images", QuickCallTimeout, func(ctx context.Context) error {
		list, err := c.api.ImageList(ctx, image.ListOptions{All: true, Filters: filters.NewArgs(filters.Arg("label", key+"="+value))})
		for _, img := range list {
			ids = append(ids, img.ID)
		}
		return err
	})
	return ids, err
}
