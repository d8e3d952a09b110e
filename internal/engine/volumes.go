package engine

import (
	"archive/tar"
	"context"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/localdir"
)

// Volume is what a backend shows of a named volume (a cluster: of a
// claim).
type Volume struct {
	Name   string
	Driver string
	Labels map[string]string
	// Options are the driver's options it was created with (a tmpfs's
	// type, size and owner on a Docker-API engine).
	Options map[string]string
	// Mountpoint is where it lies on the engine's host, when the
	// engine says.
	Mountpoint string
	CreatedAt  string
}

// VolumeSpec is what the provider asks the engine to create.
type VolumeSpec struct {
	Name   string
	Labels map[string]string // the ownership labels and the create token included
	// Size bounds what the volume holds, in bytes; 0 for no bound.
	Size int64
	// InMemory makes the volume a tmpfs of Size bytes, whose root Owner
	// owns; a disk volume's Size is a project quota.
	InMemory bool
	Owner    localdir.Owner
}

// VolumeNameTakenError is a create refused because a volume the create did
// not make already has the name. Managed says whether the provider's
// labels are on it (another configuration's, or a state that lost it).
type VolumeNameTakenError struct {
	Name    string
	Managed bool
}

func (e *VolumeNameTakenError) Error() string {
	return fmt.Sprintf("a volume named %q already exists", e.Name)
}

// Conflict classifies the error for errdefs.
func (e *VolumeNameTakenError) Conflict() {}

// VolumeInUseError is a removal refused because containers mount the
// volume.
type VolumeInUseError struct {
	Name       string
	Containers []string // names, or short IDs of those without one
	Cause      error
}

func (e *VolumeInUseError) Error() string {
	return fmt.Sprintf("the volume %q is mounted by %s", e.Name, strings.Join(e.Containers, ", "))
}

// Conflict classifies the error for errdefs.
func (e *VolumeInUseError) Conflict() {}

func (e *VolumeInUseError) Unwrap() error { return e.Cause }

// VolumeMadeWith reports whether v is the volume the provider created with
// the create token: a volume carries only the labels its create gave it
// (nothing passes labels on to a volume), and the name it was made as
// (LabelMadeAs, madeby.go), which a copy of its labels made while it
// exists cannot have. A volume made before LabelMadeAt existed has its
// token alone.
func VolumeMadeWith(v Volume, token string) bool {
	madeAs, recorded := v.Labels[LabelMadeAs]
	return token != "" && ManagedBy(v.Labels) && v.Labels[LabelCreateToken] == token &&
		(!recorded || madeAs == v.Name)
}

// VolumeUser is a container that mounts a volume, and how.
type VolumeUser struct {
	Container string // its name, or its short ID where it has none
	ID        string
	Writable  bool
	Target    string // where it mounts the volume
	Running   bool
	// Paused is a running sandbox whose processes are frozen (not Running):
	// whoever paused it may let it go at any moment.
	Paused bool
}

// ObservedMounts are the named volumes and host paths mounted into the
// container, as the engine shows them, by target: anonymous volumes (an
// image's VOLUME) and the engine's own files are not among them.
func ObservedMounts(info Sandbox) map[string]Mount {
	out := map[string]Mount{}
	for _, p := range info.Mounts {
		switch p.Type {
		case MountVolume:
			if anonymousVolume.MatchString(p.Name) {
				continue
			}
			out[p.Destination] = Mount{Target: p.Destination, Volume: p.Name, ReadOnly: !p.RW}
		case MountBind:
			out[p.Destination] = Mount{Target: p.Destination, HostPath: p.Source, ReadOnly: !p.RW}
		}
	}
	return out
}

// anonymousVolume is the name the engines give a volume nobody named.
var anonymousVolume = regexp.MustCompile(`^[0-9a-f]{64}$`)

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

// SeedDir is the directory, at the helper container's root, where it
// mounts the volume: a seed's tar holds its files under it, so that the
// engine applies the seed's owner to the volume's root too.
const SeedDir = "seed"

// VolumeChangedError is a volume that changed while a helper read it (an
// entry went, or was replaced by another kind of file): what the
// provider's program said, quoting the entry.
type VolumeChangedError struct{ Said string }

func (e *VolumeChangedError) Error() string { return e.Said }

// RestoreRefuser is a backend whose unpacker makes some entries otherwise
// than an archive has them. EntryRefusal asks the engine what that rests
// on, and returns what says why it would for h, or "": a restore of such
// an archive is refused before anything is made.
type RestoreRefuser interface {
	EntryRefusal(ctx context.Context) (func(h *tar.Header) string, error)
}

// SnapshotRefuser is a backend that cannot take a snapshot of a volume
// from every platform the provider is built for. SnapshotRefusal says why
// it cannot from this one, naming the fix, or "": the plan refuses such a
// snapshot. An engine that does not answer is no refusal (apply meets it).
type SnapshotRefuser interface {
	SnapshotRefusal(ctx context.Context) string
}

// LatestFileTime is the last time that 64 bits of nanoseconds since 1970
// hold (in 2262): the engines' unpackers and a cluster's runtimes keep no
// later time for a file.
var LatestFileTime = time.Unix(0, math.MaxInt64)
