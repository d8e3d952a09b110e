package snapshotresource

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
)

// The archive on the machine running Terraform. It is written to a
// temporary file beside it and renamed to its name only once whole, so an
// archive under its name is never partial; a failed or interrupted
// snapshot removes the temporary file (a process killed outright leaves a
// hidden `.NAME.partial-*`, which no state records).

// partial is an archive being written.
type partial struct {
	f       *os.File
	w       *bufio.Writer
	final   string
	spool   *os.File
	written int64 // bytes handed to the file
	flushed int64 // bytes whose writeback was started
}

// writebackEvery is how many bytes are written before their writeback to
// disk is started, so that the sync that makes the archive whole waits
// for little.
const writebackEvery = 64 << 20

// newPartial starts the archive of the volume in dir, made when missing.
func newPartial(dir, volume string) (*partial, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	name := fmt.Sprintf("%s-%s.tar", volume, engine.NewCreateToken()[:12])
	f, err := os.CreateTemp(dir, "."+name+".partial-*") // mode 0600
	if err != nil {
		return nil, err
	}
	return &partial{f: f, w: bufio.NewWriterSize(f, 1<<20), final: filepath.Join(dir, name)}, nil
}

// Write writes to the temporary file, and starts the writeback of what
// it holds every writebackEvery bytes.
func (p *partial) Write(b []byte) (int, error) {
	n, err := p.w.Write(b)
	p.written += int64(n)
	if p.written-p.flushed >= writebackEvery && err == nil {
		writeback(p.f, p.flushed, p.written-p.flushed-int64(p.w.Buffered()))
		p.flushed = p.written - int64(p.w.Buffered())
	}
	return n, err
}

// again empties the temporary file for a second try.
func (p *partial) again() error {
	p.w.Reset(p.f)
	p.written, p.flushed = 0, 0
	if err := p.f.Truncate(0); err != nil {
		return err
	}
	_, err := p.f.Seek(0, io.SeekStart)
	return err
}

// spoolFile is the spool for content taken out of order: a file in the
// same directory, unlinked at once, so that nothing is left of it however
// the process ends.
func (p *partial) spoolFile() (*os.File, error) {
	if p.spool != nil {
		if err := p.spool.Truncate(0); err != nil {
			return nil, err
		}
		_, err := p.spool.Seek(0, io.SeekStart)
		return p.spool, err
	}
	f, err := os.CreateTemp(filepath.Dir(p.final), ".spool-*")
	if err != nil {
		return nil, err
	}
	if err := os.Remove(f.Name()); err != nil {
		_ = f.Close()
		return nil, err
	}
	p.spool = f
	return f, nil
}

// commit makes the archive whole on disk and gives it its name.
func (p *partial) commit() error {
	p.closeSpool()
	if err := p.w.Flush(); err != nil {
		return err
	}
	if err := p.f.Sync(); err != nil {
		return err
	}
	if err := p.f.Close(); err != nil {
		return err
	}
	if err := os.Rename(p.f.Name(), p.final); err != nil {
		return err
	}
	dir, err := os.Open(filepath.Dir(p.final))
	if err != nil {
		return err
	}
	defer func() { _ = dir.Close() }()
	return dir.Sync()
}

// abort removes what was written.
func (p *partial) abort() {
	p.closeSpool()
	_ = p.f.Close()
	_ = os.Remove(p.f.Name())
}

func (p *partial) closeSpool() {
	if p.spool != nil {
		_ = p.spool.Close()
	}
}

// onDisk is what the archive at a path holds now.
type onDisk struct {
	found  bool
	sha256 string
	size   int64
}

// readArchive digests the file at path; a missing file is not found.
func readArchive(path string) (onDisk, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return onDisk{}, nil
	}
	if err != nil {
		return onDisk{}, err
	}
	defer func() { _ = f.Close() }()
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return onDisk{}, err
	}
	return onDisk{found: true, sha256: hex.EncodeToString(h.Sum(nil)), size: n}, nil
}

// removeFile removes an archive; one already gone is removed.
func removeFile(path string) error {
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}
