package archive

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/archive/archivetest"
)

// The differential test: every archive of the corpus, each a header shape
// a sandbox can make an engine write (or write itself into a snapshot's
// file), goes through the provider as a snapshot and a restore do
// (Snapshot, then Restore's stream, which is what an unpacker receives),
// and the entries the provider checked must be exactly those that each
// real unpacker reads in the stream: busybox's tar (the cluster helper's:
// the test image is Debian's busybox-static) and GNU tar. Docker's and
// Podman's archive endpoints read with Go's archive/tar, the provider's
// own reader. Each unpacker lists the stream (tar -tv) from a seekable
// file, so that an entry of 8 GiB costs its headers, not its bytes: the
// listing and the extraction share each tar's one header parser.

func TestDifferentialUnpackersReadWhatTheProviderChecked(t *testing.T) {
	tars := unpackers(t)
	for _, c := range archivetest.Corpus() {
		t.Run(c.Name, func(t *testing.T) {
			src := &archivetest.Sparse{}
			c.Write(t, src)
			stream := filepath.Join(t.TempDir(), "stream.tar")
			kept, err := throughProvider(src, stream)
			if c.Refused != "" {
				if err == nil || !strings.Contains(err.Error(), c.Refused) {
					t.Fatalf("want the archive refused with %q, got %v", c.Refused, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			_, _ = kept.Seek(0, io.SeekStart)
			checked := archivetest.GoListing(t, kept)
			f, err := os.Open(stream)
			if err != nil {
				t.Fatal(err)
			}
			defer func() { _ = f.Close() }()
			if got := archivetest.GoListing(t, f); got != checked {
				t.Errorf("Go's reader (Docker's and Podman's endpoints) lists the stream\n%s\nnot as the provider checked it\n%s", got, checked)
			}
			for _, u := range tars {
				if got := u.list(t, stream); got != checked {
					t.Errorf("%s lists the stream\n%s\nnot as the provider checked it\n%s", u.name, got, checked)
				}
			}
		})
	}
}

// throughProvider takes the archive src as a snapshot, into the kept
// form it returns, and restores that into the file stream, which is what
// an unpacker would receive.
func throughProvider(src *archivetest.Sparse, stream string) (*archivetest.Sparse, error) {
	ctx := context.Background()
	lim := Limits{MaxBytes: 1 << 40, MaxEntries: 1000}
	kept := &archivetest.Sparse{}
	if _, _, err := Snapshot(ctx, kept, src, "", lim, &archivetest.Sparse{}); err != nil {
		return nil, err
	}
	dst := &sparseFile{path: stream}
	_, err := Restore(ctx, dst, kept, "", lim)
	return kept, errors.Join(err, dst.close())
}

// unpacker is a real tar program.
type unpacker struct {
	name string
	argv []string
	// hardLink tells a hard link's line by its type character and the
	// word between its name and target.
	hardType byte
	hardSep  string
}

// unpackers are the tar programs on this machine: busybox's and GNU's.
// Outside CI and the acceptance passes, a machine without them skips.
func unpackers(t *testing.T) []unpacker {
	t.Helper()
	var missing []string
	progs := map[string]string{}
	for _, prog := range []string{"busybox", "tar"} {
		if progs[prog] = archivetest.Program(prog); progs[prog] == "" {
			missing = append(missing, prog)
		}
	}
	if len(missing) > 0 {
		msg := fmt.Sprintf("the differential test needs %s (Debian's busybox-static and tar)", strings.Join(missing, ", "))
		if os.Getenv("CI") == "" && os.Getenv("TF_ACC") == "" {
			t.Skip(msg)
		}
		t.Fatal(msg)
	}
	return []unpacker{
		{name: "busybox tar", argv: []string{progs["busybox"], "tar", "-tvf"}, hardType: '-', hardSep: " -> "},
		{name: "GNU tar", argv: []string{progs["tar"], "--numeric-owner", "--full-time", "--quoting-style=literal", "-tvf"},
			hardType: 'h', hardSep: " link to "},
	}
}

// list runs the program's verbose listing of the archive at p, in UTC,
// and parses it.
func (u unpacker) list(t *testing.T, p string) string {
	t.Helper()
	cmd := exec.Command(u.argv[0], append(u.argv[1:], p)...) //nolint:gosec // the test's own programs
	cmd.Env = append(os.Environ(), "TZ=UTC", "LC_ALL=C")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v: %s", u.name, err, out)
	}
	var lines []string
	for _, l := range strings.Split(strings.TrimRight(string(out), "\n"), "\n") {
		lines = append(lines, u.parse(t, l))
	}
	return strings.Join(lines, "\n")
}

// parse reads one line of `tar -tv`: mode, owner, size, date, time, and
// the name with its link.
func (u unpacker) parse(t *testing.T, l string) string {
	t.Helper()
	f := strings.Fields(l)
	if len(f) < 6 {
		t.Fatalf("%s: cannot read the line %q", u.name, l)
	}
	rest := l
	for _, field := range f[:5] {
		rest = strings.TrimLeft(strings.TrimPrefix(strings.TrimLeft(rest, " "), field), " ")
	}
	typ, mode := f[0][0], modeBits(f[0][1:])
	owner := strings.SplitN(f[1], "/", 2)
	uid, err1 := strconv.Atoi(owner[0])
	gid, err2 := strconv.Atoi(owner[len(owner)-1])
	size, err3 := strconv.ParseInt(f[2], 10, 64)
	mtime, err4 := time.Parse("2006-01-02 15:04:05", f[3]+" "+f[4])
	if err := errors.Join(err1, err2, err3, err4); err != nil {
		t.Fatalf("%s: cannot read the line %q: %v", u.name, l, err)
	}
	name, link := rest, ""
	switch {
	case typ == 'l':
		name, link, _ = strings.Cut(rest, " -> ")
	case typ == u.hardType && strings.Contains(rest, u.hardSep):
		name, link, _ = strings.Cut(rest, u.hardSep)
		typ, size = 'h', 0
	}
	return archivetest.Line(typ, mode, uid, gid, size, mtime, name, link)
}

// modeBits reads "rwsr-xr-t" back into mode bits.
func modeBits(s string) int64 {
	var m int64
	for i, c := range s[:min(len(s), 9)] {
		bit := int64(1) << (8 - i)
		switch c {
		case 'r', 'w', 'x':
			m |= bit
		case 's', 't':
			m |= bit
			fallthrough
		case 'S', 'T':
			m |= map[int]int64{2: 0o4000, 5: 0o2000, 8: 0o1000}[i]
		}
	}
	return m
}

// sparseFile is a file that skips runs of zeros rather than writing them:
// the stream of 8 GiB that the tar programs list costs no disk.
type sparseFile struct {
	path string
	f    *os.File
	size int64
}

func (s *sparseFile) open() error {
	if s.f != nil {
		return nil
	}
	f, err := os.Create(s.path)
	s.f = f
	return err
}

func (s *sparseFile) Write(p []byte) (int, error) {
	if err := s.open(); err != nil {
		return 0, err
	}
	n := len(p)
	for len(p) > 0 {
		k := min(len(p), 64<<10)
		chunk := p[:k]
		if !archivetest.AllZero(chunk) {
			if _, err := s.f.WriteAt(chunk, s.size); err != nil {
				return n - len(p), err
			}
		}
		s.size += int64(k)
		p = p[k:]
	}
	return n, nil
}

func (s *sparseFile) close() error {
	if err := s.open(); err != nil {
		return err
	}
	return errors.Join(s.f.Truncate(s.size), s.f.Close())
}
