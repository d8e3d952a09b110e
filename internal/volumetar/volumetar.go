// Package volumetar is the program that reads a volume inside a helper
// container on an engine whose archive endpoint does not keep files'
// owners (Podman 4's gives every file the container user's owner): the
// provider's own executable, copied into the helper's image, run as
//
//	terraform-provider-sandbox Command DIR NAME
//
// which writes DIR's tree to its standard output as a tar whose entries
// lie under NAME, as an engine's archive endpoint would: each directory's
// entries sorted by name, with numeric owners, modes, times, symbolic
// links as links and hard links as links. It never follows a symbolic
// link and opens no file but regular ones, with O_NOFOLLOW. What it
// writes is read by package archive, as hostile as the volume it came
// from.
package volumetar

import (
	"archive/tar"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"syscall"
)

// Command is the argument that runs the program instead of the provider.
const Command = "__tfsandbox_volume_tar"

// Main runs the program on its arguments (after Command) and returns its
// exit status.
func Main(args []string) int {
	if len(args) != 2 {
		fmt.Fprintf(os.Stderr, "usage: %s DIR NAME\n", Command)
		return 2
	}
	if err := Write(os.Stdout, args[0], args[1]); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// Write writes the tree at dir to w as a tar under name.
func Write(w io.Writer, dir, name string) error {
	tw := tar.NewWriter(w)
	links := map[[2]uint64]string{} // a regular file's device and inode: its first name
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		return writeEntry(tw, p, path.Join(name, filepath.ToSlash(rel)), links)
	})
	if err != nil {
		return err
	}
	return tw.Close()
}

// writeEntry writes the entry of the file at p under the name entry.
func writeEntry(tw *tar.Writer, p, entry string, links map[[2]uint64]string) error {
	info, err := os.Lstat(p)
	if err != nil {
		return err
	}
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return fmt.Errorf("%s: no owner", p)
	}
	h := &tar.Header{Name: entry, Mode: int64(info.Mode().Perm()), Uid: int(st.Uid), Gid: int(st.Gid),
		ModTime: info.ModTime(), Format: tar.FormatPAX}
	if info.Mode()&fs.ModeSetuid != 0 {
		h.Mode |= 0o4000
	}
	if info.Mode()&fs.ModeSetgid != 0 {
		h.Mode |= 0o2000
	}
	if info.Mode()&fs.ModeSticky != 0 {
		h.Mode |= 0o1000
	}
	mode := info.Mode()
	switch {
	case mode.IsDir():
		h.Typeflag, h.Name = tar.TypeDir, entry+"/"
	case mode&fs.ModeSymlink != 0:
		target, err := os.Readlink(p)
		if err != nil {
			return err
		}
		h.Typeflag, h.Linkname = tar.TypeSymlink, target
	case mode.IsRegular():
		key := [2]uint64{uint64(st.Dev), st.Ino} //nolint:unconvert // Dev's type differs by architecture
		if first, seen := links[key]; seen && st.Nlink > 1 {
			h.Typeflag, h.Linkname = tar.TypeLink, first
			return tw.WriteHeader(h)
		}
		links[key] = entry
		h.Typeflag, h.Size = tar.TypeReg, info.Size()
		return writeFile(tw, p, h)
	case mode&fs.ModeNamedPipe != 0:
		h.Typeflag = tar.TypeFifo
	case mode&fs.ModeDevice != 0 && mode&fs.ModeCharDevice != 0:
		h.Typeflag = tar.TypeChar
	case mode&fs.ModeDevice != 0:
		h.Typeflag = tar.TypeBlock
	default:
		return nil // a socket: no archive holds one
	}
	return tw.WriteHeader(h)
}

// writeFile writes a regular file's header and exactly its size in bytes:
// a file that changed size while it was read fails the archive.
func writeFile(tw *tar.Writer, p string, h *tar.Header) error {
	f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return err
	}
	defer func() { _ = f.Close() }()
	if now, err := f.Stat(); err != nil || !now.Mode().IsRegular() || now.Size() != h.Size {
		return fmt.Errorf("%s: it changed while it was read", p)
	}
	if err := tw.WriteHeader(h); err != nil {
		return err
	}
	n, err := io.Copy(tw, io.LimitReader(f, h.Size))
	if err == nil && n < h.Size {
		err = errors.New("it shrank while it was read")
	}
	if err != nil {
		return fmt.Errorf("%s: %w", p, err)
	}
	return nil
}
