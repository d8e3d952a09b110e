package docker

import (
	"context"
	"strconv"
	"strings"

	cerrdefs "github.com/containerd/errdefs"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
)

// A volume's size bound, per engine. The local driver bounds a disk volume
// with a project quota (Docker's size option, Podman's o=size), which only
// a data root on XFS mounted with pquota has; elsewhere the engine refuses
// the create. A memory volume is a tmpfs that the engine mounts while a
// container using it runs: Docker takes its size in bytes; Podman 4 reads
// size in o= as a quota even for a tmpfs, so it is given in pages
// (nr_blocks), whose size the provider knows only on x86_64 (4 KiB).

// memoryVolumeMode is a memory volume's root directory mode, as a disk
// volume's root: its owner writes, others read.
const memoryVolumeMode = "0755"

// engineRefused reports whether err is the engine's answer refusing a
// request as invalid or failing it (Docker answers 400 to a quota it
// cannot set, Podman 500), not a request left unanswered.
func engineRefused(err error) bool {
	return cerrdefs.IsInvalidArgument(err) || cerrdefs.IsInternal(err) || cerrdefs.IsNotImplemented(err)
}

// volumeOptions are the local driver's options for spec's bound.
func (c *Client) volumeOptions(ctx context.Context, spec engine.VolumeSpec) (map[string]string, error) {
	podman := c.Kind(ctx) == KindPodman
	var arch string
	if podman && spec.InMemory && spec.Size > 0 {
		f, err := c.Facts(ctx)
		if err != nil {
			return nil, err
		}
		arch = f.Arch
	}
	return boundOptions(spec, podman, arch)
}

// boundOptions are the local driver's options for spec's bound, on Podman
// or Docker, on a host of the architecture arch (read only for a memory
// volume on Podman).
func boundOptions(spec engine.VolumeSpec, podman bool, arch string) (map[string]string, error) {
	switch {
	case spec.Size <= 0:
		return nil, nil
	case !spec.InMemory && podman:
		return map[string]string{"o": "size=" + strconv.FormatInt(spec.Size, 10)}, nil
	case !spec.InMemory:
		return map[string]string{"size": strconv.FormatInt(spec.Size, 10)}, nil
	}
	size := "size=" + strconv.FormatInt(spec.Size, 10)
	if podman {
		if arch != "x86_64" && arch != "amd64" {
			return nil, &engine.MemoryVolumeUnsupportedError{Arch: arch}
		}
		size = "nr_blocks=" + strconv.FormatInt((spec.Size+engine.X86PageSize-1)/engine.X86PageSize, 10)
	}
	o := []string{size, "uid=" + strconv.Itoa(spec.Owner.UID), "gid=" + strconv.Itoa(spec.Owner.GID),
		"mode=" + memoryVolumeMode}
	return map[string]string{"type": "tmpfs", "device": "tmpfs", "o": strings.Join(o, ",")}, nil
}
