// Package archive reads a workspace's archive for what it is, content a
// sandbox wrote, and writes it in the one form the provider keeps: its
// entries in a fixed order, each with only its path, type, mode, owner,
// modification time (to the second) and bytes (a symbolic link: only its
// path and target), so that the same content
// has the same SHA-256 whenever and wherever it was taken.
//
// Nothing here unpacks an archive or touches a file system but the spool a
// caller hands it: a snapshot's entries are checked and re-written, never
// extracted. What a hostile archive holds is refused or left out, never
// followed:
//
//   - a path that is absolute, climbs out with "..", is longer than
//     PATH_MAX, comes twice, or lies under a symbolic link or a file of
//     the archive: refused;
//   - a symbolic link: kept as a link, its target as written, its own
//     owner and time not kept (root's, and the epoch);
//   - a hard link: kept only to a regular file of the same archive;
//   - device files and FIFOs: left out (Dropped names them);
//   - setuid and setgid bits, extended attributes (file capabilities among
//     them), user and group names: dropped;
//   - content past Limits, or a stream that does not end: refused.
package archive

import (
	"archive/tar"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"path"
	"strings"
	"time"
)

// Limits bound what an archive may hold.
type Limits struct {
	// MaxBytes bounds the content of its regular files, all together.
	MaxBytes int64
	// MaxEntries bounds how many entries it has.
	MaxEntries int
	// Unpacker, when set, says why the unpacker a restore streams to would
	// make an entry otherwise than the archive has it ("" when it would
	// not): such an archive is refused with an *UnpackerError.
	Unpacker func(h *tar.Header) string
}

// maxPath bounds a path and a link's target, in bytes: Linux's PATH_MAX.
const maxPath = 4096

// keptModeBits are the mode bits an entry keeps: its permissions and the
// sticky bit; setuid and setgid are dropped.
const keptModeBits = 0o1777

// Root is the name of the archived directory itself in the kept form.
const Root = "."

// Summary says what was written.
type Summary struct {
	// SHA256 is the hex digest of the archive written.
	SHA256 string
	// Size is its length in bytes.
	Size int64
	// Entries is how many entries it holds.
	Entries int
}

// UnsafeError is an archive refused for an entry it holds.
type UnsafeError struct {
	Entry  string // the entry's path as the archive names it, shortened
	Reason string
}

func (e *UnsafeError) Error() string {
	return fmt.Sprintf("the archive's entry %q %s", e.Entry, e.Reason)
}

// LimitError is an archive that holds more than its Limits allow.
type LimitError struct {
	What  string // "bytes" or "entries"
	Limit int64
}

func (e *LimitError) Error() string {
	return fmt.Sprintf("the archive holds more than %d %s", e.Limit, e.What)
}

func unsafe(name, reason string) error {
	return &UnsafeError{Entry: shorten(name), Reason: reason}
}

// shorten cuts a hostile path for a message.
func shorten(name string) string {
	if len(name) > 200 {
		return name[:200] + "..."
	}
	return name
}

// entry is one entry in the kept form: its relative path (Root for the
// archived directory), and its header as it will be written.
type entry struct {
	rel    string
	hdr    tar.Header
	offset int64  // a regular file's content in the spool
	target string // a hard link's regular file, by its rel
}

// reader checks a hostile archive's entries one at a time.
type reader struct {
	ctx     context.Context
	tr      *tar.Reader
	strip   string
	lim     Limits
	seen    map[string]*entry
	parents map[string]bool // the directories the entries seen lie in
	bytes   int64
	dropped []string
}

func newReader(ctx context.Context, src io.Reader, strip string, lim Limits) *reader {
	return &reader{ctx: ctx, tr: tar.NewReader(src), strip: strip, lim: lim,
		seen: map[string]*entry{}, parents: map[string]bool{}}
}

// next returns the next entry kept, with the reader positioned at a
// regular file's content, or io.EOF.
func (r *reader) next() (*entry, error) {
	for {
		if err := r.ctx.Err(); err != nil {
			return nil, err
		}
		h, err := r.tr.Next()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil, io.EOF
			}
			return nil, fmt.Errorf("the archive cannot be read: %w", err)
		}
		if h.Typeflag == tar.TypeXGlobalHeader {
			continue
		}
		if r.lim.MaxEntries > 0 && len(r.seen)+len(r.dropped) >= r.lim.MaxEntries {
			return nil, &LimitError{What: "entries", Limit: int64(r.lim.MaxEntries)}
		}
		e, err := r.check(h)
		if err != nil {
			return nil, err
		}
		if e == nil {
			continue // left out
		}
		r.seen[e.rel] = e
		for dir := path.Dir(e.rel); e.rel != Root && !r.parents[dir]; dir = path.Dir(dir) {
			r.parents[dir] = true
			if dir == Root {
				break
			}
		}
		return e, nil
	}
}

// check turns a header into the kept entry, nil for one left out, or
// refuses it.
func (r *reader) check(h *tar.Header) (*entry, error) {
	rel, err := r.relative(h.Name)
	if err != nil {
		return nil, err
	}
	if _, dup := r.seen[rel]; dup {
		return nil, unsafe(h.Name, "comes twice")
	}
	if err := r.checkParents(h.Name, rel); err != nil {
		return nil, err
	}
	if r.parents[rel] && h.Typeflag != tar.TypeDir {
		return nil, unsafe(h.Name, "would replace a directory that earlier entries lie in")
	}
	if h.Uid < 0 || h.Gid < 0 {
		return nil, unsafe(h.Name, "has a negative owner")
	}
	kept := tar.Header{
		Mode: h.Mode & keptModeBits, Uid: h.Uid, Gid: h.Gid,
		ModTime: h.ModTime.Truncate(time.Second).UTC(),
	}
	e := &entry{rel: rel}
	keep, err := r.checkType(h, e, &kept)
	if err != nil || !keep {
		return nil, err
	}
	if r.lim.Unpacker != nil {
		if why := r.lim.Unpacker(&kept); why != "" {
			return nil, &UnpackerError{Entry: shorten(h.Name), Reason: why}
		}
	}
	e.hdr = kept
	return e, nil
}

// checkType sets what an entry of h's type keeps on kept (and a hard
// link's file on e), reports whether it is kept at all, or refuses it.
func (r *reader) checkType(h *tar.Header, e *entry, kept *tar.Header) (bool, error) {
	rel := e.rel
	switch h.Typeflag {
	case tar.TypeDir:
		kept.Typeflag = tar.TypeDir
	case tar.TypeReg, tar.TypeRegA: //nolint:staticcheck // TypeRegA is what old writers use for a file
		if rel == Root {
			return false, unsafe(h.Name, "is a file where the archived directory should be")
		}
		if h.Size < 0 {
			return false, unsafe(h.Name, "has a negative size")
		}
		if err := r.count(h.Size); err != nil {
			return false, err
		}
		kept.Typeflag, kept.Size = tar.TypeReg, h.Size
	case tar.TypeSymlink:
		if rel == Root {
			return false, unsafe(h.Name, "is a symbolic link where the archived directory should be")
		}
		if h.Linkname == "" || len(h.Linkname) > maxPath {
			return false, unsafe(h.Name, "is a symbolic link with an empty or overlong target")
		}
		// A link's own owner and time are not kept: not every engine's
		// restore can set them (busybox's tar on a cluster cannot), and
		// Linux asks neither but in sticky directories.
		kept.Typeflag, kept.Linkname, kept.ModTime = tar.TypeSymlink, h.Linkname, time.Unix(0, 0).UTC()
		kept.Uid, kept.Gid = 0, 0
	case tar.TypeLink:
		target, err := r.relative(h.Linkname)
		if err != nil {
			return false, unsafe(h.Name, "is a hard link to a path outside the archive")
		}
		t, ok := r.seen[target]
		if !ok || t.hdr.Typeflag != tar.TypeReg {
			return false, unsafe(h.Name, "is a hard link to no regular file the archive held before it")
		}
		if t.target != "" {
			target = t.target
		}
		e.target = target
		*kept = r.seen[target].hdr // a hard link is its file
	case tar.TypeChar, tar.TypeBlock, tar.TypeFifo:
		r.dropped = append(r.dropped, rel)
		return false, nil
	default:
		return false, unsafe(h.Name, fmt.Sprintf("has a type the provider does not keep (%q)", h.Typeflag))
	}
	return true, nil
}

// count adds a file's size to the bytes read so far, or refuses it past
// MaxBytes. It compares the size with what is left, so that no sum can
// wrap: a sparse file of 2^63-1 bytes is refused by its header alone.
func (r *reader) count(size int64) error {
	if r.lim.MaxBytes > 0 && size > r.lim.MaxBytes-r.bytes {
		return &LimitError{What: "bytes", Limit: r.lim.MaxBytes}
	}
	if size > math.MaxInt64-r.bytes {
		return unsafe("(its files)", "hold more than 2^63-1 bytes together")
	}
	r.bytes += size
	return nil
}

// relative is an entry's path relative to the archived directory, Root
// for the directory itself; strip is the directory's own name, which the
// engine puts in front of every path ("" for none).
func (r *reader) relative(name string) (string, error) {
	if name == "" || len(name) > maxPath {
		return "", unsafe(name, "has an empty or overlong path")
	}
	if path.IsAbs(name) {
		return "", unsafe(name, "has an absolute path")
	}
	for _, part := range strings.Split(name, "/") {
		if part == ".." {
			return "", unsafe(name, "climbs out of the archive with \"..\"")
		}
	}
	rel := path.Clean(name)
	if r.strip != "" {
		switch {
		case rel == r.strip:
			rel = Root
		case strings.HasPrefix(rel, r.strip+"/"):
			rel = strings.TrimPrefix(rel, r.strip+"/")
		default:
			return "", unsafe(name, fmt.Sprintf("lies outside the archived directory %q", r.strip))
		}
	}
	return rel, nil
}

// checkParents refuses an entry under one of the archive's symbolic links
// or files: extracted, it would be written where the link points. It
// looks only at the directories not yet known to hold an entry (parents,
// whose own parents were checked when they came), so that checking an
// entry costs the same at any depth.
func (r *reader) checkParents(name, rel string) error {
	if rel == Root {
		return nil
	}
	for dir := path.Dir(rel); dir != Root && !r.parents[dir]; dir = path.Dir(dir) {
		if p, ok := r.seen[dir]; ok && p.hdr.Typeflag != tar.TypeDir {
			return unsafe(name, fmt.Sprintf("lies under %q, which is not a directory", dir))
		}
	}
	return nil
}

// name is an entry's path as the kept form writes it: "./" for the
// directory itself, a trailing slash for every directory.
func (e *entry) name() string {
	if e.rel == Root {
		return "./"
	}
	if e.hdr.Typeflag == tar.TypeDir {
		return e.rel + "/"
	}
	return e.rel
}

// writer writes kept entries and hashes what it writes.
type writer struct {
	under    string      // the directory the entries are written under, "" for none
	portable bool        // each header in the form every unpacker reads alike (Portable)
	tw       *tar.Writer // nil: it only counts the entries (CheckEntries)
	count    *countingWriter
	entries  int
	sum      func() []byte
}

func newWriter(dst io.Writer) *writer {
	h := sha256.New()
	c := &countingWriter{w: io.MultiWriter(dst, h)}
	return &writer{tw: tar.NewWriter(c), count: c, sum: func() []byte { return h.Sum(nil) }}
}

// newCopier is a writer that does not digest what it writes, a restore's
// digest being its source's, and writes for an unpacker: Portable.
func newCopier(dst io.Writer) *writer {
	c := &countingWriter{w: dst}
	return &writer{tw: tar.NewWriter(c), count: c, sum: func() []byte { return nil }, portable: true}
}

// write writes one entry: hdr as kept, under name, content from body.
func (w *writer) write(name string, hdr tar.Header, body io.Reader) error {
	if w.tw == nil {
		w.entries++
		return nil
	}
	hdr.Name = name
	if w.portable {
		Portable(&hdr)
	}
	if w.under != "" {
		hdr.Name = w.under + "/" + strings.TrimPrefix(name, "./")
		if hdr.Typeflag == tar.TypeLink {
			hdr.Linkname = w.under + "/" + hdr.Linkname
		}
	}
	if err := w.tw.WriteHeader(&hdr); err != nil {
		return err
	}
	if hdr.Typeflag == tar.TypeReg && hdr.Size > 0 {
		if n, err := io.CopyN(w.tw, body, hdr.Size); err != nil {
			return fmt.Errorf("copying %q (%d of %d bytes): %w", name, n, hdr.Size, err)
		}
	}
	w.entries++
	return nil
}

func (w *writer) close() (Summary, error) {
	if w.tw == nil {
		return Summary{Entries: w.entries}, nil
	}
	if err := w.tw.Close(); err != nil {
		return Summary{}, err
	}
	return Summary{SHA256: hex.EncodeToString(w.sum()), Size: w.count.n, Entries: w.entries}, nil
}

type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}
