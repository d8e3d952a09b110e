package snapshotresource

import (
	"os"

	"golang.org/x/sys/unix"
)

// writeback starts writing n bytes of f from off to its disk, without
// waiting: the final sync then has little left to wait for. Where the file
// system cannot, the final sync does it all.
func writeback(f *os.File, off, n int64) {
	_ = unix.SyncFileRange(int(f.Fd()), off, n, unix.SYNC_FILE_RANGE_WRITE)
}
