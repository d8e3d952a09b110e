package docker

import (
	"context"
	"maps"
	"regexp"
	"strings"
	"time"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/filters"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/isolation"
)

// CreateContainer creates (but does not start) a container and returns its ID.
func (c *Client) CreateContainer(ctx context.Context, spec engine.ContainerSpec) (string, error) {
	spec, err := c.forRuntime(ctx, spec)
	if err != nil {
		return "", err
	}
	// The engine's time binds the create token to the container the
	// engine makes now (engine/madeby.go).
	labels := maps.Clone(spec.Labels)
	if labels[engine.LabelCreateToken] != "" {
		labels[engine.LabelMadeAt] = engine.MadeAt(c.engineNow(ctx))
	}
	cfg := &container.Config{
		Image:        spec.Image,
		Entrypoint:   spec.Entrypoint,
		Cmd:          spec.Command,
		Env:          spec.Env,
		Labels:       labels,
		WorkingDir:   spec.WorkingDir,
		User:         spec.User,
		ExposedPorts: exposedPorts(spec.Ports),
	}
	var id string
	makeCtx, cancel := engine.Uncancelled(ctx)
	defer cancel()
	err = c.within(makeCtx, "the request to create a container", engine.SlowCallTimeout, func(ctx context.Context) error {
		resp, err := c.api.ContainerCreate(ctx, cfg, hostConfig(spec), nil, nil, spec.Name)
		id = resp.ID
		return err
	})
	if err != nil && spec.Name != "" && !engine.IsConflict(err) && !engine.IsNotFound(err) && !engine.IsUnanswered(err) &&
		c.nameTakenByAnother(ctx, spec) {
		// Podman answers a name in use with a server error, not a conflict.
		err = nameInUse{err}
	}
	return id, err
}

// nameTakenByAnother reports whether a container other than the one this
// create would have made (its token label says which) has spec's name.
func (c *Client) nameTakenByAnother(ctx context.Context, spec engine.ContainerSpec) bool {
	other, err := c.InspectContainer(ctx, spec.Name)
	return err == nil && (other.Config == nil || other.Config.Labels[engine.LabelCreateToken] != spec.Labels[engine.LabelCreateToken])
}

// nameInUse classifies an engine's refusal as a conflict.
type nameInUse struct{ error }

func (nameInUse) Conflict() {}

func (e nameInUse) Unwrap() error { return e.error }

// hostConfig is the part of spec the engine applies on the host: network,
// privileges, mounts and limits.
func hostConfig(spec engine.ContainerSpec) *container.HostConfig {
	h := &container.HostConfig{
		NetworkMode:    container.NetworkMode(spec.NetworkMode),
		Init:           &spec.Init,
		CapAdd:         spec.CapAdd,
		CapDrop:        spec.CapDrop,
		SecurityOpt:    spec.SecurityOpt,
		ReadonlyRootfs: spec.ReadOnly,
		Tmpfs:          spec.Tmpfs,
		Runtime:        spec.Runtime,
		ShmSize:        spec.ShmSize,
		Resources:      resources(spec.Limits),
		PortBindings:   portBindings(spec.Ports),
		RestartPolicy:  container.RestartPolicy{Name: container.RestartPolicyMode(spec.Restart)},
	}
	for _, m := range spec.Mounts {
		addMount(h, m)
	}
	for _, u := range spec.Ulimits {
		h.Ulimits = append(h.Ulimits, &container.Ulimit{Name: u.Name, Soft: u.Soft, Hard: u.Hard})
	}
	return h
}

func resources(l engine.Limits) container.Resources {
	r := container.Resources{Memory: l.Memory, MemorySwap: l.MemorySwap, NanoCPUs: l.NanoCPUs}
	if l.PidsLimit != 0 {
		r.PidsLimit = &l.PidsLimit
	}
	return r
}

// updateLimits changes the resource limits of a container, running or not:
// Docker.UpdateLimits (Podman's Docker-compatible API cannot).
// The engine cannot lift a memory or CPU limit this way (zero means "leave
// as is" to it), so callers replace the container for that.
func (c *Client) updateLimits(ctx context.Context, id string, l engine.Limits) error {
	return c.within(ctx, "the request to update a container's limits", engine.QuickCallTimeout, func(ctx context.Context) error {
		_, err := c.api.ContainerUpdate(ctx, id, container.UpdateConfig{Resources: resources(l)})
		return err
	})
}

// ContainersCreatedWith returns the IDs of the containers, running or not,
// that the provider created with the create token (those that inherited
// it from an image they were run from are not: provenance.go).
func (c *Client) ContainersCreatedWith(ctx context.Context, token string) ([]string, error) {
	var ids []string
	err := c.within(ctx, "the request to list containers", engine.QuickCallTimeout, func(ctx context.Context) error {
		list, err := c.api.ContainerList(ctx, container.ListOptions{
			All: true, Filters: filters.NewArgs(filters.Arg("label", engine.LabelCreateToken+"="+token)),
		})
		if err != nil {
			return err
		}
		if list, err = c.createdByProvider(ctx, list); err != nil {
			return err
		}
		for _, s := range list {
			ids = append(ids, s.ID)
		}
		return nil
	})
	return ids, err
}

// InspectContainer returns the engine's data for a container, by ID or name.
func (c *Client) InspectContainer(ctx context.Context, idOrName string) (engine.Sandbox, error) {
	var info container.InspectResponse
	err := c.reread(ctx, "the request to inspect a container", func(ctx context.Context) error {
		var err error
		info, err = c.api.ContainerInspect(ctx, idOrName)
		return err
	})
	if err != nil {
		return engine.Sandbox{}, err
	}
	normalize(c.Kind(ctx), &info)
	readGVisorPids(&info)
	return engine.Sandbox{Container: observed(info), Network: observedNetwork(info)}, nil
}

// observedNetwork is what the engine shows of a container's network (its
// network mode and the networks it is attached to) and of its other
// namespaces (the PID, IPC and UTS modes).
func observedNetwork(c container.InspectResponse) isolation.Observed {
	a := &isolation.Attachments{Reported: c.ContainerJSONBase != nil && c.HostConfig != nil}
	if a.Reported {
		h := c.HostConfig
		a.Mode = string(h.NetworkMode)
		a.PID, a.IPC, a.UTS = string(h.PidMode), string(h.IpcMode), string(h.UTSMode)
	}
	if c.NetworkSettings != nil {
		for name := range c.NetworkSettings.Networks {
			a.Networks = append(a.Networks, name)
		}
	}
	return isolation.Observed{Attachments: a}
}

// StartContainer starts a created or stopped container.
func (c *Client) StartContainer(ctx context.Context, id string) error {
	return c.within(ctx, "the request to start a container", engine.SlowCallTimeout, func(ctx context.Context) error {
		return c.api.ContainerStart(ctx, id, container.StartOptions{})
	})
}

// UnpauseContainer resumes a paused container.
func (c *Client) UnpauseContainer(ctx context.Context, id string) error {
	return c.within(ctx, "the request to unpause a container", engine.QuickCallTimeout, func(ctx context.Context) error {
		return c.api.ContainerUnpause(ctx, id)
	})
}

// PauseContainer freezes a container's processes (the cgroup freezer)
// until UnpauseContainer. A pause the engine fails with an error of its
// own (not a gone or stopped container) is asked for again: runc gives up
// ("unable to freeze") when the container's processes do not all stop
// within its few tries, as a busy writer's did on a loaded machine, and
// thaws it; a later try holds.
func (c *Client) PauseContainer(ctx context.Context, id string) error {
	var err error
	for attempt := 1; ; attempt++ {
		err = c.within(ctx, "the request to pause a container", engine.QuickCallTimeout, func(ctx context.Context) error {
			return c.api.ContainerPause(ctx, id)
		})
		if err == nil || attempt == pauseAttempts || !cerrdefs.IsInternal(err) || ctx.Err() != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(time.Duration(attempt) * pauseRetryPause):
		}
	}
}

// pauseAttempts is how many times a pause is asked for in all.
const pauseAttempts = 3

// pauseRetryPause is the wait before the second try, and grows by as much
// before each after it. A variable for the tests.
var pauseRetryPause = 200 * time.Millisecond

// StopContainer sends the container's stop signal, waits up to graceSeconds
// for it to exit, then kills it. A container that is gone counts as stopped.
func (c *Client) StopContainer(ctx context.Context, id string, graceSeconds int) error {
	limit := time.Duration(graceSeconds)*time.Second + stopMargin
	err := c.within(ctx, "the request to stop a container", limit, func(ctx context.Context) error {
		return c.api.ContainerStop(ctx, id, container.StopOptions{Timeout: &graceSeconds})
	})
	if err != nil && !engine.IsNotFound(err) {
		return err
	}
	return nil
}

// RemoveContainer force-removes a container and its anonymous volumes. A
// container that is already gone counts as removed.
func (c *Client) RemoveContainer(ctx context.Context, id string) error {
	var err error
	for attempt := range removeAttempts {
		err = c.within(ctx, "the request to remove a container", engine.SlowCallTimeout, func(ctx context.Context) error {
			return c.api.ContainerRemove(ctx, id, container.RemoveOptions{Force: true, RemoveVolumes: true})
		})
		// Podman's forced removal of a container its restart policy is
		// restarting in a loop fails now and then, as a conflict or an
		// internal error ("container state improper"): the state moved
		// under it. Ask again.
		if !stateMovedUnder(err) || attempt == removeAttempts-1 {
			break
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(300 * time.Millisecond):
		}
	}
	if err != nil && !engine.IsNotFound(err) {
		return err
	}
	return nil
}

// removeAttempts bounds how many times RemoveContainer asks.
const removeAttempts = 5

// RenameContainer gives a container a new name.
func (c *Client) RenameContainer(ctx context.Context, id, name string) error {
	return c.within(ctx, "the request to rename a container", engine.QuickCallTimeout, func(ctx context.Context) error {
		return c.api.ContainerRename(ctx, id, name)
	})
}

// updateRestartPolicy changes a container's restart policy in place:
// Docker.UpdateRestartPolicy (Podman's Docker-compatible API cannot).
func (c *Client) updateRestartPolicy(ctx context.Context, id, policy string) error {
	return c.within(ctx, "the request to update a container's restart policy", engine.QuickCallTimeout, func(ctx context.Context) error {
		_, err := c.api.ContainerUpdate(ctx, id, container.UpdateConfig{
			RestartPolicy: container.RestartPolicy{Name: container.RestartPolicyMode(policy)},
		})
		return err
	})
}

// ManagedContainers returns the IDs of the containers, running or not,
// that this provider created (provenance.go) and that carry
// every label in labels, in one list call filtered by the engine. With
// namePrefix, only those whose name starts with it.
func (c *Client) ManagedContainers(ctx context.Context, labels map[string]string, namePrefix string) ([]string, error) {
	want := managedLabels(labels)
	args := labelArgs(want)
	if namePrefix != "" {
		// Docker matches the name with its leading slash, Podman without.
		args.Add("name", "^/?"+regexp.QuoteMeta(namePrefix))
	}
	var ids []string
	err := c.within(ctx, "the request to list containers", engine.QuickCallTimeout, func(ctx context.Context) error {
		list, err := c.api.ContainerList(ctx, container.ListOptions{All: true, Filters: args})
		if err != nil {
			return err
		}
		if list, err = c.createdByProvider(ctx, list); err != nil {
			return err
		}
		for _, s := range list {
			// A volume's seeding helper (seed.go) and the expiry warden
			// (warden.go) are no sandboxes.
			kind := s.Labels[engine.LabelResourceType]
			if hasPrefixName(s.Names, namePrefix) && engine.HasLabels(s.Labels, want) && kind != seedHelperType && kind != wardenType {
				ids = append(ids, s.ID)
			}
		}
		return nil
	})
	return ids, err
}

// hasPrefixName reports whether one of a container's names starts with
// prefix.
func hasPrefixName(names []string, prefix string) bool {
	for _, n := range names {
		if strings.HasPrefix(strings.TrimPrefix(n, "/"), prefix) {
			return true
		}
	}
	return false
}
