package docker

import (
	"context"
	"maps"
	"slices"
	"strings"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/filters"
	"github.com/docker/docker/api/types/mount"
	"github.com/docker/docker/api/types/volume"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
)

// CreateVolume creates a volume and returns the engine's data about it.
// The engines answer a create for a name in use with the volume that holds
// it: a volume whose create token is not spec's is refused, and left as it
// is.
func (c *Client) CreateVolume(ctx context.Context, spec engine.VolumeSpec) (engine.Volume, error) {
	if held, err := c.InspectVolume(ctx, spec.Name); err == nil {
		return engine.Volume{}, &engine.VolumeNameTakenError{Name: spec.Name, Managed: engine.ManagedBy(held.Labels)}
	} else if !engine.IsNotFound(err) {
		return engine.Volume{}, err
	}
	opts, err := c.volumeOptions(ctx, spec)
	if err != nil {
		return engine.Volume{}, err
	}
	// The name it is made as binds its labels to it (engine/madeby.go).
	spec.Labels = maps.Clone(spec.Labels)
	spec.Labels[engine.LabelMadeAs] = spec.Name
	var v engine.Volume
	makeCtx, cancel := engine.Uncancelled(ctx)
	defer cancel()
	err = c.within(makeCtx, "the request to create a volume", engine.SlowCallTimeout, func(ctx context.Context) error {
		made, err := c.api.VolumeCreate(ctx, volume.CreateOptions{Name: spec.Name, Driver: "local", Labels: spec.Labels,
			DriverOpts: opts})
		v = observedVolume(made)
		return err
	})
	if engine.IsConflict(err) {
		// Podman refuses a name in use.
		return engine.Volume{}, &engine.VolumeNameTakenError{Name: spec.Name, Managed: c.volumeManaged(ctx, spec.Name)}
	}
	if spec.Size > 0 && !spec.InMemory && engineRefused(err) {
		return engine.Volume{}, &engine.VolumeSizeRefusedError{Err: err}
	}
	if err != nil {
		return engine.Volume{}, err
	}
	if v.Labels[engine.LabelCreateToken] != spec.Labels[engine.LabelCreateToken] {
		// Made by another between the inspect and the create.
		return engine.Volume{}, &engine.VolumeNameTakenError{Name: spec.Name, Managed: engine.ManagedBy(v.Labels)}
	}
	return v, nil
}

// volumeManaged reports whether the volume of that name carries the
// provider's labels.
func (c *Client) volumeManaged(ctx context.Context, name string) bool {
	v, err := c.InspectVolume(ctx, name)
	return err == nil && engine.ManagedBy(v.Labels)
}

// InspectVolume returns the engine's data about a volume, by name.
func (c *Client) InspectVolume(ctx context.Context, name string) (engine.Volume, error) {
	var v engine.Volume
	err := c.within(ctx, "the request to inspect a volume", engine.QuickCallTimeout, func(ctx context.Context) error {
		seen, err := c.api.VolumeInspect(ctx, name)
		v = observedVolume(seen)
		return err
	})
	return v, err
}

// ManagedVolumes lists the volumes with the provider's ownership label and
// labels, whose name starts with namePrefix, filtered by the engine by
// their labels, and again here (labels.go).
func (c *Client) ManagedVolumes(ctx context.Context, labels map[string]string, namePrefix string) ([]engine.Volume, error) {
	want := managedLabels(labels)
	var out []engine.Volume
	err := c.within(ctx, "the request to list volumes", engine.QuickCallTimeout, func(ctx context.Context) error {
		list, err := c.api.VolumeList(ctx, volume.ListOptions{Filters: labelArgs(want)})
		for _, v := range list.Volumes {
			if v != nil && strings.HasPrefix(v.Name, namePrefix) && engine.HasLabels(v.Labels, want) {
				out = append(out, observedVolume(*v))
			}
		}
		return err
	})
	return out, err
}

// observedVolume is the seam's view of the engine's data about a volume.
func observedVolume(v volume.Volume) engine.Volume {
	return engine.Volume{Name: v.Name, Driver: v.Driver, Labels: v.Labels, Options: v.Options,
		Mountpoint: v.Mountpoint, CreatedAt: v.CreatedAt}
}

// RemoveVolume removes the volume the provider created with the create
// token. A volume of that name that the token does not prove is left, and
// is not an error: it is not the one the state recorded. A volume that
// containers mount is refused with a *VolumeInUseError.
func (c *Client) RemoveVolume(ctx context.Context, name, token string) error {
	v, err := c.InspectVolume(ctx, name)
	if engine.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	if !engine.VolumeMadeWith(v, token) {
		return nil
	}
	err = c.within(ctx, "the request to remove a volume", engine.SlowCallTimeout, func(ctx context.Context) error {
		return c.api.VolumeRemove(ctx, name, false)
	})
	switch {
	case err == nil, engine.IsNotFound(err):
		return nil
	case stateMovedUnder(err): // a conflict, or Podman's internal error, for a volume in use
		users, listErr := c.ContainersMounting(ctx, name)
		if listErr != nil || len(users) == 0 {
			return err
		}
		return &engine.VolumeInUseError{Name: name, Containers: users, Cause: err}
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

// VolumeUsers lists the containers, running or not, that mount the volume,
// sorted by name.
func (c *Client) VolumeUsers(ctx context.Context, name string) ([]engine.VolumeUser, error) {
	var users []engine.VolumeUser
	err := c.within(ctx, "the request to list containers", engine.QuickCallTimeout, func(ctx context.Context) error {
		list, err := c.api.ContainerList(ctx, container.ListOptions{
			All: true, Filters: filters.NewArgs(filters.Arg("volume", name)),
		})
		for _, s := range list {
			u := engine.VolumeUser{Container: engine.ShortID(s.ID), ID: s.ID, Running: s.State == container.StateRunning,
				Paused: s.State == container.StatePaused}
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
	slices.SortFunc(users, func(a, b engine.VolumeUser) int { return strings.Compare(a.Container, b.Container) })
	return users, err
}

// addMount adds m to h as the engine's API takes it: a host path as a
// private bind mount; a volume as a bind of its name, with nocopy (Podman
// ignores the mount API's NoCopy, and honours it there): a volume holds
// what it was seeded with and what sandboxes wrote, never the files of
// whichever image mounted it first, and keeps its seeded owner.
func addMount(h *container.HostConfig, m engine.Mount) {
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

// NewVolumeRoot: the engines make a new volume's root directory root's,
// mode 0755 (rootless Podman: its user's, which is root inside the
// container).
func (c *Client) NewVolumeRoot() (uid, gid int, mode int64) { return 0, 0, 0o755 }
