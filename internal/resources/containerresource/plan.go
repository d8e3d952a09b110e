package containerresource

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/framework/base"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/framework/values"
)

// The engine questions ModifyPlan asks (engine.Facts, the backend's
// rules): what an engine cannot do is planned around here, at plan time,
// so that apply neither fails nor silently does less. The checks of one
// attribute group against the engine live in the group's file.

// planAroundEngine refuses what the backend's rules refuse, host paths
// the engine's host would hand over, and memory, CPUs, runtimes and limits
// the engine does not have or apply; and it plans a replacement for a
// change the backend cannot make in place.
func (r *Resource) planAroundEngine(ctx context.Context, plan, state map[string]tftypes.Value, resp *resource.ModifyPlanResponse) {
	if r.Client == nil || unchangedPlan(plan, state) {
		return
	}
	resp.Diagnostics.Append(base.Refusals(r.Client.RefuseSandbox(ctx, plannedSandbox(plan)))...)
	facts, err := r.Client.Facts(ctx)
	r.planHostPaths(ctx, facts, err, resp)
	if err != nil {
		resp.Diagnostics.AddWarning("Engine limits not checked", fmt.Sprintf(
			"Asking %s how much memory, how many CPUs and which runtimes it has, and which "+
				"limits it applies failed (%v), so the plan could not check memory, cpus, runtime and the limits "+
				"against them. Create still checks that the engine applied what was asked.", r.Client.Where(), err))
		return
	}
	r.checkAgainstEngine(plan, facts, resp)
	r.refusePause(plan, facts, resp)
	refuseUnenforcedLimits(plan, facts.Enforces, r.Client.Endpoint(), resp)
	if state == nil {
		r.warnUserNamespaces(ctx, plan["security_opts"], facts.Seccomp, resp)
		return
	}
	r.planFixed(ctx, plan, state, resp)
}

// unchangedPlan reports whether the plan keeps every value of the state:
// no sandbox is made or changed, so nothing is checked against the engine,
// and the plan of a configuration that has not changed asks it nothing
// (Podman answers a request for its facts by running its host's package
// manager a few times: most of its CPU in a test run).
func unchangedPlan(plan, state map[string]tftypes.Value) bool {
	if state == nil || len(plan) != len(state) {
		return false
	}
	for name, value := range plan {
		if was, ok := state[name]; !ok || !value.Equal(was) {
			return false
		}
	}
	return true
}

// warnUserNamespaces warns as the function of privileges.go does, with the engine's
// default filter read where its Facts leave out which profile it is
// (Podman), and only when the sandbox names no profile of its own.
func (r *Resource) warnUserNamespaces(ctx context.Context, opts tftypes.Value, s engine.Seccomp, resp *resource.ModifyPlanResponse) {
	if namesSeccomp(opts) || !opts.IsKnown() {
		return
	}
	if d, ok := r.Client.(engine.SeccompDefaults); ok && s.Enabled {
		var err error
		if s, err = d.DefaultSeccomp(ctx); err != nil {
			resp.Diagnostics.AddAttributeWarning(path.Root("security_opts"), "Engine's seccomp profile not checked",
				fmt.Sprintf("Asking %s which seccomp profile it applies by default failed (%v), so the plan could "+
					"not check whether it lets the sandbox create user namespaces. Plan again once the engine "+
					"answers, or name a profile in security_opts.", r.Client.Where(), err))
			return
		}
	}
	warnUserNamespaces(opts, s, r.Client.Endpoint(), resp)
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
				"means 512 MiB (536870912 would be 512 TiB). Lower memory to what the engine has.", v, engineMiB,
			r.Client.Endpoint()))
	}
	if v, ok := values.RawNumber(plan["cpus"]); ok && facts.NCPU > 0 && v > float64(facts.NCPU) {
		resp.Diagnostics.AddAttributeError(path.Root("cpus"), "More CPUs than the engine has", fmt.Sprintf(
			"cpus = %g is more than the %d CPUs of the engine at %s. cpus counts CPUs: 0.5 is half of one "+
				"(500 would be 500 CPUs, not 500 millicores). Lower cpus to what the engine has.", v, facts.NCPU,
			r.Client.Endpoint()))
	}
	// A runtime the backend's rules refused already is not refused twice.
	if runtime := values.RawString(plan["runtime"]); runtime != "" && len(facts.Runtimes) > 0 &&
		!errorAt(resp.Diagnostics, path.Root("runtime")) {
		if _, ok := facts.Runtimes[runtime]; !ok {
			resp.Diagnostics.AddAttributeError(path.Root("runtime"), "Runtime unknown to the engine", fmt.Sprintf(
				"runtime = %q is not among the runtimes of the engine at %s: %s. Use one of those names, or "+
					"register the runtime with the engine (for gVisor, the provider's gVisor guide shows how on "+
					"Docker and on Podman).", runtime, r.Client.Endpoint(),
				strings.Join(slices.Sorted(maps.Keys(facts.Runtimes)), ", ")))
		}
	}
}

// errorAt says whether diags hold an error on the attribute at.
func errorAt(diags diag.Diagnostics, at path.Path) bool {
	for _, d := range diags {
		if withPath, ok := d.(diag.DiagnosticWithPath); ok && d.Severity() == diag.SeverityError && withPath.Path().Equal(at) {
			return true
		}
	}
	return false
}
