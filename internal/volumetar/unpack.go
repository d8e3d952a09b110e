package volumetar

import (
	"archive/tar"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/klauspost/compress/gzip"
)

// Unpack is the argument that has the program fill a volume instead of
// reading it:
//
//	terraform-provider-sandbox Command unpack DIR NAME [gzip]
//
// reads a tar (gzip-compressed with gzip) from its standard input and
// makes its entries, which lie under NAME, in DIR: what a helper pod runs
// to fill a claim from an archive the provider checked (package archive)
// and wrote in its kept form, in place of the helper image's tar. It
// writes a file's content a megabyte at a time and leaves its runs of
// zeros as holes, so that a runtime where each system call is costly
// (gVisor's ptrace platform) fills a claim with a large or sparse file in
// a few thousand calls, not millions; the content read back is the same.
// It makes directories, regular files, symbolic links and hard links to a
// file made before, with their numeric owners, modes and times (a
// directory's time once every entry in it is made), and refuses anything
// else. It trusts no more than it must: an entry outside NAME, with ".."
// or under anything but a directory it made or found, or that exists
// already (a directory excepted), is refused, and nothing is followed. It
// fills an empty directory (Empty), never one a sandbox wrote to: what
// is there may change while it is filled.
const Unpack = "unpack"

// Empty is the argument that asks whether a directory holds nothing but
// a file system's lost+found: the program exits 0 when it does, with
// ExitNotEmpty when it holds more.
const Empty = "empty"

// unpackChunk is how much of a file the program writes, or skips as a
// hole, at once.
const unpackChunk = 1 << 20

// unpackMain runs unpack on its arguments (after Unpack).
func unpackMain(args []string) int {
	if !dirAndName(args) {
		fmt.Fprintf(os.Stderr, "usage: %s %s DIR NAME [%s]\n", Command, Unpack, Gzip)
		return exitUsage
	}
	var in io.Reader = os.Stdin
	if len(args) == 3 {
		zr, err := gzip.NewReader(os.Stdin)
		if err != nil {
			fmt.Fprintln(os.Stderr, "unpack:", err)
			return exitFailed
		}
		in = zr
	}
	err := Extract(in, args[0], args[1])
	if err == nil {
		// To the end of the stream: the archive's padding, and gzip's
		// checksum, which the reader checks there.
		_, err = io.Copy(io.Discard, in)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "unpack:", err)
		return exitFailed
	}
	return 0
}

// emptyMain answers Empty for dir, from its first two entries at most:
// lost+found and one more say enough, however many it holds.
func emptyMain(dir string) int {
	f, err := os.Open(dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, "empty:", err)
		return exitFailed
	}
	defer func() { _ = f.Close() }()
	entries, err := f.ReadDir(2)
	if err != nil && !errors.Is(err, io.EOF) {
		fmt.Fprintln(os.Stderr, "empty:", err)
		return exitFailed
	}
	for _, e := range entries {
		if e.Name() != "lost+found" || !e.IsDir() {
			return ExitNotEmpty
		}
	}
	return 0
}

// Extract makes the entries of the tar read from r, which lie under name,
// in dir (see Unpack).
func Extract(r io.Reader, dir, name string) error {
	x := extractor{dir: filepath.Clean(dir), dirs: map[string]bool{}, buf: make([]byte, unpackChunk)}
	x.dirs[x.dir] = true
	tr := tar.NewReader(r)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		if err := x.entry(tr, h, name); err != nil {
			return fmt.Errorf("entry %q: %w", h.Name, err)
		}
	}
	// Every entry is made: the directories get their times.
	for i := len(x.times) - 1; i >= 0; i-- {
		t := x.times[i]
		if err := os.Chtimes(t.path, t.at, t.at); err != nil {
			return err
		}
	}
	return nil
}

// extractor is what Extract knows of the entries it made.
type extractor struct {
	dir string
	// dirs are the directories made or found, by path: the only parents
	// an entry may have.
	dirs map[string]bool
	// times are the directories' times, set once every entry is made.
	times []dirTime
	buf   []byte
}

type dirTime struct {
	path string
	at   time.Time
}

// entry makes h, whose content tr reads.
func (x *extractor) entry(tr io.Reader, h *tar.Header, name string) error {
	target, err := x.path(h.Name, name)
	if err != nil {
		return err
	}
	if h.Typeflag != tar.TypeDir || target != x.dir {
		if err := x.parent(filepath.Dir(target)); err != nil {
			return err
		}
	}
	mode := os.FileMode(h.Mode) & os.ModePerm
	switch h.Typeflag {
	case tar.TypeDir:
		if err := os.Mkdir(target, 0o700); err != nil && !errors.Is(err, os.ErrExist) {
			return err
		}
		if fi, err := os.Lstat(target); err != nil || !fi.IsDir() {
			return errors.Join(errors.New("exists and is not a directory"), err)
		}
		x.dirs[target] = true
		if err := os.Lchown(target, h.Uid, h.Gid); err != nil {
			return err
		}
		if err := os.Chmod(target, mode|stickyOf(h.Mode)); err != nil {
			return err
		}
		x.times = append(x.times, dirTime{target, h.ModTime})
		return nil
	case tar.TypeReg:
		return x.file(tr, target, h, mode|stickyOf(h.Mode))
	case tar.TypeSymlink:
		if err := os.Symlink(h.Linkname, target); err != nil {
			return err
		}
		return os.Lchown(target, h.Uid, h.Gid)
	case tar.TypeLink:
		from, err := x.path(h.Linkname, name)
		if err != nil {
			return err
		}
		if !x.dirs[filepath.Dir(from)] {
			return errors.New("links to a file under something not a directory it made or found")
		}
		if fi, err := os.Lstat(from); err != nil || !fi.Mode().IsRegular() {
			return errors.Join(errors.New("links to no regular file made before it"), err)
		}
		return os.Link(from, target)
	}
	return fmt.Errorf("has a type the program does not make (%q)", h.Typeflag)
}

// stickyOf is the sticky bit of a tar mode, as a FileMode: the only bit
// past the permissions an entry keeps.
func stickyOf(mode int64) os.FileMode {
	if mode&0o1000 != 0 {
		return os.ModeSticky
	}
	return 0
}

// path is where the entry called entry goes: under dir, for an entry
// that lies under name (or is name itself).
func (x *extractor) path(entry, name string) (string, error) {
	clean := path.Clean(entry)
	if path.IsAbs(entry) || clean == ".." || strings.HasPrefix(clean, "../") || strings.Contains(entry, "/../") ||
		strings.HasSuffix(entry, "/..") {
		return "", errors.New("climbs out of the archive")
	}
	switch {
	case clean == name:
		return x.dir, nil
	case strings.HasPrefix(clean, name+"/"):
		return filepath.Join(x.dir, filepath.FromSlash(strings.TrimPrefix(clean, name+"/"))), nil
	}
	return "", fmt.Errorf("lies outside %q", name)
}

// parent checks that p is a directory made or found by the extractor, or
// makes it (and its own parents) as tar does for an entry whose
// directory the archive does not hold; it follows nothing.
func (x *extractor) parent(p string) error {
	if x.dirs[p] {
		return nil
	}
	if !strings.HasPrefix(p, x.dir+string(filepath.Separator)) {
		return errors.New("lies outside the directory it is unpacked in")
	}
	if err := x.parent(filepath.Dir(p)); err != nil {
		return err
	}
	if err := os.Mkdir(p, 0o755); err != nil && !errors.Is(err, os.ErrExist) {
		return err
	}
	if fi, err := os.Lstat(p); err != nil || !fi.IsDir() {
		return errors.Join(fmt.Errorf("lies under %q, which is not a directory", p), err)
	}
	x.dirs[p] = true
	return nil
}

// file makes the regular file target with h's size, read from tr, a
// chunk at a time: a chunk of zeros is skipped, left as a hole, and the
// file's size is set at its end.
func (x *extractor) file(tr io.Reader, target string, h *tar.Header, mode os.FileMode) (err error) {
	f, err := os.OpenFile(target, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600) // follows no link
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, f.Close()) }()
	var at int64
	for at < h.Size {
		n, err := io.ReadFull(tr, x.buf[:min(int64(len(x.buf)), h.Size-at)])
		if err != nil {
			return fmt.Errorf("reading its content: %w", err)
		}
		if !zeros(x.buf[:n]) {
			if _, err := f.WriteAt(x.buf[:n], at); err != nil {
				return err
			}
		}
		at += int64(n)
	}
	if err := f.Truncate(h.Size); err != nil {
		return err
	}
	if err := f.Chown(h.Uid, h.Gid); err != nil {
		return err
	}
	if err := f.Chmod(mode); err != nil { // after the owner: a change of owner may clear bits
		return err
	}
	return os.Chtimes(target, h.ModTime, h.ModTime)
}

// zeroChunk is a chunk of zeros to compare with.
var zeroChunk = make([]byte, unpackChunk)

// zeros reports whether b holds only zeros.
func zeros(b []byte) bool { return bytes.Equal(b, zeroChunk[:len(b)]) }
