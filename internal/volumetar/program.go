package volumetar

import (
	"archive/tar"
	"debug/elf"
	"fmt"
	"io"
	"os"
)

// ProgramTar is a tar holding only the provider's own executable, under
// name with mode 0755, streamed from disk: what a helper runs the program
// from (a Docker helper image's content, a cluster helper's copy). It
// refuses an executable that needs a dynamic loader, which no helper has.
func ProgramTar(name string) (io.ReadCloser, error) {
	f, exe, err := executable()
	if err != nil {
		return nil, err
	}
	info, err := f.Stat()
	if err == nil {
		err = static(f, exe)
	}
	if err != nil {
		_ = f.Close()
		return nil, err
	}
	pr, pw := io.Pipe()
	go func() {
		defer func() { _ = f.Close() }()
		tw := tar.NewWriter(pw)
		err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o755, Size: info.Size(), Typeflag: tar.TypeReg})
		if err == nil {
			_, err = io.Copy(tw, f)
		}
		if err == nil {
			err = tw.Close()
		}
		_ = pw.CloseWithError(err)
	}()
	return pr, nil
}

// Static refuses the provider's executable where it needs a dynamic
// loader, which no helper has.
func Static() error {
	f, exe, err := executable()
	if err != nil {
		return err
	}
	defer func() { _ = f.Close() }()
	return static(f, exe)
}

// executable opens the provider's own executable.
func executable() (*os.File, string, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, "", fmt.Errorf("finding the provider's executable: %w", err)
	}
	f, err := os.Open(exe)
	if err != nil {
		return nil, "", fmt.Errorf("reading the provider's executable: %w", err)
	}
	return f, exe, nil
}

// static refuses an executable that needs a dynamic loader, which a
// helper's image does not have: a build with cgo.
func static(f io.ReaderAt, exe string) error {
	e, err := elf.NewFile(f)
	if err != nil {
		return fmt.Errorf("reading the provider's executable %s: %w", exe, err)
	}
	for _, p := range e.Progs {
		if p.Type == elf.PT_INTERP {
			return fmt.Errorf("the provider's executable %s is linked dynamically (built with cgo), and cannot "+
				"run in a helper: use a release build, or build it with CGO_ENABLED=0", exe)
		}
	}
	return nil
}
