//go:build linux

package volumetar

import (
	"archive/tar"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"slices"
	"strconv"
	"time"

	"golang.org/x/sys/unix"
)

// The walk, by descriptors: Linux's openat with O_NOFOLLOW and O_PATH. The
// program runs only in a Linux helper (a container or a pod).

// Write writes the tree at dir to w as a tar under name.
func Write(w io.Writer, dir, name string) error {
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("opening %s: %w", dir, err)
	}
	defer func() { _ = unix.Close(fd) }()
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return fmt.Errorf("%s: %w", dir, err)
	}
	wk := &walker{tw: tar.NewWriter(w), links: map[[2]uint64]string{}, buf: make([]byte, outBuffer)}
	if err := wk.tw.WriteHeader(header(name+"/", tar.TypeDir, &st)); err != nil {
		return err
	}
	if err := wk.dir(fd, name); err != nil {
		return err
	}
	return wk.tw.Close()
}

// walker writes the entries of a tree, descriptor by descriptor.
type walker struct {
	tw    *tar.Writer
	links map[[2]uint64]string // a regular file's device and inode: its first name
	buf   []byte               // a file's content on its way
}

// dir writes the entries of the directory open at fd, whose entry is
// entry, in its names' order.
func (wk *walker) dir(fd int, entry string) error {
	names, err := list(fd)
	if err != nil {
		return gone(entry, err) // a directory removed while it was listed reads as ENOENT
	}
	for _, n := range names {
		if err := wk.entry(fd, n, path.Join(entry, n)); err != nil {
			return err
		}
	}
	return nil
}

// list reads the names in the directory open at fd, sorted.
func list(fd int) ([]string, error) {
	dup, err := unix.Dup(fd)
	if err != nil {
		return nil, err
	}
	f := os.NewFile(uintptr(dup), "")
	defer func() { _ = f.Close() }()
	names, err := f.Readdirnames(-1)
	slices.Sort(names)
	return names, err
}

// entry writes the entry name in the directory open at parent.
func (wk *walker) entry(parent int, name, entry string) error {
	var st unix.Stat_t
	if err := unix.Fstatat(parent, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return gone(entry, err)
	}
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFDIR:
		return wk.subdir(parent, name, entry, &st)
	case unix.S_IFLNK:
		target, err := readlinkat(parent, name)
		if errors.Is(err, unix.EINVAL) { // swapped for something that is not a link since stat
			return &ChangedError{Entry: entry, How: "is no longer a symbolic link"}
		}
		if err != nil {
			return gone(entry, err)
		}
		h := header(entry, tar.TypeSymlink, &st)
		h.Linkname = target
		return wk.tw.WriteHeader(h)
	case unix.S_IFREG:
		return wk.file(parent, name, entry, &st)
	case unix.S_IFIFO:
		return wk.tw.WriteHeader(header(entry, tar.TypeFifo, &st))
	case unix.S_IFCHR:
		return wk.tw.WriteHeader(header(entry, tar.TypeChar, &st))
	case unix.S_IFBLK:
		return wk.tw.WriteHeader(header(entry, tar.TypeBlock, &st))
	}
	return nil // a socket: no archive holds one
}

// subdir opens the directory name relative to parent, never through a
// symbolic link and never blocking, checks it is the one stat saw, and
// writes it and what it holds.
func (wk *walker) subdir(parent int, name, entry string, st *unix.Stat_t) error {
	fd, err := unix.Openat(parent, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return changed(entry, "is no longer a directory", err)
	}
	defer func() { _ = unix.Close(fd) }()
	if err := same(fd, st, entry); err != nil {
		return err
	}
	if err := wk.tw.WriteHeader(header(entry+"/", tar.TypeDir, st)); err != nil {
		return err
	}
	return wk.dir(fd, entry)
}

// file writes a regular file: opened by a descriptor that refers to the
// entry without opening it (O_PATH), checked to be the regular file stat
// saw, then opened for reading through that descriptor, and exactly its
// size in bytes written: a file swapped for a FIFO or a device is never
// opened, and one that changed size while it was read fails the archive.
func (wk *walker) file(parent int, name, entry string, st *unix.Stat_t) error {
	key := [2]uint64{uint64(st.Dev), st.Ino} //nolint:unconvert // Dev's type differs by architecture
	if first, seen := wk.links[key]; seen && st.Nlink > 1 {
		h := header(entry, tar.TypeLink, st)
		h.Linkname = first
		return wk.tw.WriteHeader(h)
	}
	pathFD, err := unix.Openat(parent, name, unix.O_PATH|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return gone(entry, err)
	}
	defer func() { _ = unix.Close(pathFD) }()
	if err := same(pathFD, st, entry); err != nil {
		return err
	}
	fd, err := unix.Open("/proc/self/fd/"+strconv.Itoa(pathFD), unix.O_RDONLY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("%s: %w", entry, err)
	}
	f := os.NewFile(uintptr(fd), entry)
	defer func() { _ = f.Close() }()
	wk.links[key] = entry
	h := header(entry, tar.TypeReg, st)
	h.Size = st.Size
	if err := wk.tw.WriteHeader(h); err != nil {
		return err
	}
	n, err := io.CopyBuffer(wk.tw, io.LimitReader(f, h.Size), wk.buf)
	if err == nil && n < h.Size {
		return &ChangedError{Entry: entry, How: "shrank while it was read"}
	}
	if err != nil {
		return fmt.Errorf("%s: %w", entry, err)
	}
	return nil
}

// same checks that the descriptor refers to the file stat saw: a sandbox
// may swap an entry for another between the two.
func same(fd int, st *unix.Stat_t, entry string) error {
	var now unix.Stat_t
	if err := unix.Fstat(fd, &now); err != nil {
		return fmt.Errorf("%s: %w", entry, err)
	}
	if now.Dev != st.Dev || now.Ino != st.Ino || now.Mode&unix.S_IFMT != st.Mode&unix.S_IFMT ||
		now.Mode&unix.S_IFMT == unix.S_IFREG && now.Size != st.Size {
		return &ChangedError{Entry: entry, How: "was replaced while it was read"}
	}
	return nil
}

// readlinkat reads a symbolic link's target, however long.
func readlinkat(dirfd int, name string) (string, error) {
	for size := 256; ; size *= 2 {
		buf := make([]byte, size)
		n, err := unix.Readlinkat(dirfd, name, buf)
		if err != nil {
			return "", err
		}
		if n < size {
			return string(buf[:n]), nil
		}
	}
}

// header is an entry's header from its stat.
func header(name string, typ byte, st *unix.Stat_t) *tar.Header {
	return &tar.Header{Name: name, Typeflag: typ, Mode: int64(st.Mode & 0o7777), Uid: int(st.Uid), Gid: int(st.Gid),
		ModTime: time.Unix(st.Mtim.Unix()), Format: tar.FormatPAX}
}

// gone is an entry that went, or that could not be read, while the walk
// reached it.
func gone(entry string, err error) error {
	if errors.Is(err, unix.ENOENT) || errors.Is(err, unix.ENOTDIR) || errors.Is(err, unix.ELOOP) {
		return changed(entry, "went while it was read", err)
	}
	return fmt.Errorf("%s: %w", entry, err)
}

func changed(entry, how string, err error) error {
	if errors.Is(err, unix.ENOENT) || errors.Is(err, unix.ENOTDIR) || errors.Is(err, unix.ELOOP) {
		return &ChangedError{Entry: entry, How: how}
	}
	return fmt.Errorf("%s: %w", entry, err)
}
