package archive

import (
	"archive/tar"
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"
	"time"
)

// file is one entry of a test archive.
type file struct {
	name, body, link string
	typ              byte
	mode             int64
	mutate           func(*tar.Header)
}

var when = time.Date(2026, 12, 3, 10, 0, 0, 0, time.UTC)

// tarOf writes the entries as an engine's archive endpoint would.
func tarOf(t *testing.T, files ...file) []byte {
	t.Helper()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, f := range files {
		h := &tar.Header{Name: f.name, Typeflag: f.typ, Mode: f.mode, Linkname: f.link, Size: int64(len(f.body)),
			ModTime: when, Uid: 1000, Gid: 1000, Uname: "agent", Gname: "agent"}
		if h.Typeflag == 0 {
			h.Typeflag = tar.TypeReg
		}
		if h.Typeflag != tar.TypeReg {
			h.Size = 0
		}
		if h.Mode == 0 {
			h.Mode = 0o644
		}
		if f.mutate != nil {
			f.mutate(h)
		}
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if h.Typeflag == tar.TypeReg {
			_, _ = tw.Write([]byte(f.body))
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func dir(name string) file { return file{name: name, typ: tar.TypeDir, mode: 0o755} }

var lim = Limits{MaxBytes: 1 << 20, MaxEntries: 100}

func snapshot(t *testing.T, archive []byte, l Limits) (Summary, []string, []byte, error) {
	t.Helper()
	spool, err := os.CreateTemp(t.TempDir(), "spool")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = spool.Close() }()
	var out bytes.Buffer
	s, dropped, err := Snapshot(context.Background(), &out, bytes.NewReader(archive), "vol", l, spool)
	return s, dropped, out.Bytes(), err
}

// entries lists an archive's entries as "name type mode uid:gid link".
func entries(t *testing.T, archive []byte) []string {
	t.Helper()
	var out []string
	tr := tar.NewReader(bytes.NewReader(archive))
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(tr)
		line := fmt.Sprintf("%s %c %04o %s %s", h.Name, h.Typeflag, h.Mode, h.Linkname, body)
		if h.Uname != "" || h.Gname != "" || len(h.PAXRecords) > 0 || h.ModTime.Nanosecond() != 0 {
			t.Errorf("%s keeps names, records or sub-second times: %+v", h.Name, h)
		}
		out = append(out, strings.TrimSpace(line))
	}
}

// The same content gives the same archive and digest whatever order the
// engine walked it in, and whatever it says beside the content: names of
// owners, access times, extended attributes, sub-second times.
func TestSnapshotIsTheSameForTheSameContent(t *testing.T) {
	a := tarOf(t, dir("vol/"), dir("vol/a/"), file{name: "vol/a/x", body: "x"}, file{name: "vol/a.txt", body: "t"},
		file{name: "vol/b", link: "a/x", typ: tar.TypeSymlink, mode: 0o777})
	b := tarOf(t, dir("vol"), file{name: "vol/a.txt", body: "t", mutate: func(h *tar.Header) {
		h.Uname, h.AccessTime, h.Format = "someone", when.Add(time.Hour), tar.FormatPAX
		h.ModTime = when.Add(300 * time.Millisecond)
		h.PAXRecords = map[string]string{"SCHILY.xattr.security.capability": "\x01"}
	}}, file{name: "vol/b", link: "a/x", typ: tar.TypeSymlink, mode: 0o777}, dir("vol/a"),
		file{name: "vol/a/x", body: "x"})
	sa, _, outA, err := snapshot(t, a, lim)
	if err != nil {
		t.Fatal(err)
	}
	sb, _, outB, err := snapshot(t, b, lim)
	if err != nil {
		t.Fatal(err)
	}
	if sa != sb || !bytes.Equal(outA, outB) {
		t.Errorf("the same content gave %+v and %+v", sa, sb)
	}
	want := []string{"./ 5 0755", "a/ 5 0755", "a/x 0 0644  x", "a.txt 0 0644  t", "b 2 0777 a/x"}
	if got := entries(t, outA); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("entries\n  %q\nwant\n  %q", got, want)
	}
	if sa.Entries != 5 || sa.Size != int64(len(outA)) || len(sa.SHA256) != 64 {
		t.Errorf("summary %+v", sa)
	}
	// A different byte, a different mode or owner: a different digest.
	for _, changed := range [][]byte{
		tarOf(t, dir("vol/"), dir("vol/a/"), file{name: "vol/a/x", body: "y"}, file{name: "vol/a.txt", body: "t"},
			file{name: "vol/b", link: "a/x", typ: tar.TypeSymlink, mode: 0o777}),
		tarOf(t, dir("vol/"), dir("vol/a/"), file{name: "vol/a/x", body: "x", mode: 0o600}, file{name: "vol/a.txt", body: "t"},
			file{name: "vol/b", link: "a/x", typ: tar.TypeSymlink, mode: 0o777}),
		tarOf(t, dir("vol/"), dir("vol/a/"), file{name: "vol/a/x", body: "x", mutate: func(h *tar.Header) { h.Uid = 0 }},
			file{name: "vol/a.txt", body: "t"}, file{name: "vol/b", link: "a/x", typ: tar.TypeSymlink, mode: 0o777}),
	} {
		if s, _, _, err := snapshot(t, changed, lim); err != nil || s.SHA256 == sa.SHA256 {
			t.Errorf("changed content: %+v, %v", s, err)
		}
	}
	// Restoring the kept form writes the same entries, each header in the
	// form every unpacker reads alike (the differential test), and gives
	// the kept form's own digest.
	var again bytes.Buffer
	if s, err := Restore(context.Background(), &again, bytes.NewReader(outA), "", lim); err != nil || s != sa ||
		strings.Join(entries(t, again.Bytes()), "|") != strings.Join(want, "|") {
		t.Errorf("restore: %+v, %v", s, err)
	}
}

// What a sandbox could write to break out of its volume, or to hand a
// restore privileges, is refused or left out.
func TestSnapshotOfHostileContent(t *testing.T) {
	root := dir("vol/")
	for _, c := range []struct {
		name  string
		files []file
		limit Limits
		want  string // in the error; "" for none
	}{
		{"climbs out", []file{root, {name: "vol/../../etc/passwd", body: "x"}}, lim, `climbs out`},
		{"climbs out and back", []file{root, {name: "vol/a/../b", body: "x"}}, lim, `climbs out`},
		{"absolute", []file{root, {name: "/etc/passwd", body: "x"}}, lim, "absolute"},
		{"outside the directory", []file{root, {name: "other/x", body: "x"}}, lim, `outside the archived directory "vol"`},
		{"twice", []file{root, {name: "vol/x", body: "a"}, {name: "vol/x", body: "b"}}, lim, "comes twice"},
		{"under a symbolic link", []file{root, {name: "vol/l", link: "/etc", typ: tar.TypeSymlink},
			{name: "vol/l/passwd", body: "x"}}, lim, `lies under "l", which is not a directory`},
		{"under a file", []file{root, {name: "vol/f", body: "x"}, {name: "vol/f/g", body: "x"}}, lim, "not a directory"},
		{"a link over a directory already filled", []file{root, dir("vol/d"), {name: "vol/d/x", body: "x"},
			{name: "vol/d", link: "/etc", typ: tar.TypeSymlink}}, lim, "comes twice"},
		{"a link where a directory's entries lie", []file{root, {name: "vol/d/x", body: "x"},
			{name: "vol/d", link: "/etc", typ: tar.TypeSymlink}}, lim, "would replace a directory"},
		{"hard link out", []file{root, {name: "vol/h", link: "/etc/shadow", typ: tar.TypeLink}}, lim, "outside the archive"},
		{"hard link up", []file{root, {name: "vol/h", link: "vol/../../etc/shadow", typ: tar.TypeLink}}, lim, "outside the archive"},
		{"hard link to nothing held", []file{root, {name: "vol/h", link: "vol/later", typ: tar.TypeLink},
			{name: "vol/later", body: "x"}}, lim, "no regular file"},
		{"hard link to a directory", []file{root, dir("vol/d"), {name: "vol/h", link: "vol/d", typ: tar.TypeLink}}, lim,
			"no regular file"},
		{"overlong name", []file{root, {name: "vol/" + strings.Repeat("n", maxPath), body: "x"}}, lim, "overlong path"},
		{"overlong link", []file{root, {name: "vol/l", link: strings.Repeat("n", maxPath+1), typ: tar.TypeSymlink}}, lim,
			"overlong target"},
		{"too many bytes", []file{root, {name: "vol/a", body: "12345"}, {name: "vol/b", body: "123456"}},
			Limits{MaxBytes: 10}, "more than 10 bytes"},
		{"too many entries", []file{root, {name: "vol/a"}, {name: "vol/b"}, {name: "vol/c"}}, Limits{MaxEntries: 3},
			"more than 3 entries"},
		{"the directory missing", []file{{name: "vol/a", body: "x"}}, lim, "does not hold the archived directory"},
		{"the directory is a link", []file{{name: "vol", link: "/", typ: tar.TypeSymlink}}, lim, "symbolic link where"},
		{"a contiguous file", []file{root, {name: "vol/s", typ: tar.TypeCont}}, lim, "type the provider does not keep"},
		{"a negative owner", []file{root, {name: "vol/a", mutate: func(h *tar.Header) { h.Uid = -1 }}}, lim, "negative owner"},
	} {
		t.Run(c.name, func(t *testing.T) {
			archive := tarOf(t, c.files...)
			_, _, _, err := snapshot(t, archive, c.limit)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want one saying %q", err, c.want)
			}
			var unsafeErr *UnsafeError
			var limitErr *LimitError
			if !errors.As(err, &unsafeErr) && !errors.As(err, &limitErr) {
				t.Errorf("error %T is neither unsafe nor over a limit", err)
			}
		})
	}
}

// Device files and FIFOs are left out and named; setuid and setgid bits
// dropped; a symbolic link is kept as written, wherever it points; hard
// links are one file and links to it, under the name that comes first.
func TestSnapshotKeepsOnlyWhatIsSafe(t *testing.T) {
	archive := tarOf(t, dir("vol/"),
		file{name: "vol/null", typ: tar.TypeChar, mutate: func(h *tar.Header) { h.Devmajor, h.Devminor = 1, 3 }},
		file{name: "vol/sda", typ: tar.TypeBlock}, file{name: "vol/pipe", typ: tar.TypeFifo},
		file{name: "vol/su", body: "#!", mode: 0o6755}, dir("vol/tmp"),
		file{name: "vol/tmp", typ: tar.TypeDir, mode: 0o1777, mutate: func(h *tar.Header) { h.Name = "vol/sticky/" }},
		file{name: "vol/out", link: "../../../etc/shadow", typ: tar.TypeSymlink, mode: 0o777},
		file{name: "vol/z", body: "same"}, file{name: "vol/a", link: "vol/z", typ: tar.TypeLink},
		file{name: "vol/m", link: "vol/a", typ: tar.TypeLink})
	s, dropped, out, err := snapshot(t, archive, lim)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(dropped, ",") != "null,sda,pipe" {
		t.Errorf("dropped %q", dropped)
	}
	want := []string{"./ 5 0755", "a 0 0644  same", "m 1 0644 a", "out 2 0777 ../../../etc/shadow",
		"sticky/ 5 1777", "su 0 0755  #!", "tmp/ 5 0755", "z 1 0644 a"}
	if got := entries(t, out); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("entries\n  %q\nwant\n  %q", got, want)
	}
	if s.Entries != len(want) {
		t.Errorf("summary %+v", s)
	}
}

// A restore takes only the kept form: in its order, with nothing a
// snapshot leaves out; what it writes is checked as a snapshot is.
func TestRestoreRefusesWhatASnapshotNeverHolds(t *testing.T) {
	for _, c := range []struct {
		name  string
		files []file
		want  string
	}{
		{"out of order", []file{dir("./"), {name: "b"}, {name: "a"}}, `"a" comes after "b"`},
		{"not the directory first", []file{{name: "a"}, dir("./")}, "comes first"},
		{"a device", []file{dir("./"), {name: "null", typ: tar.TypeChar}}, "device file"},
		{"climbs out", []file{dir("./"), {name: "../x"}}, "climbs out"},
		{"under a symbolic link", []file{dir("./"), {name: "l", link: "/", typ: tar.TypeSymlink}, {name: "l/x"}},
			"not a directory"},
		{"empty", nil, "does not hold the archived directory"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var out bytes.Buffer
			_, err := Restore(context.Background(), &out, bytes.NewReader(tarOf(t, c.files...)), "", lim)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want one saying %q", err, c.want)
			}
		})
	}
	// setuid bits in an archive someone made by hand are not written.
	var out bytes.Buffer
	s, err := Restore(context.Background(), &out, bytes.NewReader(tarOf(t, dir("./"), file{name: "su", mode: 0o4755})), "", lim)
	if err != nil {
		t.Fatal(err)
	}
	if got := entries(t, out.Bytes()); len(got) != 2 || got[1] != "su 0 0755" || s.Entries != 2 {
		t.Errorf("restored %q", got)
	}
}

// A snapshot stops when it is cancelled.
func TestSnapshotStopsWhenCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	spool, _ := os.CreateTemp(t.TempDir(), "spool")
	defer func() { _ = spool.Close() }()
	_, _, err := Snapshot(ctx, io.Discard, bytes.NewReader(tarOf(t, dir("vol/"))), "vol", lim, spool)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("error %v", err)
	}
}

// An archive already in the kept form's order, as the Docker engine walks a
// directory, streams to the same bytes Snapshot writes; one out of order
// is an *OrderError, for the caller to take it again with a spool.
func TestStreamWritesWhatSnapshotWrites(t *testing.T) {
	walked := tarOf(t, dir("vol/"), dir("vol/a/"), file{name: "vol/a/x", body: "x"}, file{name: "vol/a.txt", body: "t"},
		file{name: "vol/b", link: "a/x", typ: tar.TypeSymlink, mode: 0o777}, file{name: "vol/c", link: "vol/a/x", typ: tar.TypeLink},
		file{name: "vol/p", typ: tar.TypeFifo})
	want, wantDropped, spooled, err := snapshot(t, walked, lim)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	got, dropped, err := Stream(context.Background(), &out, bytes.NewReader(walked), "vol", lim)
	if err != nil || got != want || !bytes.Equal(out.Bytes(), spooled) || strings.Join(dropped, ",") != strings.Join(wantDropped, ",") {
		t.Errorf("stream %+v %v %v, snapshot %+v %v", got, dropped, err, want, wantDropped)
	}
	unordered := tarOf(t, dir("vol/"), file{name: "vol/b", body: "b"}, file{name: "vol/a", body: "a"})
	_, _, err = Stream(context.Background(), io.Discard, bytes.NewReader(unordered), "vol", lim)
	var order *OrderError
	if !errors.As(err, &order) || order.Entry != "a" || order.After != "b" {
		t.Errorf("error %v, want an *OrderError for a after b", err)
	}
	// The hostile checks hold on the way through.
	hostile := tarOf(t, dir("vol/"), file{name: "vol/l", link: "/etc", typ: tar.TypeSymlink}, file{name: "vol/l/x", body: "x"})
	if _, _, err := Stream(context.Background(), io.Discard, bytes.NewReader(hostile), "vol", lim); err == nil ||
		!strings.Contains(err.Error(), "not a directory") {
		t.Errorf("error %v", err)
	}
}

// A restore writes the archive under the directory the engine's helper
// mounts the volume at, hard links included, and reports the digest of the
// archive it read.
func TestRestoreUnderADirectory(t *testing.T) {
	in := tarOf(t, dir("./"), dir("a/"), file{name: "a/x", body: "x"},
		file{name: "b", link: "a/x", typ: tar.TypeLink}, file{name: "l", link: "/etc", typ: tar.TypeSymlink, mode: 0o777})
	var out bytes.Buffer
	s, err := Restore(context.Background(), &out, bytes.NewReader(in), "seed", lim)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"seed/ 5 0755", "seed/a/ 5 0755", "seed/a/x 0 0644  x", "seed/b 1 0644 seed/a/x",
		"seed/l 2 0777 /etc"}
	if got := entries(t, out.Bytes()); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("restored\n%q, want\n%q", got, want)
	}
	if s.Size != int64(len(in)) || s.Entries != 5 || s.SHA256 != fmt.Sprintf("%x", sha256.Sum256(in)) {
		t.Errorf("summary %+v is not the archive's", s)
	}
	// Bytes after the archive's end are refused: a snapshot has none.
	_, err = Restore(context.Background(), io.Discard, bytes.NewReader(append(in, 'x')), "seed", lim)
	if err == nil || !strings.Contains(err.Error(), "followed by bytes") {
		t.Errorf("trailing bytes: %v", err)
	}
}

// A symbolic link's own time is not kept, so that a link restored by an
// extractor that cannot set it archives the same again.
func TestSymlinkTimeIsNotKept(t *testing.T) {
	link := func(at time.Time) []byte {
		return tarOf(t, dir("vol/"), file{name: "vol/l", link: "/etc", typ: tar.TypeSymlink, mode: 0o777,
			mutate: func(h *tar.Header) { h.ModTime = at }})
	}
	a, _, _, errA := snapshot(t, link(when), lim)
	b, _, _, errB := snapshot(t, link(when.Add(time.Hour)), lim)
	if errA != nil || errB != nil || a.SHA256 != b.SHA256 {
		t.Errorf("a link's time changed the digest: %v %v, %v %v", a, errA, b, errB)
	}
}

// PortableDirectories copies the archive as it is and lists its
// directories, deepest first, which Directories writes alone.
func TestPortableDirectories(t *testing.T) {
	plain := func(h *tar.Header) { h.Uname, h.Gname = "", "" }
	d := func(name string) file { return file{name: name, typ: tar.TypeDir, mode: 0o755, mutate: plain} }
	in := tarOf(t, d("seed/"), d("seed/a/"), file{name: "seed/a/x", body: "x", mutate: plain}, d("seed/a/b/"), d("seed/c/"))
	var out, again bytes.Buffer
	dirs, err := PortableDirectories(&out, bytes.NewReader(in))
	if err == nil {
		err = Directories(&again, dirs)
	}
	if err != nil {
		t.Fatal(err)
	}
	got, want := entries(t, out.Bytes()), []string{"seed/ 5 0755", "seed/a/ 5 0755", "seed/a/x 0 0644  x",
		"seed/a/b/ 5 0755", "seed/c/ 5 0755"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("got\n%q, want\n%q", got, want)
	}
	got, want = entries(t, again.Bytes()), []string{"seed/a/b/ 5 0755", "seed/a/ 5 0755", "seed/c/ 5 0755", "seed/ 5 0755"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("the directories again: got\n%q, want\n%q", got, want)
	}
}
