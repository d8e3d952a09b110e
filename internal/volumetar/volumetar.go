// Package volumetar is the program that reads a volume inside a helper:
// the provider's own executable, copied into the helper, run as
//
//	terraform-provider-sandbox Command DIR NAME
//
// which writes DIR's tree to its standard output as a tar whose entries
// lie under NAME, as an engine's archive endpoint would: each directory's
// entries sorted by name, with numeric owners, modes, times, symbolic
// links as links and hard links as links. A sandbox may be writing to the
// volume while it is read (a cluster, or an engine that cannot pause it),
// so the walk trusts no path: it opens each directory relative to its
// parent's descriptor with O_NOFOLLOW, never follows a symbolic link
// anywhere, and reads a file only through a descriptor it has checked is
// a regular file, so that a directory swapped for a link to / or for a
// FIFO is refused, never followed or waited on. What it writes is read by
// package archive, as hostile as the volume it came from.
//
//	terraform-provider-sandbox Command wait [SECONDS]
//
// blocks until it is stopped, or for SECONDS (WaitAtMost without them): what a Docker helper runs
// while the provider reads through it. A helper left by a provider killed
// outright stops on its own.
package volumetar

import (
	"archive/tar"
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path"
	"slices"
	"strconv"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Command is the argument that runs the program instead of the provider.
const Command = "__tfsandbox_volume_tar"

// outBuffer is how much the program writes to its standard output at
// once: the engine carries each write through its exec's pipes.
const outBuffer = 1 << 20

// WaitAtMost bounds a wait given no bound.
const WaitAtMost = time.Hour

// Exit statuses: ExitChanged says that the volume changed while it was
// read (an entry went, or became another kind of file).
const (
	exitFailed  = 1
	exitUsage   = 2
	ExitChanged = 3
)

// Main runs the program on its arguments (after Command) and returns its
// exit status.
func Main(args []string) int {
	if len(args) >= 1 && args[0] == "wait" {
		bound := WaitAtMost
		if len(args) == 2 {
			if secs, err := strconv.Atoi(args[1]); err == nil && secs > 0 {
				bound = time.Duration(secs) * time.Second
			}
		}
		stop := make(chan os.Signal, 1)
		signal.Notify(stop, syscall.SIGTERM, syscall.SIGINT)
		select {
		case <-stop:
		case <-time.After(bound):
		}
		return 0
	}
	if len(args) != 2 {
		fmt.Fprintf(os.Stderr, "usage: %s DIR NAME | wait\n", Command)
		return exitUsage
	}
	out := bufio.NewWriterSize(os.Stdout, outBuffer)
	err := Write(out, args[0], args[1])
	if err == nil {
		err = out.Flush()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		if errors.As(err, new(*ChangedError)) {
			return ExitChanged
		}
		return exitFailed
	}
	return 0
}

// ChangedError is a volume that changed while it was read.
type ChangedError struct {
	Entry, How string
}

func (e *ChangedError) Error() string {
	return fmt.Sprintf("the volume changed while it was read: %s %s", strconv.Quote(e.Entry), e.How)
}

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
