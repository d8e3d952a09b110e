package archive

import (
	"archive/tar"
	"errors"
	"fmt"
	"io"
	"time"
)

// Portable puts a header into the one form that every unpacker the
// provider streams an archive to reads as the provider does: GNU's, whose
// numbers too large for their octal fields (a size of 8 GiB or more, an
// owner of 2^21 or more, a time before 1970 or past 2242) are written in
// base-256 in the field itself, and whose long names and link targets are
// records of their own; owners by number only, no PAX records and no
// extended attributes. busybox's tar, a cluster helper's, reads a PAX
// record's path and nothing else: a file's size in a PAX record alone, as
// Go writes one of 8 GiB, would be read as an empty file whose content is
// more headers. Docker's and Podman's archive endpoints (Go's reader) and
// GNU tar read both forms; the differential test holds all three to it.
func Portable(h *tar.Header) {
	h.Format = tar.FormatGNU
	h.PAXRecords, h.Uname, h.Gname = nil, "", ""
	h.Xattrs = nil //nolint:staticcheck // the reader fills both; neither is kept
	h.ModTime = h.ModTime.Truncate(time.Second)
	h.AccessTime, h.ChangeTime = time.Time{}, time.Time{}
}

// UnpackerError is an archive with an entry that the engine it is
// restored on would make otherwise than the archive has it.
type UnpackerError struct {
	Entry  string // the entry's path, shortened
	Reason string
}

func (e *UnpackerError) Error() string {
	return fmt.Sprintf("the archive's entry %q %s", e.Entry, e.Reason)
}

// maxTrailer bounds the zeros a tar program may write after an archive's
// end (GNU tar fills its last record of 10 KiB; a larger blocking factor
// more).
const maxTrailer = 1 << 20

// CheckEnd reads what follows an archive's end, as a tar program writes
// it, and refuses anything but up to maxTrailer zero bytes: bytes after
// the end are nothing the provider checked, and a reader that takes them
// for more entries would see what the provider did not.
func CheckEnd(r io.Reader) error {
	buf := make([]byte, 32<<10)
	var total int64
	for {
		n, err := r.Read(buf)
		for _, b := range buf[:n] {
			if b != 0 {
				return unsafe("(its end)", "is followed by bytes that are not the archive's")
			}
		}
		total += int64(n)
		if total > maxTrailer {
			return unsafe("(its end)", "is followed by more than 1 MiB of padding")
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
	}
}
