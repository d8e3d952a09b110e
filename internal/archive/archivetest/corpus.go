// Package archivetest holds the differential test's corpus (every header
// shape of an archive a sandbox can make an engine write, in every form a
// writer gives it) and what its tests share: the listing every unpacker
// is compared by, and an archive in memory that keeps only what is not
// zeros. The provider's own reader is held to the real tar programs in
// package archive, and to the engines' and the cluster helper's real
// unpacking in this package's acceptance test.
package archivetest

import (
	"archive/tar"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// BigSize is the smallest size that does not fit a tar header's octal
// size field: Go writes it as a PAX record, or in base-256 as GNU's.
const BigSize = 8 << 30

// Case is one archive of the corpus: written by Write into the
// file it is given, or refused by the provider with Refused in its error.
type Case struct {
	Name    string
	Write   func(t testing.TB, w io.Writer)
	Refused string
}

// Corpus is every header shape of the differential test, in each form a
// writer can give it (PAX records, GNU's base-256 numbers and long-name
// records, USTAR where it fits), and archives made by the real tar
// programs.
func Corpus() []Case {
	var cs []Case
	for _, f := range []struct {
		name   string
		format tar.Format
	}{{"pax", tar.FormatPAX}, {"gnu", tar.FormatGNU}, {"any", tar.FormatUnknown}} {
		cs = append(cs, shapes(f.name, f.format)...)
	}
	// Its size is a PAX record in the source (as the Docker engine's
	// archive writes one) and base-256 in the stream: one case of 8 GiB
	// (its bytes pass through the provider six times).
	cs = append(cs,
		Case{Name: "8 GiB file holding a tar of a setuid program", Write: func(t testing.TB, w io.Writer) {
			root := dirEntry("./", tar.FormatUnknown)
			corpusEntries(root, fileEntry("big", BigSize, tar.FormatUnknown, setuidTar(t), nil),
				fileEntry("zz-after", 5, tar.FormatUnknown, []byte("after"), nil))(t, w)
		}},
		Case{Name: "global header", Write: corpusEntries(
			dirEntry("./", tar.FormatPAX),
			hdr{Header: tar.Header{Typeflag: tar.TypeXGlobalHeader, Name: "global",
				PAXRecords: map[string]string{"path": "evil", "uid": "0"}, Format: tar.FormatPAX}},
			fileEntry("a", 3, tar.FormatPAX, []byte("abc"), nil))},
		Case{Name: "bytes past int64", Refused: "more than", Write: corpusEntries(
			dirEntry("./", tar.FormatPAX),
			fileEntry("one", 1, tar.FormatPAX, []byte("x"), nil),
			fileEntry("huge", math.MaxInt64, tar.FormatPAX, nil, nil))},
		Case{Name: "GNU tar sparse gnu", Write: realTar(gnuTar("--sparse", "--format=gnu")),
			Refused: "has a type the provider does not keep ('S')"},
		Case{Name: "GNU tar sparse posix", Write: realTar(gnuTar("--sparse", "--format=posix"))},
		Case{Name: "GNU tar owners and times", Write: realTar(gnuTar("--format=gnu", "--owner=3000000",
			"--group=1000000000", "--mtime=@-100000"))},
		Case{Name: "GNU tar posix owners and times", Write: realTar(gnuTar("--format=posix", "--owner=2147483653",
			"--group=3000000", "--mtime=@17179869184"))},
		Case{Name: "busybox tar", Write: realTar(func(dir string) []string {
			return []string{"busybox", "tar", "-cf", "-", "-C", dir, "."}
		})},
	)
	return cs
}

// shapes are the header shapes, each written in format f.
func shapes(name string, f tar.Format) []Case {
	long := strings.Repeat("n", 150)
	deep := strings.Repeat("d/", 60) + strings.Repeat("x", 80) // 200 bytes, past USTAR's prefix
	owner := func(uid, gid int) func(*tar.Header) { return func(h *tar.Header) { h.Uid, h.Gid = uid, gid } }
	one := int64(1)
	past31 := int(one << 31) // not a constant: on a 32-bit build, which runs no corpus, it wraps
	at := func(t time.Time) func(*tar.Header) { return func(h *tar.Header) { h.ModTime = t } }
	mode := func(m int64) func(*tar.Header) { return func(h *tar.Header) { h.Mode = m } }
	root := dirEntry("./", f)
	longNames := append([]hdr{root,
		fileEntry(long, 1, f, []byte("l"), nil),
		fileEntry(strings.Repeat("m", 100), 1, f, []byte("m"), nil)},
		parents(deep, f)...)
	longNames = append(longNames,
		fileEntry(deep, 2, f, []byte("dd"), nil),
		hdr{Header: tar.Header{Name: "link-long", Typeflag: tar.TypeSymlink, Linkname: strings.Repeat("t/", 150),
			ModTime: Time, Mode: 0o777, Format: f}},
		hdr{Header: tar.Header{Name: "hard", Typeflag: tar.TypeLink, Linkname: long, ModTime: Time, Format: f}},
		fileEntry("with space and ünï", 1, f, []byte("s"), nil))
	return []Case{
		{Name: name + " owners past 2^21 and 2^31", Write: corpusEntries(root,
			fileEntry("octal-max", 0, f, nil, owner(1<<21-1, 1<<21-1)),
			fileEntry("past-octal", 0, f, nil, owner(3000000, 1<<21)),
			fileEntry("past-int31", 0, f, nil, owner(past31+5, past31)),
			fileEntry("openshift", 0, f, nil, owner(1000000000, 1000000000)))},
		{Name: name + " long names and link targets", Write: corpusEntries(longNames...)},
		{Name: name + " a directory the archive does not hold", Write: corpusEntries(root,
			fileEntry("implied/file", 1, f, []byte("i"), nil)),
			Refused: `lies in "implied", which the archive does not hold as a directory`},
		{Name: name + " times before 1970", Write: corpusEntries(root,
			fileEntry("before-1970", 0, f, nil, at(time.Unix(-86400*400, 0))),
			fileEntry("second-before", 0, f, nil, at(time.Unix(-1, 0))))},
		{Name: name + " times past the octal field", Write: corpusEntries(root,
			fileEntry("octal-last", 0, f, nil, at(time.Unix(1<<33-1, 0))),
			fileEntry("past-octal", 0, f, nil, at(time.Unix(1<<33, 0))))},
		{Name: name + " a time after 2262", Write: corpusEntries(root,
			fileEntry("far", 0, f, nil, at(time.Unix(1<<37, 0))))},
		{Name: name + " modes", Write: corpusEntries(root,
			hdr{Header: tar.Header{Name: "sticky/", Typeflag: tar.TypeDir, Mode: 0o1777, ModTime: Time, Format: f}},
			fileEntry("setuid", 1, f, []byte("s"), mode(0o6755)),
			fileEntry("none", 1, f, []byte("n"), mode(0)))},
	}
}

// gnuTar is GNU tar's command with flags, for realTar.
func gnuTar(flags ...string) func(dir string) []string {
	return func(dir string) []string {
		return append(append([]string{"tar"}, flags...), "-cf", "-", "-C", dir, ".")
	}
}

// realTar writes the archive a real tar program makes of a directory
// holding a sparse file (a hole with a few bytes in it), a
// symbolic link, a hard link, a FIFO, and a file under a long path.
func realTar(argv func(dir string) []string) func(t testing.TB, w io.Writer) {
	return func(t testing.TB, w io.Writer) {
		t.Helper()
		dir := t.TempDir()
		sparse, err := os.Create(filepath.Join(dir, "sparse"))
		if err == nil {
			_, err = sparse.WriteAt([]byte("data"), 1<<20)
		}
		if err == nil {
			err = sparse.Truncate(4 << 20)
		}
		if err == nil {
			err = sparse.Close()
		}
		long := filepath.Join(dir, strings.Repeat("p", 120), strings.Repeat("q", 120))
		for _, step := range []func() error{
			func() error { return os.MkdirAll(filepath.Dir(long), 0o750) },
			func() error { return os.WriteFile(long, []byte("deep"), 0o600) },
			func() error { return os.Symlink("/etc/passwd", filepath.Join(dir, "to-etc")) },
			func() error { return os.Link(long, filepath.Join(dir, "hard")) },
			func() error { return syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o600) },
		} {
			if err == nil {
				err = step()
			}
		}
		if err != nil {
			t.Fatal(err)
		}
		a := argv(dir)
		cmd := exec.Command(Program(a[0]), a[1:]...) //nolint:gosec // the test's own programs
		var stderr strings.Builder
		cmd.Stdout, cmd.Stderr = w, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("%s: %v: %s", strings.Join(a, " "), err, stderr.String())
		}
	}
}

// Line is one entry as every listing gives it: its type, its mode bits,
// owner, size, time to the second, name and link.
func Line(typ byte, mode int64, uid, gid int, size int64, mtime time.Time, name, link string) string {
	name = strings.TrimSuffix(strings.TrimPrefix(name, "./"), "/")
	if name == "" || name == "." {
		name = "."
	}
	return fmt.Sprintf("%c %04o %d:%d %d %s %q %q", typ, mode&0o7777, uid, gid, size,
		mtime.UTC().Format("2006-01-02T15:04:05"), name, strings.TrimPrefix(link, "./"))
}

// GoListing lists an archive with Go's reader, which seeks past content.
func GoListing(t testing.TB, r io.ReadSeeker) string {
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
		lines = append(lines, Line(typ, h.Mode, h.Uid, h.Gid, size, h.ModTime, h.Name, h.Linkname))
	}
	return strings.Join(lines, "\n")
}

// Program finds a program on PATH or where Debian puts it: `make test`
// runs with Go's directory alone on PATH.
func Program(name string) string {
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

// AllZero reports whether p holds only zero bytes.
func AllZero(p []byte) bool {
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

// Sparse is an archive in memory that keeps only its chunks that are
// not all zeros: the corpus's source and the kept form of 8 GiB cost
// neither memory nor a file's holes read back through the kernel.
type Sparse struct {
	chunks map[int64][]byte // by index, each sparseChunk long
	size   int64
	off    int64 // where Read reads next
}

const sparseChunk = 64 << 10

func (m *Sparse) Write(p []byte) (int, error) {
	if m.chunks == nil {
		m.chunks = map[int64][]byte{}
	}
	n := len(p)
	for len(p) > 0 {
		i, at := m.size/sparseChunk, int(m.size%sparseChunk)
		k := min(len(p), sparseChunk-at)
		if c, ok := m.chunks[i]; ok || !AllZero(p[:k]) {
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

func (m *Sparse) ReadAt(p []byte, off int64) (int, error) {
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

func (m *Sparse) Read(p []byte) (int, error) {
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

func (m *Sparse) Seek(offset int64, whence int) (int64, error) {
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

// Time is the corpus entries' time, unless a case says another.
var Time = time.Date(2026, 12, 4, 10, 0, 0, 0, time.UTC)

// parents are the directories a path lies in, outermost first, as an
// archive of a directory holds them.
func parents(name string, f tar.Format) []hdr {
	var out []hdr
	for i, c := range name {
		if c == '/' {
			out = append(out, dirEntry(name[:i+1], f))
		}
	}
	return out
}

func dirEntry(name string, f tar.Format) hdr {
	return hdr{Header: tar.Header{Name: name, Typeflag: tar.TypeDir, Mode: 0o755, ModTime: Time, Format: f}}
}

func fileEntry(name string, size int64, f tar.Format, body []byte, edit func(*tar.Header)) hdr {
	h := hdr{Header: tar.Header{Name: name, Typeflag: tar.TypeReg, Mode: 0o644, Size: size, ModTime: Time,
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
	_ = tw.WriteHeader(&tar.Header{Name: "evil", Typeflag: tar.TypeReg, Mode: 0o4755, Size: 4, ModTime: Time})
	_, _ = tw.Write([]byte("#!/x"))
	_ = tw.Flush() // no end: the reader goes on with the next real header's bytes
	return b.Bytes()
}
