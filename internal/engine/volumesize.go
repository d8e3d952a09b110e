package engine

import (
	"fmt"
	"strconv"
	"strings"
)

// X86PageSize is the page size of every x86_64 kernel.
const X86PageSize = 4096

// VolumeSizeRefusedError is a disk volume's size bound that the engine
// refused, most likely because its filesystem has no project quotas.
type VolumeSizeRefusedError struct{ Err error }

func (e *VolumeSizeRefusedError) Error() string {
	return "the engine refused the volume's size bound: " + e.Err.Error()
}

func (e *VolumeSizeRefusedError) Unwrap() error { return e.Err }

// MemoryVolumeUnsupportedError is a memory volume that the engine cannot
// bound: Podman on a host whose page size the provider does not know.
type MemoryVolumeUnsupportedError struct{ Arch string }

func (e *MemoryVolumeUnsupportedError) Error() string {
	return fmt.Sprintf("Podman takes a memory volume's size only in memory pages, and the provider knows their "+
		"size only on x86_64 hosts, not on this %s host", e.Arch)
}

// VolumeBound is what a volume's options say bounds it: its size in bytes
// (0 for none), and whether it is in memory.
func VolumeBound(v Volume) (size int64, inMemory bool) {
	inMemory = v.Options["type"] == "tmpfs"
	if n, err := strconv.ParseInt(v.Options["size"], 10, 64); err == nil {
		size = n
	}
	for _, o := range strings.Split(v.Options["o"], ",") {
		key, value, _ := strings.Cut(o, "=")
		n, err := strconv.ParseInt(value, 10, 64)
		switch {
		case err != nil:
		case key == "size":
			size = n
		case key == "nr_blocks":
			size = n * X86PageSize
		}
	}
	return size, inMemory
}
