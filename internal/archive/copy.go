package archive

import (
	"archive/tar"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"path"
	"slices"
	"strings"
)

// Spool holds a snapshot's file content while its entries are put in
// order: a temporary file beside the archive.
type Spool interface {
	io.Writer
	io.ReaderAt
}

// Snapshot reads a hostile archive from src, whose paths start with strip
// (the archived directory's own name, as the engine's archive endpoint
// names it; "" for none), and writes the kept form to dst: its entries in
// the fixed order whatever order src had them in, the content of its
// files spooled to spool meanwhile (only the headers are held in memory).
// It returns what it wrote and the paths of the device files and FIFOs it
// left out.
func Snapshot(ctx context.Context, dst io.Writer, src io.Reader, strip string, lim Limits, spool Spool) (Summary, []string, error) {
	r := newReader(ctx, src, strip, lim)
	var all []*entry
	var off int64
	for {
		e, err := r.next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return Summary{}, nil, err
		}
		if e.hdr.Typeflag == tar.TypeReg && e.target == "" {
			e.offset = off
			n, err := io.CopyN(spool, r.tr, e.hdr.Size)
			off += n
			if err != nil {
				return Summary{}, nil, fmt.Errorf("spooling %q: %w", e.rel, err)
			}
		}
		all = append(all, e)
	}
	if r.seen[Root] == nil {
		// An archive of a directory holds the directory itself.
		return Summary{}, nil, unsafe(strip, "is missing: the archive does not hold the archived directory")
	}
	slices.SortFunc(all, func(a, b *entry) int {
		if before(a.rel, b.rel) {
			return -1
		}
		return 1
	})
	w := newWriter(dst)
	// A group of hard links is written as one file, under the name that
	// comes first, and links to it.
	first := map[string]string{}
	for _, e := range all {
		if err := ctx.Err(); err != nil {
			return Summary{}, nil, err
		}
		if err := r.inItsDirectory(e); err != nil {
			return Summary{}, nil, err
		}
		hdr, body := e.hdr, io.Reader(nil)
		if hdr.Typeflag == tar.TypeReg {
			file := e.rel
			if e.target != "" {
				file = e.target
			}
			if name, ok := first[file]; ok {
				hdr.Typeflag, hdr.Size, hdr.Linkname = tar.TypeLink, 0, name
			} else {
				first[file] = e.name()
				body = io.NewSectionReader(spool, r.seen[file].offset, hdr.Size)
			}
		}
		if err := w.write(e.name(), hdr, body); err != nil {
			return Summary{}, nil, err
		}
	}
	s, err := w.close()
	return s, r.dropped, err
}

// before orders two relative paths as the kept form does: the directory
// first, then a depth-first walk with each directory's entries sorted by
// their names' bytes, a slash sorting before every other byte. It
// compares in place: a sort of deep paths allocates nothing.
func before(a, b string) bool {
	if a == Root || b == Root {
		return a == Root && b != Root
	}
	for i := range min(len(a), len(b)) {
		ca, cb := a[i], b[i]
		if ca == cb {
			continue
		}
		if ca == '/' {
			ca = 0
		}
		if cb == '/' {
			cb = 0
		}
		return ca < cb
	}
	return len(a) < len(b)
}

// OrderError is an archive whose entries are not in the kept form's
// order, which Stream and Restore cannot put right without a spool.
type OrderError struct{ Entry, After string }

func (e *OrderError) Error() string {
	if e.After == "" {
		return fmt.Sprintf("the archive's entry %q comes first, where the archived directory should", e.Entry)
	}
	return fmt.Sprintf("the archive's entry %q comes after %q, out of a snapshot's order", e.Entry, e.After)
}

// Stream is Snapshot without a spool, for an engine whose archive is
// already in the kept form's order (a depth-first walk with each
// directory's entries sorted by name, as the Docker engine's archive
// endpoint writes one): it writes each entry as it reads it, and fails
// with an *OrderError at the first one out of order, when the caller
// takes the snapshot again with Snapshot.
func Stream(ctx context.Context, dst io.Writer, src io.Reader, strip string, lim Limits) (Summary, []string, error) {
	return stream(ctx, newWriter(dst), src, strip, "", lim, false)
}

// Restore reads an archive in the kept form from src and writes it to dst
// entry by entry, under the directory under ("" for none: as it is),
// checked as Snapshot checks a hostile one, with no spool: it refuses one
// whose entries are out of the fixed order, that holds what Snapshot
// leaves out, or that has bytes after its end, and writes what Snapshot
// would keep of the rest. The Summary's digest and size are src's, the
// archive's own, and its entries are those written. A caller checks the
// file's digest before calling it, and this one after: a file that
// changed in between is caught.
func Restore(ctx context.Context, dst io.Writer, src io.Reader, under string, lim Limits) (Summary, error) {
	h := sha256.New()
	in := &countingWriter{w: h}
	tee := io.TeeReader(src, in)
	s, _, err := stream(ctx, newCopier(dst), tee, "", under, lim, true)
	if err != nil {
		return Summary{}, err
	}
	if n, _ := io.CopyN(io.Discard, tee, 1); n > 0 {
		return Summary{}, unsafe("(its end)", "is followed by bytes, which a snapshot never has")
	}
	s.SHA256, s.Size = hex.EncodeToString(h.Sum(nil)), in.n
	return s, nil
}

// CheckEntries checks an archive in the kept form as Restore does, every
// entry and what follows its end, without reading the files' content: src
// seeks past it (a snapshot's file, at plan). It does not digest the
// archive, which the restore does as it streams. Under is as Restore's.
func CheckEntries(ctx context.Context, src io.ReadSeeker, under string, lim Limits) (Summary, error) {
	s, _, err := stream(ctx, &writer{under: under}, src, "", under, lim, true)
	if err != nil {
		return Summary{}, err
	}
	end, err := src.Seek(0, io.SeekCurrent)
	if err != nil {
		return Summary{}, err
	}
	if size, err := src.Seek(0, io.SeekEnd); err != nil || size != end {
		return Summary{}, errors.Join(err, unsafe("(its end)", "is followed by bytes, which a snapshot never has"))
	}
	s.Size = end
	return s, nil
}

// stream writes the kept form of an archive already in its order, under
// the directory under; strict refuses what a snapshot leaves out rather
// than leaving it out.
func stream(ctx context.Context, w *writer, src io.Reader, strip, under string, lim Limits, strict bool) (Summary, []string, error) {
	r := newReader(ctx, src, strip, lim)
	w.under = under
	prev := ""
	for {
		e, err := r.next()
		if strict && len(r.dropped) > 0 {
			return Summary{}, nil, unsafe(r.dropped[0], "is a device file or a FIFO, which a snapshot never holds")
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return Summary{}, nil, err
		}
		if (prev == "") != (e.rel == Root) || prev != "" && !before(prev, e.rel) {
			return Summary{}, nil, &OrderError{Entry: e.rel, After: prev}
		}
		prev = e.rel
		if err := r.inItsDirectory(e); err != nil {
			return Summary{}, nil, err
		}
		hdr, body := e.hdr, io.Reader(r.tr)
		if e.target != "" {
			hdr.Typeflag, hdr.Size, hdr.Linkname, body = tar.TypeLink, 0, r.seen[e.target].name(), nil
		}
		if err := w.write(e.name(), hdr, body); err != nil {
			return Summary{}, nil, err
		}
	}
	if prev == "" {
		root := strip
		if root == "" {
			root = "./"
		}
		return Summary{}, nil, unsafe(root, "is missing: the archive does not hold the archived directory")
	}
	s, err := w.close()
	return s, r.dropped, err
}

// PortableDirectories copies a tar from src to dst, each header in the
// Portable form, and returns its directories' headers, the deepest first.
// busybox's tar sets a directory's time and mode as it makes it, before
// the entries in it change the time, and makes hard links only once the
// archive has ended: a caller extracts Directories of them in a second
// archive afterwards, which sets each directory's time last. It checks
// nothing: src is an archive the provider wrote or already checked.
func PortableDirectories(dst io.Writer, src io.Reader) ([]*tar.Header, error) {
	tr, tw := tar.NewReader(src), tar.NewWriter(dst)
	var dirs []*tar.Header
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		Portable(h)
		if err := tw.WriteHeader(h); err != nil {
			return nil, err
		}
		if h.Typeflag == tar.TypeDir {
			dirs = append(dirs, h)
		} else if _, err := io.Copy(tw, tr); err != nil {
			return nil, err
		}
	}
	slices.SortStableFunc(dirs, func(a, b *tar.Header) int { return strings.Count(b.Name, "/") - strings.Count(a.Name, "/") })
	return dirs, tw.Close()
}

// Directories writes an archive of the directories' headers alone.
func Directories(dst io.Writer, dirs []*tar.Header) error {
	tw := tar.NewWriter(dst)
	for _, h := range dirs {
		if err := tw.WriteHeader(h); err != nil {
			return err
		}
	}
	return tw.Close()
}

// RootOf reads the first entry of an archive in the kept form, the
// archived directory itself, and returns its header: who owns the root of
// a volume restored from it, and its mode.
func RootOf(src io.Reader) (tar.Header, error) {
	h, err := tar.NewReader(src).Next()
	if err != nil {
		return tar.Header{}, fmt.Errorf("the archive cannot be read: %w", err)
	}
	if h.Name != "./" || h.Typeflag != tar.TypeDir {
		return tar.Header{}, unsafe(h.Name, "comes first, where the archived directory should")
	}
	return *h, nil
}

// inItsDirectory refuses an entry whose directory the archive does not
// hold (an engine's archive of a directory holds every directory in it):
// each unpacker would make that directory its own way, owned by root with
// its own mode and the time of the restore, which is not what the
// provider checked. The kept order puts a directory before what it holds.
func (r *reader) inItsDirectory(e *entry) error {
	if e.rel == Root {
		return nil
	}
	if dir, ok := r.seen[path.Dir(e.rel)]; !ok || dir.hdr.Typeflag != tar.TypeDir {
		return unsafe(e.rel, fmt.Sprintf("lies in %q, which the archive does not hold as a directory "+
			"(an unpacker would make it its own way)", path.Dir(e.rel)))
	}
	return nil
}
