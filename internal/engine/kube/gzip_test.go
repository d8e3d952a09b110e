package kube

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"slices"
	"testing"
)

// The archive a helper's tar reads compressed is, once uncompressed, the
// very archive it reads uncompressed, directories and all; the probe's
// archive is an empty one; and the command reads gzip only when asked.
func TestSeedArchiveCompressedIsTheSameArchive(t *testing.T) {
	t.Parallel()
	var src bytes.Buffer
	tw := tar.NewWriter(&src)
	for _, h := range []*tar.Header{{Name: "seed/", Typeflag: tar.TypeDir, Mode: 0o755},
		{Name: "seed/big", Typeflag: tar.TypeReg, Mode: 0o644, Size: 1 << 20}} {
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
	}
	_, _ = tw.Write(make([]byte, 1<<20))
	_ = tw.Close()
	var plain, compressed bytes.Buffer
	dirs, err := portableDirectories(&plain, bytes.NewReader(src.Bytes()), false)
	if err != nil || len(dirs) != 1 {
		t.Fatalf("plain: %v, %d directories", err, len(dirs))
	}
	if dirs, err = portableDirectories(&compressed, bytes.NewReader(src.Bytes()), true); err != nil || len(dirs) != 1 {
		t.Fatalf("compressed: %v, %d directories", err, len(dirs))
	}
	if compressed.Len() > plain.Len()/100 {
		t.Errorf("a MiB of zeros compressed to %d bytes", compressed.Len())
	}
	for name, in := range map[string][]byte{"the seed": compressed.Bytes(), "the probe": emptyTarGz()} {
		zr, err := gzip.NewReader(bytes.NewReader(in))
		if err != nil {
			t.Fatal(err)
		}
		out, err := io.ReadAll(zr)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		want := plain.Bytes()
		if name == "the probe" {
			want = make([]byte, 1024)
		}
		if !bytes.Equal(out, want) {
			t.Errorf("%s uncompressed is %d bytes, not the %d bytes of its archive", name, len(out), len(want))
		}
	}
	if got := extracting(true); !slices.Equal(got, []string{"tar", "-xzf", "-", "-C", "/"}) {
		t.Errorf("extracting = %q", got)
	}
	if got := extracting(false); !slices.Equal(got, []string{"tar", "-xf", "-", "-C", "/"}) {
		t.Errorf("extracting uncompressed = %q", got)
	}
}

// A claim read out compressed reaches the reader as the archive itself,
// and bytes the program did not write after it, inside the compressed
// stream or after it, fail the read.
func TestReadArchiveUncompressesAndChecksTheEnd(t *testing.T) {
	t.Parallel()
	var plain bytes.Buffer
	tw := tar.NewWriter(&plain)
	_ = tw.WriteHeader(&tar.Header{Name: "seed/f", Typeflag: tar.TypeReg, Mode: 0o644, Size: 2})
	_, _ = tw.Write([]byte("hi"))
	_ = tw.Close()
	compress := func(b []byte) []byte {
		var out bytes.Buffer
		zw := gzip.NewWriter(&out)
		_, _ = zw.Write(b)
		_ = zw.Close()
		return out.Bytes()
	}
	read := func(r io.Reader) error {
		h, err := tar.NewReader(r).Next()
		if err == nil && h.Name != "seed/f" {
			err = fmt.Errorf("read %q", h.Name)
		}
		_, _ = tar.NewReader(r).Next() // to the end marker
		return err
	}
	if err := readArchive(bytes.NewReader(compress(plain.Bytes())), true, read); err != nil {
		t.Errorf("the compressed archive: %v", err)
	}
	if err := readArchive(bytes.NewReader(plain.Bytes()), false, read); err != nil {
		t.Errorf("the plain archive: %v", err)
	}
	withJunk := append(bytes.Clone(plain.Bytes()), "junk"...)
	if err := readArchive(bytes.NewReader(compress(withJunk)), true, read); err == nil {
		t.Error("bytes after the archive, compressed with it, were taken")
	}
	if err := readArchive(bytes.NewReader(append(compress(plain.Bytes()), "junk"...)), true, read); err == nil {
		t.Error("bytes after the compressed stream were taken")
	}
	if err := readArchive(bytes.NewReader(plain.Bytes()), true, read); err == nil {
		t.Error("an archive said to be compressed, and not, was taken")
	}
}
