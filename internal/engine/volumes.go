package engine

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/docker/docker/api/types/mount"
	"github.com/docker/docker/api/types/volume"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/localdir"
)

// Volume is the engine's data about a named volume.
type Volume = volume.Volume

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
// (nothing passes labels on to a volume), so its token proves it.
func VolumeMadeWith(v Volume, token string) bool {
	return token != "" && ManagedBy(v.Labels) && v.Labels[LabelCreateToken] == token
}

// VolumeUser is a container that mounts a volume, and how.
type VolumeUser struct {
	Container string // its name, or its short ID where it has none
	ID        string
	Writable  bool
	Target    string // where it mounts the volume
	Running   bool
}

// ObservedMounts are the named volumes and host paths mounted into the
// container, as the engine shows them, by target: anonymous volumes (an
// image's VOLUME) and the engine's own files are not among them.
func ObservedMounts(info Container) map[string]Mount {
	out := map[string]Mount{}
	for _, p := range info.Mounts {
		switch p.Type {
		case mount.TypeVolume:
			if anonymousVolume.MatchString(p.Name) {
				continue
			}
			out[p.Destination] = Mount{Target: p.Destination, Volume: p.Name, ReadOnly: !p.RW}
		case mount.TypeBind:
			out[p.Destination] = Mount{Target: p.Destination, HostPath: p.Source, ReadOnly: !p.RW}
		}
	}
	return out
}

// anonymousVolume is the name the engines give a volume nobody named.
var anonymousVolume = regexp.MustCompile(`^[0-9a-f]{64}$`)
