package docker

import (
	"archive/tar"
	"bytes"
	"context"
	"os"
	"path"
	"strings"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/image"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
)

// CopyFiles writes files into a container's filesystem, creating missing
// parent directories. Files are owned by root. The engine refuses this for
// a container with a read-only root filesystem: see DeriveImage.
func (c *Client) CopyFiles(ctx context.Context, id string, files []engine.File) error {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	if err := writeFiles(tw, "", files); err != nil {
		return err
	}
	if err := tw.Close(); err != nil {
		return err
	}
	return c.within(ctx, "the request to copy files into a container", engine.SlowCallTimeout, func(ctx context.Context) error {
		return c.api.CopyToContainer(ctx, id, "/", &buf, container.CopyToContainerOptions{})
	})
}

// DeriveImage builds, FROM base, an untagged image that holds files, for a
// container whose root filesystem is read-only and so cannot be written
// into. The image carries labels; it returns its ID and the intermediate
// image of its COPY step (RemoveBuilt removes both).
func (c *Client) DeriveImage(ctx context.Context, base string, files []engine.File, labels map[string]string) (engine.Built, error) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	dockerfile := []byte("FROM " + base + "\nCOPY files/ /\n")
	if err := writeFiles(tw, "", []engine.File{{Path: "/Dockerfile", Content: dockerfile, Mode: 0o644}}); err != nil {
		return engine.Built{}, err
	}
	if err := writeFiles(tw, "files", files); err != nil {
		return engine.Built{}, err
	}
	if err := tw.Close(); err != nil {
		return engine.Built{}, err
	}
	return c.BuildImage(ctx, engine.BuildSpec{Context: engine.BytesContext(buf.Bytes()), Dockerfile: "Dockerfile",
		Labels: labels}, func(string) {})
}

// writeFiles writes files into tw under dir.
func writeFiles(tw *tar.Writer, dir string, files []engine.File) error {
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

// ImagesLabelled returns the IDs of the images that carry every one of
// labels, filtered by the engine and again here (labels.go).
func (c *Client) ImagesLabelled(ctx context.Context, labels map[string]string) ([]string, error) {
	list, err := c.listImages(ctx, image.ListOptions{All: true, Filters: labelArgs(labels)})
	ids := make([]string, 0, len(list))
	for _, img := range list {
		if engine.HasLabels(img.Labels, labels) { // Podman ORs label filters (labels.go)
			ids = append(ids, img.ID)
		}
	}
	return ids, err
}

// WhereFilesGo returns, for each of paths, the directory a file written
// there lands in, once the symlinks the container's filesystem (its image)
// has among its parent directories are followed: a file under /var/run
// lands in /run where the image links one to the other. It asks the engine
// about each distinct parent directory once, never runs anything inside
// the container, and leaves directories that do not exist as they are.
func (c *Client) WhereFilesGo(ctx context.Context, id string, paths []string) (map[string]string, error) {
	resolved := map[string]string{"/": "/"}
	var resolve func(dir string, hops int) (string, error)
	resolve = func(dir string, hops int) (string, error) {
		if r, ok := resolved[dir]; ok {
			return r, nil
		}
		parent, err := resolve(path.Dir(dir), hops)
		if err != nil {
			return "", err
		}
		here := path.Join(parent, path.Base(dir))
		var stat container.PathStat
		err = c.within(ctx, "the request to look at a path in a container", engine.QuickCallTimeout, func(ctx context.Context) (err error) {
			stat, err = c.api.ContainerStatPath(ctx, id, here)
			return err
		})
		switch {
		case engine.IsNotFound(err):
		case err != nil:
			return "", err
		case stat.Mode&os.ModeSymlink != 0 && stat.LinkTarget != "" && hops < 40:
			// The engine gives the link's target resolved, from the root.
			if here, err = resolve(path.Clean(stat.LinkTarget), hops+1); err != nil {
				return "", err
			}
		}
		resolved[dir] = here
		return here, nil
	}
	out := make(map[string]string, len(paths))
	for _, p := range paths {
		dir, err := resolve(path.Dir(path.Clean(p)), 0)
		if err != nil {
			return nil, err
		}
		out[p] = dir
	}
	return out, nil
}
