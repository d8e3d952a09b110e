// Package helpers chooses the program a Linux helper container or pod runs
// to read a volume (package volumetar's), and holds the builds of it the
// provider embeds.
package helpers

import (
	"archive/tar"
	"debug/elf"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"strings"
)

// A Helper is the program a Linux helper (a container or a pod on the
// engine's host) runs to read a volume: a Linux build of this package for
// the engine's architecture. A release embeds one for every Linux
// architecture it names (embedded.go, built by `make helpers`), so that a
// provider built for macOS or Windows, or with cgo, reads volumes like a
// Linux one. A provider built without them (`go build`) uses its own
// executable where that can run there: a static Linux build of the
// engine's architecture.
type Helper struct {
	// Source says where the program comes from, for errors and logs.
	Source string
	open   func() (io.ReadCloser, int64, error)
}

// Platform is an operating system and architecture, in Go's terms.
type Platform struct{ OS, Arch string }

func (p Platform) String() string { return p.OS + "/" + p.Arch }

// Self is the provider's own platform.
func Self() Platform { return Platform{OS: runtime.GOOS, Arch: runtime.GOARCH} }

// EngineArch is an architecture as Go names it, from the name an engine
// or a node gives it: Docker's /info says the kernel's (x86_64, aarch64,
// armv7l), Kubernetes Go's.
func EngineArch(name string) string {
	switch strings.ToLower(name) {
	case "x86_64", "x86-64", "amd64":
		return "amd64"
	case "aarch64", "arm64", "armv8", "armv8l":
		return "arm64"
	case "armv7l", "armv7", "armv6l", "armv6", "armhf", "arm":
		return "arm"
	case "i386", "i486", "i586", "i686", "x86", "386":
		return "386"
	}
	return strings.ToLower(name)
}

// HelperFor chooses the program for a helper on target (the engine's host,
// or the helper pod's node).
func HelperFor(target Platform) (*Helper, error) {
	self := Self()
	var selfErr error
	if self == target {
		selfErr = selfStatic() // only asked where it could matter
	}
	use, err := choose(target, self, selfErr, embeddedArches())
	if err != nil {
		return nil, err
	}
	if use == useEmbedded {
		return &Helper{Source: "the provider's embedded linux/" + target.Arch + " helper",
			open: func() (io.ReadCloser, int64, error) { return openEmbedded(target.Arch) }}, nil
	}
	return &Helper{Source: "the provider's own executable", open: openSelf}, nil
}

// use is where a helper's program comes from.
type use int

const (
	useEmbedded use = iota
	useSelf
)

// NoHelperError is a target no program of this provider runs on.
type NoHelperError struct {
	Target, Self Platform
	// Why the provider's own executable cannot serve.
	Why string
}

func (e *NoHelperError) Error() string {
	return fmt.Sprintf("this provider (%s) holds no helper program for %s, where the helper runs, and %s: use a "+
		"release build (it holds one for linux/amd64, arm64, arm and 386), or build the provider with `make build` "+
		"or `make install`, which embed them", e.Self, e.Target, e.Why)
}

// choose is the pure choice of HelperFor: the embedded program for the
// target's architecture, or else the provider's own executable where it is
// a static build of the target's platform (selfStatic, nil when it is
// static, says why not), or else no program.
func choose(target, self Platform, selfStatic error, embedded []string) (use, error) {
	if target.OS == "linux" && slices.Contains(embedded, target.Arch) {
		return useEmbedded, nil
	}
	why := ""
	switch {
	case target.OS != "linux":
		why = "the helper runs only on Linux"
	case self != target:
		why = "its own executable is a " + self.String() + " build"
	case selfStatic != nil:
		why = "its own executable is linked dynamically (built with cgo)"
	default:
		return useSelf, nil
	}
	return 0, &NoHelperError{Target: target, Self: self, Why: why}
}

// Tar is a tar holding only the program, under name with mode 0755, and
// the empty directories dirs (mode 0700), streamed: what a helper runs it
// from (a Docker helper image's content, a cluster helper's copy).
func (h *Helper) Tar(name string, dirs ...string) (io.ReadCloser, error) {
	f, size, err := h.open()
	if err != nil {
		return nil, err
	}
	pr, pw := io.Pipe()
	go func() {
		defer func() { _ = f.Close() }()
		tw := tar.NewWriter(pw)
		err := WriteDirs(tw, dirs...)
		if err == nil {
			err = tw.WriteHeader(&tar.Header{Name: name, Mode: 0o755, Size: size, Typeflag: tar.TypeReg})
		}
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

// WriteDirs writes the empty directories dirs (mode 0700) to tw.
func WriteDirs(tw *tar.Writer, dirs ...string) error {
	for _, dir := range dirs {
		if err := tw.WriteHeader(&tar.Header{Name: strings.TrimSuffix(dir, "/") + "/", Mode: 0o700,
			Typeflag: tar.TypeDir}); err != nil {
			return err
		}
	}
	return nil
}

// openSelf opens the provider's own executable.
func openSelf() (io.ReadCloser, int64, error) {
	f, _, err := executable()
	if err != nil {
		return nil, 0, err
	}
	info, err := f.Stat()
	if err != nil {
		_ = f.Close()
		return nil, 0, fmt.Errorf("reading the provider's executable: %w", err)
	}
	return f, info.Size(), nil
}

// selfStatic refuses the provider's executable where it needs a dynamic
// loader, which no helper has.
func selfStatic() error {
	f, exe, err := executable()
	if err != nil {
		return err
	}
	defer func() { _ = f.Close() }()
	e, err := elf.NewFile(f)
	if err != nil {
		return fmt.Errorf("reading the provider's executable %s: %w", exe, err)
	}
	for _, p := range e.Progs {
		if p.Type == elf.PT_INTERP {
			return errors.New("linked dynamically")
		}
	}
	return nil
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
