// Package localdir reads a directory on the machine running Terraform as
// the engine receives it: its files less those its .dockerignore excludes,
// a digest of their paths, types, modes and contents (not their times), and
// a tar of them. sandbox_image sends one as its build context,
// sandbox_volume as its seed.
package localdir

import (
	"archive/tar"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/moby/patternmatcher"
	"github.com/moby/patternmatcher/ignorefile"
)

// zeroTime is the time every file gets in a tar.
var zeroTime = time.Unix(0, 0)

// File is one file, directory or symbolic link of a directory.
type File struct {
	Rel  string // slash-separated, relative to the directory
	Info fs.FileInfo
	Link string // a symbolic link's target
}

// Walk lists dir's files, directories and symbolic links, less what its
// .dockerignore excludes, always with the paths in keep (as the docker CLI
// always sends the Dockerfile and .dockerignore), sorted by path. Sockets,
// pipes and devices are left out. A dir that is a symbolic link to a
// directory is walked where it points.
func Walk(dir string, keep ...string) ([]File, error) {
	info, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("the directory %s cannot be read: %w", dir, err)
	}
	if !info.IsDir() {
		return nil, fmt.Errorf("%s is not a directory", dir)
	}
	matcher, err := ignored(dir, keep)
	if err != nil {
		return nil, err
	}
	root, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return nil, fmt.Errorf("the directory %s cannot be read: %w", dir, err)
	}
	var files []File
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return fmt.Errorf("reading %s: %w", dir, err)
		}
		rel, _ := filepath.Rel(root, p)
		if rel == "." {
			return nil
		}
		rel = filepath.ToSlash(rel)
		skip, err := matcher.MatchesOrParentMatches(rel)
		if err != nil {
			return fmt.Errorf("applying .dockerignore to %s: %w", rel, err)
		}
		if skip {
			if d.IsDir() && !matcher.Exclusions() {
				return filepath.SkipDir
			}
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return fmt.Errorf("reading %s: %w", dir, err)
		}
		f := File{Rel: rel, Info: info}
		if info.Mode()&fs.ModeSymlink != 0 {
			if f.Link, err = os.Readlink(p); err != nil {
				return fmt.Errorf("reading %s: %w", dir, err)
			}
		} else if !info.IsDir() && !info.Mode().IsRegular() {
			return nil
		}
		files = append(files, f)
		return nil
	})
	return files, err
}

// ignored reads dir's .dockerignore, less any pattern that would exclude
// the paths in keep.
func ignored(dir string, keep []string) (*patternmatcher.PatternMatcher, error) {
	var patterns []string
	f, err := os.Open(filepath.Join(dir, ".dockerignore"))
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return nil, fmt.Errorf("reading %s/.dockerignore: %w", dir, err)
	default:
		defer func() { _ = f.Close() }()
		if patterns, err = ignorefile.ReadAll(f); err != nil {
			return nil, fmt.Errorf("reading %s/.dockerignore: %w", dir, err)
		}
	}
	for _, k := range keep {
		patterns = append(patterns, "!"+k)
	}
	return patternmatcher.New(patterns)
}

// Digest writes to h each file's path, type, permission bits and content
// (times are left out).
func Digest(h io.Writer, dir string, files []File) error {
	for _, f := range files {
		_, _ = fmt.Fprintf(h, "%q %s %o\n", f.Rel, f.Info.Mode().Type(), f.Info.Mode().Perm()) // a hash never fails
		switch {
		case f.Link != "":
			_, _ = fmt.Fprintf(h, "-> %q\n", f.Link)
		case f.Info.Mode().IsRegular():
			if err := copyFile(h, filepath.Join(dir, filepath.FromSlash(f.Rel))); err != nil {
				return err
			}
		}
	}
	return nil
}

func copyFile(w io.Writer, name string) error {
	f, err := os.Open(name)
	if err != nil {
		return fmt.Errorf("reading %s: %w", name, err)
	}
	defer func() { _ = f.Close() }()
	if _, err := io.Copy(w, f); err != nil {
		return fmt.Errorf("reading %s: %w", name, err)
	}
	return nil
}

// Owner is who owns every entry of a tar, by number.
type Owner struct{ UID, GID int }

// WriteTar writes the files as a tar to w, owned by owner, with times
// zeroed so that the same files make the same tar. With under, every path
// is under that directory, which the tar starts with (mode 0755, owned by
// owner): the engines apply an entry's owner and mode to a directory that
// exists, but not to the directory they unpack into.
func WriteTar(w io.Writer, dir string, files []File, owner Owner, under string) error {
	tw := tar.NewWriter(w)
	prefix := ""
	if under != "" {
		prefix = under + "/"
		hdr := &tar.Header{Typeflag: tar.TypeDir, Name: prefix, Mode: 0o755, Uid: owner.UID, Gid: owner.GID,
			ModTime: zeroTime, AccessTime: zeroTime, ChangeTime: zeroTime, Format: tar.FormatPAX}
		if err := tw.WriteHeader(hdr); err != nil {
			return fmt.Errorf("packing %s: %w", dir, err)
		}
	}
	for _, f := range files {
		hdr, err := tar.FileInfoHeader(f.Info, f.Link)
		if err != nil {
			return fmt.Errorf("packing %s: %w", f.Rel, err)
		}
		hdr.Name = prefix + f.Rel
		if f.Info.IsDir() {
			hdr.Name += "/"
		}
		hdr.Uid, hdr.Gid, hdr.Uname, hdr.Gname = owner.UID, owner.GID, "", ""
		hdr.ModTime, hdr.AccessTime, hdr.ChangeTime = zeroTime, zeroTime, zeroTime
		hdr.Format = tar.FormatPAX
		if err := tw.WriteHeader(hdr); err != nil {
			return fmt.Errorf("packing %s: %w", f.Rel, err)
		}
		if f.Info.Mode().IsRegular() {
			if err := copyFile(tw, filepath.Join(dir, filepath.FromSlash(f.Rel))); err != nil {
				return err
			}
		}
	}
	return tw.Close()
}
