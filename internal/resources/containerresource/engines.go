package containerresource

import (
	"context"
	"fmt"
	"maps"
	"math/big"
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
	if r.Client == nil {
		return
	}
	if runtime := plan["runtime"]; runtime.IsKnown() && !runtime.IsNull() && !r.Client.HonoursRuntime(ctx) {
		var name string
		_ = runtime.As(&name)
		resp.Diagnostics.AddAttributeError(path.Root("runtime"), "Runtime not honoured by this engine", fmt.Sprintf(
			"The engine at %s is %s, whose Docker-compatible API ignores the runtime a container asks for and "+
				"runs its own default runtime, so runtime = %q would not be honoured. Remove runtime and make "+
				"the runtime Podman's default on that host (containers.conf: [engine] runtime = \"runsc\"), or "+
				"place this sandbox on a Docker engine.", r.Client.Endpoint(), r.Client.Kind(ctx), name))
	}
	if r.Client.Kind(ctx) == engine.Podman {
		refuseTmpfsOwners(plan["tmpfs"], resp)
		refuseInlineSeccomp(plan["security_opts"], resp)
	}
	facts, err := r.Client.Facts(ctx)
	if err != nil {
		resp.Diagnostics.AddWarning("Engine limits not checked", fmt.Sprintf(
			"The engine at %s did not say how much memory, how many CPUs and which runtimes it has (%v), so "+
				"the plan could not check memory, cpus and runtime against them.", r.Client.Endpoint(), err))
		return
	}
	r.checkAgainstEngine(plan, facts, resp)
	if state == nil {
		return
	}
	if !r.Client.CanUpdateLimits(ctx) && !plan["restart"].Equal(state["restart"]) {
		resp.RequiresReplace.Append(path.Root("restart"))
	}
	runtime := stringValue(state["runtime"])
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
	if !r.Client.CanUpdateLimits(ctx) {
		why = fmt.Sprintf("the engine at %s is %s, whose Docker-compatible API cannot change a container's "+
			"limits", r.Client.Endpoint(), r.Client.Kind(ctx))
	}
	resp.Diagnostics.AddWarning("Limit change replaces the sandbox", fmt.Sprintf(
		"Changing %s replaces the sandbox with a new one that has the new limits: %s.",
		strings.Join(changed, ", "), why))
}

// checkAgainstEngine refuses, at plan time, memory and CPUs the engine does
// not have and a runtime it does not know: the usual mistakes are bytes
// for MiB and millicores for CPUs.
func (r *Resource) checkAgainstEngine(plan map[string]tftypes.Value, facts engine.Facts, resp *resource.ModifyPlanResponse) {
	// memory_swap is left alone: with swap on the host it may exceed memory.
	engineMiB := facts.MemTotal / mib
	if v, ok := numberValue(plan["memory"]); ok && facts.MemTotal > 0 && v > float64(engineMiB) {
		resp.Diagnostics.AddAttributeError(path.Root("memory"), "More memory than the engine has", fmt.Sprintf(
			"memory = %.0f MiB is more than the %d MiB of memory the engine at %s has. memory is in MiB: 512 "+
				"means 512 MiB (536870912 would be 512 TiB).", v, engineMiB, r.Client.Endpoint()))
	}
	if v, ok := numberValue(plan["cpus"]); ok && facts.NCPU > 0 && v > float64(facts.NCPU) {
		resp.Diagnostics.AddAttributeError(path.Root("cpus"), "More CPUs than the engine has", fmt.Sprintf(
			"cpus = %g is more than the %d CPUs of the engine at %s. cpus counts CPUs: 0.5 is half of one "+
				"(500 would be 500 CPUs, not 500 millicores).", v, facts.NCPU, r.Client.Endpoint()))
	}
	if runtime := stringValue(plan["runtime"]); plan["runtime"].IsKnown() && facts.IsGVisor(runtime) {
		checkGVisor(plan, resp)
	}
	if runtime := stringValue(plan["runtime"]); runtime != "" && len(facts.Runtimes) > 0 {
		if _, ok := facts.Runtimes[runtime]; !ok {
			resp.Diagnostics.AddAttributeError(path.Root("runtime"), "Runtime unknown to the engine", fmt.Sprintf(
				"runtime = %q is not among the runtimes of the engine at %s: %s. Use one of those names, or "+
					"register the runtime with the engine (for gVisor: `make runsc`, or runsc in "+
					"/etc/docker/daemon.json's runtimes).", runtime, r.Client.Endpoint(),
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

// stringValue is a known string's value, else "".
func stringValue(v tftypes.Value) string {
	var s string
	if !v.IsKnown() || v.IsNull() || v.As(&s) != nil {
		return ""
	}
	return s
}

// numberValue is a known number's value.
func numberValue(v tftypes.Value) (float64, bool) {
	var n big.Float
	if !v.IsKnown() || v.IsNull() || v.As(&n) != nil {
		return 0, false
	}
	f, _ := n.Float64()
	return f, true
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

// Under gVisor the memory limit covers the whole sandbox, its user-space
// kernel included, which needs about 16 MiB to start; a sandbox over its
// memory goes down as a whole. pids_limit means what it means under runc:
// gVisor's own kernel enforces it as the nproc ulimit (engine/gvisor.go).
const gVisorMinMemoryMiB = 32

// checkGVisor refuses memory too small for a gVisor sandbox, and an nproc
// ulimit that would loosen pids_limit, which gVisor enforces as that
// ulimit.
func checkGVisor(plan map[string]tftypes.Value, resp *resource.ModifyPlanResponse) {
	pids, hasPids := numberValue(plan["pids_limit"])
	if nproc, ok := ulimitHard(plan["ulimits"], "nproc"); ok && hasPids && nproc > pids {
		resp.Diagnostics.AddAttributeError(path.Root("ulimits").AtMapKey("nproc").AtName("hard"),
			"nproc above pids_limit under gVisor", fmt.Sprintf(
				"ulimits.nproc.hard = %.0f is above pids_limit = %.0f. Under gVisor the provider enforces "+
					"pids_limit inside the sandbox as the nproc ulimit, so a larger nproc would let the sandbox "+
					"run more processes than pids_limit. Remove ulimits.nproc, or set it to at most %.0f.",
				nproc, pids, pids))
	}
	if v, ok := numberValue(plan["memory"]); ok && v < gVisorMinMemoryMiB {
		resp.Diagnostics.AddAttributeError(path.Root("memory"), "memory too small for gVisor", fmt.Sprintf(
			"memory = %.0f MiB is below %d MiB, the least a gVisor sandbox works with: under runsc the limit "+
				"also covers gVisor's own kernel, which needs about 16 MiB to start. Set memory to at least %d.",
			v, gVisorMinMemoryMiB, gVisorMinMemoryMiB))
	}
}

// ulimitHard is the hard value of the named ulimit in a planned ulimits
// map, when it is known.
func ulimitHard(ulimits tftypes.Value, name string) (float64, bool) {
	var entries map[string]tftypes.Value
	if !ulimits.IsFullyKnown() || ulimits.IsNull() || ulimits.As(&entries) != nil {
		return 0, false
	}
	var fields map[string]tftypes.Value
	if entry, ok := entries[name]; !ok || entry.As(&fields) != nil {
		return 0, false
	}
	return numberValue(fields["hard"])
}
