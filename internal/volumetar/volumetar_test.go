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
	"time"

	"github.com/klauspost/compress/gzip"

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

// A sandbox that keeps swapping a directory for a symbolic link to / and
// for a FIFO while the volume is read: every archive holds only what the
// volume held (never what the link leads to), and every read ends, in an
// archive or a ChangedError, never waiting on the FIFO.
func TestWalkASandboxSwapsStaysInside(t *testing.T) {
	dir := t.TempDir()
	d := filepath.Join(dir, "d")
	if err := os.WriteFile(filepath.Join(dir, "keep"), []byte("k"), 0o600); err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	swapped := make(chan struct{})
	go func() {
		defer close(swapped)
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			_ = os.RemoveAll(d)
			switch i % 3 {
			case 0:
				_ = os.Mkdir(d, 0o755)
				_ = os.WriteFile(filepath.Join(d, "f"), []byte("f"), 0o600)
			case 1:
				_ = os.Symlink("/", d)
			case 2:
				_ = syscall.Mkfifo(d, 0o600)
			}
		}
	}()
	allowed := map[string]bool{"seed/": true, "seed/keep": true, "seed/d": true, "seed/d/": true, "seed/d/f": true}
	var whole, changed int
	for range 300 {
		var out bytes.Buffer
		done := make(chan error, 1)
		go func() { done <- Write(&out, dir, "seed") }()
		var err error
		select {
		case err = <-done:
		case <-time.After(10 * time.Second):
			t.Fatal("a read did not end: it waited on what the sandbox swapped in")
		}
		var ce *ChangedError
		if errors.As(err, &ce) {
			changed++
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		whole++
		tr := tar.NewReader(&out)
		for {
			h, err := tr.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			if !allowed[h.Name] {
				t.Fatalf("the archive holds %q, which is not in the volume", h.Name)
			}
		}
	}
	close(stop)
	<-swapped
	t.Logf("%d whole archives, %d reads that saw the volume change", whole, changed)
}

// mainOutput runs the program on args and returns its exit status and
// what it wrote to its standard output.
func mainOutput(t *testing.T, args ...string) (int, []byte) {
	t.Helper()
	out, err := os.CreateTemp(t.TempDir(), "stdout")
	if err != nil {
		t.Fatal(err)
	}
	stdout := os.Stdout
	os.Stdout = out
	status := Main(args)
	os.Stdout = stdout
	written, err := os.ReadFile(out.Name())
	if err != nil {
		t.Fatal(err)
	}
	return status, written
}

// Asked for gzip, the program writes the very archive it writes
// otherwise, compressed; any other last argument is a usage error.
func TestMainCompressesWhenAsked(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "text"), bytes.Repeat([]byte("a workspace's text "), 1000), 0o644); err != nil {
		t.Fatal(err)
	}
	status, plain := mainOutput(t, dir, "seed")
	if status != 0 {
		t.Fatalf("exit status %d", status)
	}
	status, compressed := mainOutput(t, dir, "seed", Gzip)
	if status != 0 || len(compressed) >= len(plain)/4 {
		t.Fatalf("exit status %d, %d bytes compressed from %d", status, len(compressed), len(plain))
	}
	zr, err := gzip.NewReader(bytes.NewReader(compressed))
	if err != nil {
		t.Fatal(err)
	}
	if got, err := io.ReadAll(zr); err != nil || !bytes.Equal(got, plain) {
		t.Errorf("uncompressed: %d bytes (%v), want the %d bytes of the plain archive", len(got), err, len(plain))
	}
	if status, _ := mainOutput(t, dir, "seed", "zstd"); status != exitUsage {
		t.Errorf("an unknown compression: exit status %d, want %d", status, exitUsage)
	}
}
