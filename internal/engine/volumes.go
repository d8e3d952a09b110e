package engine

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/filters"
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

// CreateVolume creates a volume and returns the engine's data about it.
// The engines answer a create for a name in use with the volume that holds
// it: a volume whose create token is not spec's is refused, and left as it
// is.
func (c *Client) CreateVolume(ctx context.Context, spec VolumeSpec) (Volume, error) {
	if held, err := c.InspectVolume(ctx, spec.Name); err == nil {
		return Volume{}, &VolumeNameTakenError{Name: spec.Name, Managed: ManagedBy(held.Labels)}
	} else if !IsNotFound(err) {
		return Volume{}, err
	}
	opts, err := c.volumeOptions(ctx, spec)
	if err != nil {
		return Volume{}, err
	}
	var v Volume
	makeCtx, cancel := uncancelled(ctx)
	defer cancel()
	err = c.within(makeCtx, "the request to create a volume", SlowCallTimeout, func(ctx context.Context) (err error) {
		v, err = c.api.VolumeCreate(ctx, volume.CreateOptions{Name: spec.Name, Driver: "local", Labels: spec.Labels,
			DriverOpts: opts})
		return err
	})
	if IsConflict(err) {
		// Podman refuses a name in use.
		return Volume{}, &VolumeNameTakenError{Name: spec.Name, Managed: c.volumeManaged(ctx, spec.Name)}
	}
	if spec.Size > 0 && !spec.InMemory && engineRefused(err) {
		return Volume{}, &VolumeSizeRefusedError{Err: err}
	}
	if err != nil {
		return Volume{}, err
	}
	if v.Labels[LabelCreateToken] != spec.Labels[LabelCreateToken] {
		// Made by another between the inspect and the create.
		return Volume{}, &VolumeNameTakenError{Name: spec.Name, Managed: ManagedBy(v.Labels)}
	}
	return v, nil
}

// volumeManaged reports whether the volume of that name carries the
// provider's labels.
func (c *Client) volumeManaged(ctx context.Context, name string) bool {
	v, err := c.InspectVolume(ctx, name)
	return err == nil && ManagedBy(v.Labels)
}

// InspectVolume returns the engine's data about a volume, by name.
func (c *Client) InspectVolume(ctx context.Context, name string) (Volume, error) {
	var v Volume
	err := c.within(ctx, "the request to inspect a volume", QuickCallTimeout, func(ctx context.Context) (err error) {
		v, err = c.api.VolumeInspect(ctx, name)
		return err
	})
	return v, err
}

// VolumeMadeWith reports whether v is the volume the provider created with
// the create token: a volume carries only the labels its create gave it
// (nothing passes labels on to a volume), so its token proves it.
func VolumeMadeWith(v Volume, token string) bool {
	return token != "" && ManagedBy(v.Labels) && v.Labels[LabelCreateToken] == token
}

// RemoveVolume removes the volume the provider created with the create
// token. A volume of that name that the token does not prove is left, and
// is not an error: it is not the one the state recorded. A volume that
// containers mount is refused with a *VolumeInUseError.
func (c *Client) RemoveVolume(ctx context.Context, name, token string) error {
	v, err := c.InspectVolume(ctx, name)
	if IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	if !VolumeMadeWith(v, token) {
		return nil
	}
	err = c.within(ctx, "the request to remove a volume", SlowCallTimeout, func(ctx context.Context) error {
		return c.api.VolumeRemove(ctx, name, false)
	})
	switch {
	case err == nil, IsNotFound(err):
		return nil
	case stateMovedUnder(err): // a conflict, or Podman's internal error, for a volume in use
		users, listErr := c.ContainersMounting(ctx, name)
		if listErr != nil || len(users) == 0 {
			return err
		}
		return &VolumeInUseError{Name: name, Containers: users, Cause: err}
	}
	return err
}

// ContainersMounting returns the names (short IDs where there is no name)
// of the containers, running or not, that mount the volume, sorted.
func (c *Client) ContainersMounting(ctx context.Context, name string) ([]string, error) {
	users, err := c.VolumeUsers(ctx, name)
	names := make([]string, 0, len(users))
	for _, u := range users {
		names = append(names, u.Container)
	}
	return names, err
}

// VolumeUser is a container that mounts a volume, and how.
type VolumeUser struct {
	Container string // its name, or its short ID where it has none
	ID        string
	Writable  bool
	Target    string // where it mounts the volume
	Running   bool
}

// VolumeUsers lists the containers, running or not, that mount the volume,
// sorted by name.
func (c *Client) VolumeUsers(ctx context.Context, name string) ([]VolumeUser, error) {
	var users []VolumeUser
	err := c.within(ctx, "the request to list containers", QuickCallTimeout, func(ctx context.Context) error {
		list, err := c.api.ContainerList(ctx, container.ListOptions{
			All: true, Filters: filters.NewArgs(filters.Arg("volume", name)),
		})
		for _, s := range list {
			u := VolumeUser{Container: ShortID(s.ID), ID: s.ID, Running: s.State == container.StateRunning}
			if len(s.Names) > 0 {
				u.Container = strings.TrimPrefix(s.Names[0], "/")
			}
			for _, m := range s.Mounts {
				if m.Type == mount.TypeVolume && m.Name == name {
					u.Writable = u.Writable || m.RW
					u.Target = m.Destination
				}
			}
			users = append(users, u)
		}
		return err
	})
	slices.SortFunc(users, func(a, b VolumeUser) int { return strings.Compare(a.Container, b.Container) })
	return users, err
}

// addMount adds m to h as the engine's API takes it: a host path as a
// private bind mount; a volume as a bind of its name, with nocopy (Podman
// ignores the mount API's NoCopy, and honours it there): a volume holds
// what it was seeded with and what sandboxes wrote, never the files of
// whichever image mounted it first, and keeps its seeded owner.
func addMount(h *container.HostConfig, m Mount) {
	if m.HostPath != "" {
		h.Mounts = append(h.Mounts, mount.Mount{
			Type: mount.TypeBind, Source: m.HostPath, Target: m.Target, ReadOnly: m.ReadOnly,
			BindOptions: &mount.BindOptions{Propagation: mount.PropagationRPrivate},
		})
		return
	}
	opts := "rw,nocopy"
	if m.ReadOnly {
		opts = "ro,nocopy"
	}
	h.Binds = append(h.Binds, m.Volume+":"+m.Target+":"+opts)
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
