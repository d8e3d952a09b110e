package archive

import (
	"archive/tar"
	"bytes"
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

// bigSize is the smallest size that does not fit a tar header's octal
// size field: Go writes it as a PAX record, or in base-256 as GNU's.
const bigSize = 8 << 30

// corpusCase is one archive of the corpus: written by write into the
// file it is given, or refused by the provider with refused in its error.
type corpusCase struct {
	name    string
	write   func(t testing.TB, w io.Writer)
	refused string
}

func TestDifferentialUnpackersReadWhatTheProviderChecked(t *testing.T) {
	tars := unpackers(t)
	for _, c := range corpus() {
		t.Run(c.name, func(t *testing.T) {
			src := &memSparse{}
			c.write(t, src)
			stream := filepath.Join(t.TempDir(), "stream.tar")
			kept, err := throughProvider(src, stream)
			if c.refused != "" {
				if err == nil || !strings.Contains(err.Error(), c.refused) {
					t.Fatalf("want the archive refused with %q, got %v", c.refused, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			kept.off = 0
			checked := goListing(t, kept)
			f, err := os.Open(stream)
			if err != nil {
				t.Fatal(err)
			}
			defer func() { _ = f.Close() }()
			if got := goListing(t, f); got != checked {
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
func throughProvider(src *memSparse, stream string) (*memSparse, error) {
	ctx := context.Background()
	lim := Limits{MaxBytes: 1 << 40, MaxEntries: 1000}
	kept := &memSparse{}
	if _, _, err := Snapshot(ctx, kept, src, "", lim, &memSparse{}); err != nil {
		return nil, err
	}
	dst := &sparseFile{path: stream}
	_, err := Restore(ctx, dst, kept, "", lim)
	return kept, errors.Join(err, dst.close())
}

// line is one entry as every listing gives it: its type, its mode bits,
// owner, size, time to the second, name and link.
func line(typ byte, mode int64, uid, gid int, size int64, mtime time.Time, name, link string) string {
	name = strings.TrimSuffix(strings.TrimPrefix(name, "./"), "/")
	if name == "" || name == "." {
		name = "."
	}
	return fmt.Sprintf("%c %04o %d:%d %d %s %q %q", typ, mode&0o7777, uid, gid, size,
		mtime.UTC().Format("2006-01-02T15:04:05"), name, strings.TrimPrefix(link, "./"))
}

// goListing lists an archive with Go's reader, which seeks past content.
func goListing(t *testing.T, r io.ReadSeeker) string {
	t.Helper()
	tr := tar.NewReader(r)
	var lines []string
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("Go's reader: %v", err)
		}
		typ := map[byte]byte{tar.TypeReg: '-', tar.TypeDir: 'd', tar.TypeSymlink: 'l', tar.TypeLink: 'h'}[h.Typeflag]
		if typ == 0 {
			typ = '?'
		}
		size := h.Size
		if h.Typeflag == tar.TypeLink {
			size = 0
		}
		lines = append(lines, line(typ, h.Mode, h.Uid, h.Gid, size, h.ModTime, h.Name, h.Linkname))
	}
	return strings.Join(lines, "\n")
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
		if progs[prog] = program(prog); progs[prog] == "" {
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

// program finds a program on PATH or where Debian puts it: `make test`
// runs with Go's directory alone on PATH.
func program(name string) string {
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	for _, dir := range []string{"/usr/bin", "/bin"} {
		if info, err := os.Stat(filepath.Join(dir, name)); err == nil && info.Mode()&0o111 != 0 {
			return filepath.Join(dir, name)
		}
	}
	return ""
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
	return line(typ, mode, uid, gid, size, mtime, name, link)
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
		if !allZero(chunk) {
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

func allZero(p []byte) bool {
	for len(p) >= 8 {
		if p[0]|p[1]|p[2]|p[3]|p[4]|p[5]|p[6]|p[7] != 0 {
			return false
		}
		p = p[8:]
	}
	for _, b := range p {
		if b != 0 {
			return false
		}
	}
	return true
}

// memSparse is an archive in memory that keeps only its chunks that are
// not all zeros: the corpus's source and the kept form of 8 GiB cost
// neither memory nor a file's holes read back through the kernel.
type memSparse struct {
	chunks map[int64][]byte // by index, each sparseChunk long
	size   int64
	off    int64 // where Read reads next
}

const sparseChunk = 64 << 10

func (m *memSparse) Write(p []byte) (int, error) {
	if m.chunks == nil {
		m.chunks = map[int64][]byte{}
	}
	n := len(p)
	for len(p) > 0 {
		i, at := m.size/sparseChunk, int(m.size%sparseChunk)
		k := min(len(p), sparseChunk-at)
		if c, ok := m.chunks[i]; ok || !allZero(p[:k]) {
			if !ok {
				c = make([]byte, sparseChunk)
				m.chunks[i] = c
			}
			copy(c[at:], p[:k])
		}
		m.size += int64(k)
		p = p[k:]
	}
	return n, nil
}

func (m *memSparse) ReadAt(p []byte, off int64) (int, error) {
	n := 0
	for n < len(p) && off < m.size {
		i, at := off/sparseChunk, int(off%sparseChunk)
		k := int(min(int64(min(len(p)-n, sparseChunk-at)), m.size-off))
		if c, ok := m.chunks[i]; ok {
			copy(p[n:n+k], c[at:])
		} else {
			clear(p[n : n+k])
		}
		n, off = n+k, off+int64(k)
	}
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

func (m *memSparse) Read(p []byte) (int, error) {
	if m.off >= m.size {
		return 0, io.EOF
	}
	n, err := m.ReadAt(p, m.off)
	m.off += int64(n)
	if errors.Is(err, io.EOF) && n > 0 {
		err = nil
	}
	return n, err
}

func (m *memSparse) Seek(offset int64, whence int) (int64, error) {
	switch whence {
	case io.SeekCurrent:
		offset += m.off
	case io.SeekEnd:
		offset += m.size
	}
	m.off = offset
	return offset, nil
}

// zeros reads as endless zero bytes.
type zeros struct{}

func (zeros) Read(p []byte) (int, error) { clear(p); return len(p), nil }

// corpusEntries writes a corpus archive: each header as given (its format
// included), a regular file's content body and then zeros to its size.
func corpusEntries(hs ...hdr) func(t testing.TB, w io.Writer) {
	return func(t testing.TB, w io.Writer) {
		t.Helper()
		tw := tar.NewWriter(w)
		for _, h := range hs {
			if err := tw.WriteHeader(&h.Header); err != nil {
				t.Fatalf("writing %q: %v", h.Name, err)
			}
			if h.Size > 1<<50 {
				return // its header alone: no reader may get further
			}
			if h.Typeflag == tar.TypeReg {
				body := io.MultiReader(bytes.NewReader(h.body), zeros{})
				if _, err := io.CopyN(tw, body, h.Size); err != nil {
					t.Fatal(err)
				}
			}
		}
		if err := tw.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// hdr is a corpus entry: its header, and the start of its content.
type hdr struct {
	tar.Header
	body []byte
}

var corpusTime = time.Date(2026, 12, 4, 10, 0, 0, 0, time.UTC)

func dirEntry(name string, f tar.Format) hdr {
	return hdr{Header: tar.Header{Name: name, Typeflag: tar.TypeDir, Mode: 0o755, ModTime: corpusTime, Format: f}}
}

func fileEntry(name string, size int64, f tar.Format, body []byte, edit func(*tar.Header)) hdr {
	h := hdr{Header: tar.Header{Name: name, Typeflag: tar.TypeReg, Mode: 0o644, Size: size, ModTime: corpusTime,
		Uid: 1000, Gid: 1000, Format: f}, body: body}
	if edit != nil {
		edit(&h.Header)
	}
	return h
}

// setuidTar is a tar of a setuid-root program: what a hostile file's
// content holds, for a reader that takes content for headers.
func setuidTar(t testing.TB) []byte {
	t.Helper()
	var b bytes.Buffer
	tw := tar.NewWriter(&b)
	_ = tw.WriteHeader(&tar.Header{Name: "evil", Typeflag: tar.TypeReg, Mode: 0o4755, Size: 4, ModTime: corpusTime})
	_, _ = tw.Write([]byte("#!/x"))
	_ = tw.Flush() // no end: the reader goes on with the next real header's bytes
	return b.Bytes()
}
