package kube

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/klauspost/compress/gzip"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/archive"
)

// An archive that fills a claim crosses the API server, the kubelet and
// the runtime, each copying every byte, and, from a laptop, the network
// to the cluster: it goes gzip-compressed where the helper image's tar
// reads gzip, as busybox's and GNU tar (with gzip installed) do. A
// workspace's text shrinks several times over, and the holes of a sparse
// file, which a tar holds as zeros, to almost nothing. It is compressed at
// gzip's fastest level by klauspost/compress, which passes over what does
// not compress some twenty times faster than the standard library. The
// helper's tar still reads exactly the archive the provider checked: the
// compression is the provider's own, undone in the pod. A claim read out
// comes compressed the same way by the provider's program (volumetar).

// emptyTarGz is an empty archive (its end marker alone), compressed: what
// helperReadsGzip gives the helper's tar to learn whether it reads gzip.
// Made when first asked for: a compressor's buffers are a megabyte, and
// every provider process would make them at its start.
var emptyTarGz = sync.OnceValue(func() []byte {
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	_, _ = zw.Write(make([]byte, 2*512))
	_ = zw.Close()
	return b.Bytes()
})

// helperReadsGzip reports whether the helper image's tar, in the running
// helper pod id, reads a gzip-compressed archive (tar -z): the default
// image's does; another image's is asked once per provider run, with an
// empty archive, which writes nothing.
func (c *Client) helperReadsGzip(ctx context.Context, id string) (bool, error) {
	if c.helperImage == DefaultHelperImage {
		return true, nil
	}
	switch c.helperGzip.Load() {
	case 1:
		return true, nil
	case 2:
		return false, nil
	}
	err := c.stream(ctx, id, extracting(true), bytes.NewReader(emptyTarGz()), io.Discard)
	if errors.As(err, new(*helperExit)) {
		c.helperGzip.Store(2)
		return false, nil
	}
	if err != nil {
		return false, err
	}
	c.helperGzip.Store(1)
	return true, nil
}

// extracting is the helper's tar reading an archive from its standard
// input into /, gzip-compressed when compressed.
func extracting(compressed bool) []string {
	flags := "-xf"
	if compressed {
		flags = "-xzf"
	}
	return []string{"tar", flags, "-", "-C", "/"}
}

// portableDirectories writes tarball to w as archive.PortableDirectories
// does, compressed when compress, and returns its directories.
func portableDirectories(w io.Writer, tarball io.Reader, compress bool) ([]*tar.Header, error) {
	if !compress {
		return archive.PortableDirectories(w, tarball)
	}
	zw, err := gzip.NewWriterLevel(w, gzip.BestSpeed)
	if err != nil {
		return nil, err
	}
	dirs, err := archive.PortableDirectories(zw, tarball)
	if err != nil {
		return nil, err
	}
	return dirs, zw.Close()
}

// readArchive gives read the archive the helper pod writes to r,
// uncompressed when compressed, and checks that nothing follows its end:
// the program writes the archive and nothing else.
func readArchive(r io.Reader, compressed bool, read func(tar io.Reader) error) error {
	archived := r
	if compressed {
		zr, err := gzip.NewReader(r)
		if err != nil {
			return fmt.Errorf("reading the helper pod's archive: %w", err)
		}
		zr.Multistream(false)
		archived = zr
	}
	if err := read(archived); err != nil {
		return err
	}
	if err := archive.CheckEnd(archived); err != nil || !compressed {
		return err
	}
	return archive.CheckEnd(r) // nothing after the compressed stream either
}
