package helpers

import (
	"embed"
	"fmt"
	"io"
	"io/fs"
	"strings"
)

// The helper programs `make helpers` builds into bin/ (linux_<arch>, from
// ../cmd/volume-tar, which does not import this package: a program that
// embedded the programs built before it would never build the same
// twice), which a release and `make build` embed. The directory always
// holds its README, so that a provider built without them (`go build`)
// still compiles, and uses its own executable where it can (program.go).
//
//go:embed all:bin
var programs embed.FS

// embeddedPrefix names an embedded program by the architecture it runs on.
const embeddedPrefix = "bin/linux_"

// embeddedArches are the architectures of the embedded programs.
func embeddedArches() []string {
	entries, _ := fs.ReadDir(programs, "bin") // the directory always exists
	var arches []string
	for _, e := range entries {
		if arch, ok := strings.CutPrefix("bin/"+e.Name(), embeddedPrefix); ok && !e.IsDir() {
			arches = append(arches, arch)
		}
	}
	return arches
}

// openEmbedded opens the embedded program for arch.
func openEmbedded(arch string) (io.ReadCloser, int64, error) {
	f, err := programs.Open(embeddedPrefix + arch)
	if err != nil {
		return nil, 0, fmt.Errorf("opening the embedded helper for linux/%s: %w", arch, err)
	}
	info, err := f.Stat()
	if err != nil {
		_ = f.Close()
		return nil, 0, fmt.Errorf("opening the embedded helper for linux/%s: %w", arch, err)
	}
	return f, info.Size(), nil
}
