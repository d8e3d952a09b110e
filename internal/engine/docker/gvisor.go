package docker

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"

	"github.com/docker/docker/api/types/container"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
)

// A pids limit under gVisor (runsc).
//
// The engine applies a pids limit as the host's pids cgroup, which under
// runc counts the processes and threads of the sandbox. Under gVisor the
// sandbox's processes live inside gVisor's user-space kernel, and the host
// cgroup counts that kernel's own threads and helper processes instead:
// about 40 when idle and, on the ptrace platform, about 8 more per process
// inside. A limit of 128 there allowed about a dozen processes.
//
// So under gVisor the provider gives the limit the meaning it has under
// runc by asking gVisor's own kernel to enforce it: RLIMIT_NPROC (the
// nproc ulimit), which gVisor applies to every user of the sandbox, root
// included. The host cgroup keeps a backstop sized for gVisor's threads
// (GVisorHostPids), so that a sandbox switching between users still cannot
// exhaust the host's process table. A label records the limit asked for;
// inspecting the container reads it back as the pids limit, so state,
// import and drift see the same number under both runtimes.

// labelGVisorPids records, on a container created under gVisor, the pids
// limit asked for (the nproc ulimit inside), whose host backstop the
// engine shows.
const labelGVisorPids = "tfsandbox.gvisor-pids-limit"

// forRuntime returns spec as the engine must be asked for it under its
// runtime: under gVisor a pids limit becomes the nproc ulimit inside (unless
// the spec sets one itself) and a host backstop (see above). Knowing the
// runtime takes the engine's facts, asked once per client, and only when a
// pids limit is set.
func (c *Client) forRuntime(ctx context.Context, spec engine.ContainerSpec) (engine.ContainerSpec, error) {
	if spec.Limits.PidsLimit <= 0 {
		return spec, nil
	}
	facts, err := c.Facts(ctx)
	if err != nil {
		return spec, fmt.Errorf("cannot tell whether the runtime is gVisor, whose pids limit is set differently: %w", err)
	}
	if !facts.IsGVisor(spec.Runtime) {
		return spec, nil
	}
	pids := spec.Limits.PidsLimit
	spec.Limits.PidsLimit = engine.GVisorHostPids(pids)
	if !slices.ContainsFunc(spec.Ulimits, func(u engine.Ulimit) bool { return u.Name == "nproc" }) {
		spec.Ulimits = append(slices.Clone(spec.Ulimits), engine.Ulimit{Name: "nproc", Soft: pids, Hard: pids})
	}
	spec.Labels = maps.Clone(spec.Labels)
	if spec.Labels == nil {
		spec.Labels = map[string]string{}
	}
	spec.Labels[labelGVisorPids] = strconv.FormatInt(pids, 10)
	return spec, nil
}

// readGVisorPids shows a gVisor sandbox's pids limit as the one asked for,
// when the host backstop is still the one that limit gave it. A backstop
// changed behind the provider's back shows as it is.
func readGVisorPids(c *container.InspectResponse) {
	if c.Config == nil || c.ContainerJSONBase == nil || c.HostConfig == nil || c.HostConfig.PidsLimit == nil {
		return
	}
	pids, err := strconv.ParseInt(c.Config.Labels[labelGVisorPids], 10, 64)
	if err != nil || pids <= 0 || *c.HostConfig.PidsLimit != engine.GVisorHostPids(pids) {
		return
	}
	c.HostConfig.PidsLimit = &pids
}
