package archive

import (
	"archive/tar"
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

// corpus is every header shape of the differential test, in each form a
// writer can give it (PAX records, GNU's base-256 numbers and long-name
// records, USTAR where it fits), and archives made by the real tar
// programs.
func corpus() []corpusCase {
	var cs []corpusCase
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
		corpusCase{name: "8 GiB file holding a tar of a setuid program", write: func(t testing.TB, w io.Writer) {
			root := dirEntry("./", tar.FormatUnknown)
			corpusEntries(root, fileEntry("big", bigSize, tar.FormatUnknown, setuidTar(t), nil),
				fileEntry("zz-after", 5, tar.FormatUnknown, []byte("after"), nil))(t, w)
		}},
		corpusCase{name: "global header", write: corpusEntries(
			dirEntry("./", tar.FormatPAX),
			hdr{Header: tar.Header{Typeflag: tar.TypeXGlobalHeader, Name: "global",
				PAXRecords: map[string]string{"path": "evil", "uid": "0"}, Format: tar.FormatPAX}},
			fileEntry("a", 3, tar.FormatPAX, []byte("abc"), nil))},
		corpusCase{name: "bytes past int64", refused: "more than", write: corpusEntries(
			dirEntry("./", tar.FormatPAX),
			fileEntry("one", 1, tar.FormatPAX, []byte("x"), nil),
			fileEntry("huge", math.MaxInt64, tar.FormatPAX, nil, nil))},
		corpusCase{name: "GNU tar sparse gnu", write: realTar(gnuTar("--sparse", "--format=gnu")),
			refused: "has a type the provider does not keep ('S')"},
		corpusCase{name: "GNU tar sparse posix", write: realTar(gnuTar("--sparse", "--format=posix"))},
		corpusCase{name: "GNU tar owners and times", write: realTar(gnuTar("--format=gnu", "--owner=3000000",
			"--group=1000000000", "--mtime=@-100000"))},
		corpusCase{name: "GNU tar posix owners and times", write: realTar(gnuTar("--format=posix", "--owner=2147483653",
			"--group=3000000", "--mtime=@17179869184"))},
		corpusCase{name: "busybox tar", write: realTar(func(dir string) []string {
			return []string{"busybox", "tar", "-cf", "-", "-C", dir, "."}
		})},
	)
	return cs
}

// shapes are the header shapes, each written in format f.
func shapes(name string, f tar.Format) []corpusCase {
	long := strings.Repeat("n", 150)
	deep := strings.Repeat("d/", 60) + strings.Repeat("x", 80) // 200 bytes, past USTAR's prefix
	owner := func(uid, gid int) func(*tar.Header) { return func(h *tar.Header) { h.Uid, h.Gid = uid, gid } }
	at := func(t time.Time) func(*tar.Header) { return func(h *tar.Header) { h.ModTime = t } }
	mode := func(m int64) func(*tar.Header) { return func(h *tar.Header) { h.Mode = m } }
	root := dirEntry("./", f)
	return []corpusCase{
		{name: name + " owners past 2^21 and 2^31", write: corpusEntries(root,
			fileEntry("octal-max", 0, f, nil, owner(1<<21-1, 1<<21-1)),
			fileEntry("past-octal", 0, f, nil, owner(3000000, 1<<21)),
			fileEntry("past-int31", 0, f, nil, owner(1<<31+5, 1<<31)),
			fileEntry("openshift", 0, f, nil, owner(1000000000, 1000000000)))},
		{name: name + " long names and link targets", write: corpusEntries(root,
			fileEntry(long, 1, f, []byte("l"), nil),
			fileEntry(strings.Repeat("m", 100), 1, f, []byte("m"), nil),
			dirEntry(strings.TrimSuffix(deep[:strings.LastIndex(deep, "/")+1], "/")+"/", f),
			fileEntry(deep, 2, f, []byte("dd"), nil),
			hdr{Header: tar.Header{Name: "link-long", Typeflag: tar.TypeSymlink, Linkname: strings.Repeat("t/", 150),
				ModTime: corpusTime, Mode: 0o777, Format: f}},
			hdr{Header: tar.Header{Name: "hard", Typeflag: tar.TypeLink, Linkname: long, ModTime: corpusTime, Format: f}},
			fileEntry("with space and ünï", 1, f, []byte("s"), nil))},
		{name: name + " times before 1970 and far ahead", write: corpusEntries(root,
			fileEntry("before-1970", 0, f, nil, at(time.Unix(-86400*400, 0))),
			fileEntry("second-before", 0, f, nil, at(time.Unix(-1, 0))),
			fileEntry("octal-last", 0, f, nil, at(time.Unix(1<<33-1, 0))),
			fileEntry("past-octal", 0, f, nil, at(time.Unix(1<<33, 0))),
			fileEntry("far", 0, f, nil, at(time.Unix(1<<37, 0))))},
		{name: name + " modes", write: corpusEntries(root,
			hdr{Header: tar.Header{Name: "sticky/", Typeflag: tar.TypeDir, Mode: 0o1777, ModTime: corpusTime, Format: f}},
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
		cmd := exec.Command(program(a[0]), a[1:]...) //nolint:gosec // the test's own programs
		var stderr strings.Builder
		cmd.Stdout, cmd.Stderr = w, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("%s: %v: %s", strings.Join(a, " "), err, stderr.String())
		}
	}
}
