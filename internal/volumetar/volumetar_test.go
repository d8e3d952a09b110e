package volumetar

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/archive"
)

// The program writes a tree as an engine's archive endpoint does: in the
// kept form's order (so archive.Stream takes it as it comes), links as
// links, a hard link to its first name, a FIFO as a FIFO.
func TestWriteIsInTheKeptOrder(t *testing.T) {
	dir := t.TempDir()
	for _, d := range []string{"a", "a.c", "a/b", "Z"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"a/b/x", "a.txt", "a-b"} {
		if err := os.WriteFile(filepath.Join(dir, f), []byte(f), 0o640); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("/etc/passwd", filepath.Join(dir, "escape")); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(filepath.Join(dir, "a-b"), filepath.Join(dir, "z-hard")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o600); err != nil {
		t.Fatal(err)
	}
	var tarball bytes.Buffer
	if err := Write(&tarball, dir, "seed"); err != nil {
		t.Fatal(err)
	}
	var kept bytes.Buffer
	s, dropped, err := archive.Stream(context.Background(), &kept, bytes.NewReader(tarball.Bytes()), "seed",
		archive.Limits{MaxBytes: 1 << 20, MaxEntries: 100})
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(dropped) != "[fifo]" || s.Entries != 10 {
		t.Errorf("dropped %v, %d entries", dropped, s.Entries)
	}
	var got []string
	tr := tar.NewReader(&kept)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, fmt.Sprintf("%s %c %s %d:%d", h.Name, h.Typeflag, h.Linkname, h.Uid, h.Gid))
	}
	uid, gid := os.Getuid(), os.Getgid()
	want := []string{"./ 5 ", "Z/ 5 ", "a/ 5 ", "a/b/ 5 ", "a/b/x 0 ", "a-b 0 ", "a.c/ 5 ", "a.txt 0 ",
		"escape 2 /etc/passwd", "z-hard 1 a-b"}
	for i := range want {
		want[i] += fmt.Sprintf(" %d:%d", uid, gid)
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("got\n%q\nwant\n%q", got, want)
	}
}
