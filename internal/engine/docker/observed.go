package docker

import (
	"strconv"

	"github.com/docker/docker/api/types/container"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
)

// observed is the seam's view of the engine's inspect data (after
// normalize): what the resources read back. The network and the other
// namespaces are observedNetwork's.
func observed(info container.InspectResponse) engine.Container {
	if info.ContainerJSONBase == nil {
		return engine.Container{}
	}
	c := engine.Container{
		ID: info.ID, Name: info.Name, Created: info.Created, Image: info.Image, RestartCount: info.RestartCount,
	}
	if s := info.State; s != nil {
		c.State = &engine.ContainerState{
			Status: s.Status, Running: s.Running, Paused: s.Paused, Restarting: s.Restarting,
			OOMKilled: s.OOMKilled, ExitCode: s.ExitCode, StartedAt: s.StartedAt, FinishedAt: s.FinishedAt,
			Error: s.Error,
		}
	}
	if cfg := info.Config; cfg != nil {
		c.Config = &engine.ContainerConfig{
			Image: cfg.Image, Entrypoint: cfg.Entrypoint, Cmd: cfg.Cmd, Env: cfg.Env, Labels: cfg.Labels,
			User: cfg.User, WorkingDir: cfg.WorkingDir, Hostname: cfg.Hostname,
		}
		c.ExpiresAt = engine.ExpiryOf(cfg.Labels)
	}
	if h := info.HostConfig; h != nil {
		c.HostConfig = &engine.HostConfig{
			Privileged: h.Privileged, CapAdd: h.CapAdd, CapDrop: h.CapDrop, SecurityOpt: h.SecurityOpt,
			ReadonlyRootfs: h.ReadonlyRootfs, Init: h.Init, Runtime: h.Runtime, Memory: h.Memory,
			MemorySwap: h.MemorySwap, NanoCPUs: h.NanoCPUs, PidsLimit: h.PidsLimit, ShmSize: h.ShmSize,
			Tmpfs: h.Tmpfs, RestartPolicy: string(h.RestartPolicy.Name), PortBindings: observedPorts(h),
		}
		for _, u := range h.Ulimits {
			if u != nil {
				c.HostConfig.Ulimits = append(c.HostConfig.Ulimits, engine.Ulimit{Name: u.Name, Soft: u.Soft, Hard: u.Hard})
			}
		}
	}
	for _, m := range info.Mounts {
		c.Mounts = append(c.Mounts, engine.MountPoint{
			Type: string(m.Type), Name: m.Name, Source: m.Source, Destination: m.Destination, RW: m.RW,
		})
	}
	return c
}

// observedPorts are the port bindings the engine shows.
func observedPorts(h *container.HostConfig) []engine.PortBinding {
	var out []engine.PortBinding
	for key, bindings := range h.PortBindings {
		for _, b := range bindings {
			hostPort, _ := strconv.Atoi(b.HostPort)
			out = append(out, engine.PortBinding{Port: key.Int(), Protocol: key.Proto(), HostIP: b.HostIP, HostPort: hostPort})
		}
	}
	return out
}
