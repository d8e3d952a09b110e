package volumetar

import (
	"archive/tar"
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/archive"
)

// kept is the tree dir as the provider keeps it: read by the program,
// checked and written in the kept form.
func kept(t *testing.T, dir string) archive.Summary {
	t.Helper()
	var raw, out bytes.Buffer
	if err := Write(&raw, dir, "seed"); err != nil {
		t.Fatal(err)
	}
	s, _, err := archive.Stream(context.Background(), &out, &raw, "seed", archive.Limits{MaxBytes: 1 << 30, MaxEntries: 100})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// A tree taken as a snapshot is, once unpacked by the program from the
// archive a restore streams (the kept form under SeedDir, its headers
// portable), the same tree: the same snapshot, byte for byte. Its sparse
// file keeps its size, with holes where it had zeros.
func TestExtractMakesTheTreeTheSnapshotHeld(t *testing.T) {
	from := t.TempDir()
	uid, gid := os.Getuid(), os.Getgid()
	if uid == 0 {
		uid, gid = 3000000, 3000001 // past a tar header's octal field
	}
	at := time.Date(2001, 2, 3, 4, 5, 6, 0, time.UTC)
	for _, d := range []struct {
		path string
		mode os.FileMode
	}{{"a", 0o750}, {"a/b", 0o700}, {"tmp", 0o777 | os.ModeSticky}} {
		if err := os.Mkdir(filepath.Join(from, d.path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(filepath.Join(from, d.path), d.mode); err != nil {
			t.Fatal(err)
		}
	}
	files := map[string]string{"a/b/x": "x", "empty": "", "a/run": "#!/bin/sh\n"}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(from, name), []byte(content), 0o640); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(filepath.Join(from, "a/run"), 0o755); err != nil {
		t.Fatal(err)
	}
	// 5 MiB and a byte: a hole, data across a chunk's edge, a hole to its end.
	sparse, err := os.Create(filepath.Join(from, "sparse"))
	if err == nil {
		_, err = sparse.WriteAt([]byte("data across the edge"), 2<<20-4)
	}
	if err == nil {
		err = sparse.Truncate(5<<20 + 1)
	}
	if err = errorsJoin(err, sparse.Close()); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/etc/passwd", filepath.Join(from, "a/escape")); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(filepath.Join(from, "a/b/x"), filepath.Join(from, "z-hard")); err != nil {
		t.Fatal(err)
	}
	err = filepath.Walk(from, func(p string, fi os.FileInfo, err error) error {
		if err != nil || fi.Mode()&os.ModeSymlink != 0 {
			return err
		}
		if err := os.Lchown(p, uid, gid); err != nil {
			return err
		}
		return os.Chtimes(p, at, at)
	})
	if err != nil {
		t.Fatal(err)
	}
	want := kept(t, from)

	var raw, restored, portable bytes.Buffer
	if err := Write(&raw, from, "seed"); err != nil {
		t.Fatal(err)
	}
	var k bytes.Buffer
	if _, _, err := archive.Stream(context.Background(), &k, &raw, "seed", archive.Limits{MaxBytes: 1 << 30}); err != nil {
		t.Fatal(err)
	}
	if _, err := archive.Restore(context.Background(), &restored, &k, "seed", archive.Limits{MaxBytes: 1 << 30}); err != nil {
		t.Fatal(err)
	}
	if _, err := archive.PortableDirectories(&portable, &restored); err != nil {
		t.Fatal(err)
	}
	to := filepath.Join(t.TempDir(), "claim")
	if err := os.Mkdir(to, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := Extract(&portable, to, "seed"); err != nil {
		t.Fatal(err)
	}
	if got := kept(t, to); got.SHA256 != want.SHA256 || got.Entries != want.Entries {
		t.Errorf("unpacked, the tree is taken as %+v, not as the snapshot it came from, %+v", got, want)
	}
	var st syscall.Stat_t
	if err := syscall.Stat(filepath.Join(to, "sparse"), &st); err != nil {
		t.Fatal(err)
	}
	if st.Size != 5<<20+1 || st.Blocks*512 > 2<<20 {
		t.Errorf("the sparse file unpacked is %d bytes in %d blocks, want 5 MiB and a byte, mostly holes", st.Size, st.Blocks)
	}
}

func errorsJoin(a, b error) error {
	if a != nil {
		return a
	}
	return b
}

// tarOf is a tar of headers, each regular file with its name as content.
func tarOf(t *testing.T, headers ...*tar.Header) *bytes.Buffer {
	t.Helper()
	var b bytes.Buffer
	tw := tar.NewWriter(&b)
	for _, h := range headers {
		if h.Typeflag == tar.TypeReg {
			h.Size = int64(len(h.Name))
		}
		if h.Mode == 0 {
			h.Mode = 0o755
		}
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if h.Typeflag == tar.TypeReg {
			_, _ = tw.Write([]byte(h.Name))
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	return &b
}

// An archive that would have the program make anything outside the
// directory, follow a link, overwrite or make a device is refused, and
// nothing outside the directory is touched.
func TestExtractRefusesWhatItShouldNotMake(t *testing.T) {
	dir := func(name string) *tar.Header { return &tar.Header{Name: name, Typeflag: tar.TypeDir} }
	file := func(name string) *tar.Header { return &tar.Header{Name: name, Typeflag: tar.TypeReg} }
	for _, c := range []struct {
		name    string
		entries func(outside string) []*tar.Header
		want    string
	}{
		{"climbs out", func(string) []*tar.Header { return []*tar.Header{dir("seed/"), file("seed/../x")} }, "climbs out"},
		{"absolute", func(o string) []*tar.Header { return []*tar.Header{file(o + "/x")} }, "climbs out"},
		{"another directory", func(string) []*tar.Header { return []*tar.Header{file("other/x")} }, "outside"},
		{"under a link", func(o string) []*tar.Header {
			return []*tar.Header{dir("seed/"), {Name: "seed/l", Typeflag: tar.TypeSymlink, Linkname: o}, file("seed/l/x")}
		}, "not a directory"},
		{"a directory over a link", func(o string) []*tar.Header {
			return []*tar.Header{dir("seed/"), {Name: "seed/l", Typeflag: tar.TypeSymlink, Linkname: o}, dir("seed/l/")}
		}, "not a directory"},
		{"twice", func(string) []*tar.Header { return []*tar.Header{dir("seed/"), file("seed/f"), file("seed/f")} }, "exists"},
		{"a file over a link", func(o string) []*tar.Header {
			return []*tar.Header{dir("seed/"), {Name: "seed/l", Typeflag: tar.TypeSymlink, Linkname: o + "/x"}, file("seed/l")}
		}, "exists"},
		{"a hard link to a directory", func(string) []*tar.Header {
			return []*tar.Header{dir("seed/"), dir("seed/d/"), {Name: "seed/h", Typeflag: tar.TypeLink, Linkname: "seed/d"}}
		}, "no regular file"},
		{"a hard link outside", func(o string) []*tar.Header {
			return []*tar.Header{dir("seed/"), {Name: "seed/h", Typeflag: tar.TypeLink, Linkname: "../etc/passwd"}}
		}, "climbs out"},
		{"a hard link through a link", func(o string) []*tar.Header {
			return []*tar.Header{dir("seed/"), {Name: "seed/l", Typeflag: tar.TypeSymlink, Linkname: filepath.Dir(o)},
				{Name: "seed/h", Typeflag: tar.TypeLink, Linkname: "seed/l/secret"}}
		}, "not a directory"},
		{"a device", func(string) []*tar.Header {
			return []*tar.Header{dir("seed/"), {Name: "seed/null", Typeflag: tar.TypeChar, Devmajor: 1, Devminor: 3}}
		}, "type"},
	} {
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			outside, to := filepath.Join(root, "outside"), filepath.Join(root, "claim")
			for _, d := range []string{outside, to} {
				if err := os.Mkdir(d, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			if err := os.WriteFile(filepath.Join(root, "secret"), []byte("secret"), 0o600); err != nil {
				t.Fatal(err)
			}
			err := Extract(tarOf(t, c.entries(outside)...), to, "seed")
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("Extract: %v, want an error with %q", err, c.want)
			}
			if left, _ := os.ReadDir(outside); len(left) > 0 {
				t.Errorf("made %v outside the directory", left)
			}
		})
	}
}

// Empty: a directory with nothing but a file system's lost+found is
// empty; one with anything else is not, and the program says so by its
// status, which has a claim a sandbox wrote to filled by tar, not Unpack.
func TestEmpty(t *testing.T) {
	for _, c := range []struct {
		name string
		make func(dir string) error
		want int
	}{
		{"nothing", func(string) error { return nil }, 0},
		{"lost+found", func(d string) error { return os.Mkdir(filepath.Join(d, "lost+found"), 0o700) }, 0},
		{"a file", func(d string) error { return os.WriteFile(filepath.Join(d, "notes"), nil, 0o600) }, ExitNotEmpty},
		{"a file called lost+found", func(d string) error {
			return os.WriteFile(filepath.Join(d, "lost+found"), nil, 0o600)
		}, ExitNotEmpty},
		{"a link", func(d string) error { return os.Symlink("/", filepath.Join(d, "l")) }, ExitNotEmpty},
		{"no directory", func(d string) error { return os.Remove(d) }, exitFailed},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "seed")
			if err := os.Mkdir(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := c.make(dir); err != nil {
				t.Fatal(err)
			}
			if got := Main([]string{Empty, dir}); got != c.want {
				t.Errorf("empty %s: exit %d, want %d", c.name, got, c.want)
			}
		})
	}
}
