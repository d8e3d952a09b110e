package containerresource

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
	"github.com/tfsandbox/terraform-provider-sandbox/internal/framework/values"
)

// The engine questions ModifyPlan asks (engine.Facts, the engine's kind):
// what an engine cannot do through the Docker API is planned around here,
// at plan time, so that apply neither fails nor silently does less. The
// checks of one attribute group against the engine live in the group's
// file.

// inPlaceLimits are the attributes Update changes in place on an engine
// that can update a container's limits.
var inPlaceLimits = []string{"memory", "memory_swap", "cpus", "pids_limit"}

// planAroundEngine refuses a runtime the engine would ignore, and plans a
// replacement for a limit change the engine cannot make in place.
func (r *Resource) planAroundEngine(ctx context.Context, plan, state map[string]tftypes.Value, resp *resource.ModifyPlanResponse) {
	if r.Client == nil {
		return
	}
	r.refuseIgnoredRuntime(ctx, plan["runtime"], resp)
	kind := r.Client.Kind(ctx)
	if kind == engine.Podman {
		refuseTmpfsOwners(plan["tmpfs"], resp)
	}
	facts, err := r.Client.Facts(ctx)
	if kind == engine.Kubernetes && err == nil {
		r.planForCluster(plan, state, facts, resp)
	} else if kind != engine.Kubernetes {
		checkSeccompForEngine(plan["security_opts"], kind == engine.Podman, r.Client.Endpoint(), resp)
		r.planHostPaths(ctx, facts, err, resp)
	}
	if err != nil {
		resp.Diagnostics.AddWarning("Engine limits not checked", fmt.Sprintf(
			"Asking %s how much memory, how many CPUs and which runtimes it has, and which "+
				"limits it applies failed (%v), so the plan could not check memory, cpus, runtime and the limits "+
				"against them. Create still checks that the engine applied what was asked.", r.Client.Where(), err))
		return
	}
	r.checkAgainstEngine(plan, facts, resp)
	refuseUnenforcedLimits(plan, facts.Enforces, r.Client.Endpoint(), resp)
	if state == nil {
		warnUserNamespaces(plan["security_opts"], facts.Seccomp, r.Client.Endpoint(), resp)
		return
	}
	if !r.Client.CanUpdateLimits(ctx) && !plan["restart"].Equal(state["restart"]) {
		resp.RequiresReplace.Append(path.Root("restart"))
	}
	runtime := values.RawString(state["runtime"])
	inPlace := r.Client.CanUpdateLimits(ctx) && facts.UpdatesLimitsInPlace(runtime)
	if inPlace {
		return
	}
	var changed []string
	for _, name := range inPlaceLimits {
		if !plan[name].Equal(state[name]) {
			resp.RequiresReplace.Append(path.Root(name))
			changed = append(changed, name)
		}
	}
	if len(changed) == 0 {
		return
	}
	why := fmt.Sprintf("the sandbox runs under the runtime %q, which cannot change the limits of a running "+
		"sandbox (gVisor keeps the limits it started with)", runtimeName(runtime, facts))
	switch {
	case kind == engine.Kubernetes:
		why = fmt.Sprintf("the sandbox runs on %s, where a pod's limits are fixed once it is made", r.Client.Where())
	case !r.Client.CanUpdateLimits(ctx):
		why = fmt.Sprintf("the engine at %s is %s, whose Docker-compatible API cannot change a container's "+
			"limits", r.Client.Endpoint(), kind)
	}
	resp.Diagnostics.AddWarning("Limit change replaces the sandbox", fmt.Sprintf(
		"Changing %s replaces the sandbox with a new one that has the new limits: %s.",
		strings.Join(changed, ", "), why))
}

// refuseIgnoredRuntime refuses a runtime the engine would ignore.
func (r *Resource) refuseIgnoredRuntime(ctx context.Context, runtime tftypes.Value, resp *resource.ModifyPlanResponse) {
	if !runtime.IsKnown() || runtime.IsNull() || r.Client.HonoursRuntime(ctx) {
		return
	}
	var name string
	_ = runtime.As(&name)
	resp.Diagnostics.AddAttributeError(path.Root("runtime"), "Runtime not honoured by this engine", fmt.Sprintf(
		"The engine at %s is %s, whose Docker-compatible API ignores the runtime a container asks for and "+
			"runs its own default runtime, so runtime = %q would not be honoured. Remove runtime and make "+
			"the runtime Podman's default on that host (containers.conf: [engine] runtime = \"runsc\"), or "+
			"place this sandbox on a Docker engine.", r.Client.Endpoint(), r.Client.Kind(ctx), name))
}

// checkAgainstEngine refuses, at plan time, memory and CPUs the engine does
// not have and a runtime it does not know: the usual mistakes are bytes
// for MiB and millicores for CPUs.
func (r *Resource) checkAgainstEngine(plan map[string]tftypes.Value, facts engine.Facts, resp *resource.ModifyPlanResponse) {
	// memory_swap is left alone: with swap on the host it may exceed memory.
	engineMiB := facts.MemTotal / mib
	if v, ok := values.RawNumber(plan["memory"]); ok && facts.MemTotal > 0 && v > float64(engineMiB) {
		resp.Diagnostics.AddAttributeError(path.Root("memory"), "More memory than the engine has", fmt.Sprintf(
			"memory = %.0f MiB is more than the %d MiB of memory the engine at %s has. memory is in MiB: 512 "+
				"means 512 MiB (536870912 would be 512 TiB).", v, engineMiB, r.Client.Endpoint()))
	}
	if v, ok := values.RawNumber(plan["cpus"]); ok && facts.NCPU > 0 && v > float64(facts.NCPU) {
		resp.Diagnostics.AddAttributeError(path.Root("cpus"), "More CPUs than the engine has", fmt.Sprintf(
			"cpus = %g is more than the %d CPUs of the engine at %s. cpus counts CPUs: 0.5 is half of one "+
				"(500 would be 500 CPUs, not 500 millicores).", v, facts.NCPU, r.Client.Endpoint()))
	}
	if runtime := values.RawString(plan["runtime"]); plan["runtime"].IsKnown() && facts.IsGVisor(runtime) {
		checkGVisor(plan, resp)
	}
	if runtime := values.RawString(plan["runtime"]); runtime != "" && len(facts.Runtimes) > 0 {
		if _, ok := facts.Runtimes[runtime]; !ok {
			resp.Diagnostics.AddAttributeError(path.Root("runtime"), "Runtime unknown to the engine", fmt.Sprintf(
				"runtime = %q is not among the runtimes of the engine at %s: %s. Use one of those names, or "+
					"register the runtime with the engine (for gVisor: add runsc to the runtimes in "+
					"/etc/docker/daemon.json and reload the engine, as the provider's gVisor guide shows).", runtime, r.Client.Endpoint(),
				strings.Join(slices.Sorted(maps.Keys(facts.Runtimes)), ", ")))
		}
	}
}

func runtimeName(runtime string, facts engine.Facts) string {
	if runtime == "" {
		return facts.DefaultRuntime
	}
	return runtime
}
