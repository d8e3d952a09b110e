package container

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
)

// What an engine cannot do through the Docker API is planned around here,
// at plan time, so that apply neither fails nor silently does less.

// inPlaceLimits are the attributes Update changes in place on an engine
// that can update a container's limits.
var inPlaceLimits = []string{"memory", "memory_swap", "cpus", "pids_limit"}

// planAroundEngine refuses a runtime the engine would ignore, and plans a
// replacement for a limit change the engine cannot make in place.
func (r *Resource) planAroundEngine(ctx context.Context, plan, state map[string]tftypes.Value, resp *resource.ModifyPlanResponse) {
	if r.client == nil {
		return
	}
	if runtime := plan["runtime"]; runtime.IsKnown() && !runtime.IsNull() && !r.client.HonoursRuntime(ctx) {
		var name string
		_ = runtime.As(&name)
		resp.Diagnostics.AddAttributeError(path.Root("runtime"), "Runtime not honoured by this engine", fmt.Sprintf(
			"The engine at %s is %s, whose Docker-compatible API ignores the runtime a container asks for and "+
				"runs its own default runtime, so runtime = %q would not be honoured. Remove runtime and make "+
				"the runtime Podman's default on that host (containers.conf: [engine] runtime = \"runsc\"), or "+
				"place this sandbox on a Docker engine.", r.client.Endpoint(), r.client.Kind(ctx), name))
	}
	if r.client.Kind(ctx) == engine.Podman {
		refuseTmpfsOwners(plan["tmpfs"], resp)
		refuseInlineSeccomp(plan["security_opts"], resp)
	}
	if state == nil || r.client.CanUpdateLimits(ctx) {
		return
	}
	for _, name := range inPlaceLimits {
		if !plan[name].Equal(state[name]) {
			resp.RequiresReplace.Append(path.Root(name))
		}
	}
}

// refuseTmpfsOwners refuses the uid= and gid= tmpfs options, which Podman
// 4 rejects at create.
func refuseTmpfsOwners(tmpfs tftypes.Value, resp *resource.ModifyPlanResponse) {
	var mounts map[string]tftypes.Value
	if !tmpfs.IsKnown() || tmpfs.IsNull() || tmpfs.As(&mounts) != nil {
		return
	}
	for _, target := range slices.Sorted(maps.Keys(mounts)) {
		var options string
		if !mounts[target].IsKnown() || mounts[target].As(&options) != nil {
			continue
		}
		for _, opt := range strings.Split(options, ",") {
			if strings.HasPrefix(opt, "uid=") || strings.HasPrefix(opt, "gid=") {
				resp.Diagnostics.AddAttributeError(path.Root("tmpfs").AtMapKey(target), "tmpfs option not accepted by Podman",
					fmt.Sprintf("Podman 4 does not accept the tmpfs option %q (in %q). Give the mount mode=1777 "+
						"so that a non-root user can write to it, or place this sandbox on a Docker engine.", opt, target))
			}
		}
	}
}

// refuseInlineSeccomp refuses a seccomp profile given inline, which Podman
// 4 reads as the path of a file on its own host.
func refuseInlineSeccomp(opts tftypes.Value, resp *resource.ModifyPlanResponse) {
	var list []tftypes.Value
	if !opts.IsKnown() || opts.IsNull() || opts.As(&list) != nil {
		return
	}
	for _, v := range list {
		var opt string
		if !v.IsKnown() || v.As(&opt) != nil {
			continue
		}
		if key, value, _ := splitSecurityOpt(opt); key == "seccomp" && value != "unconfined" {
			resp.Diagnostics.AddAttributeError(path.Root("security_opts"), "Seccomp profile not accepted by Podman",
				"Podman 4 reads a seccomp= value as the path of a profile on its own host, so the profile given "+
					"here cannot reach it. Set the profile on the Podman host (containers.conf: [containers] "+
					"seccomp_profile) and leave it out of security_opts, or place this sandbox on a Docker engine.")
			return
		}
	}
}
