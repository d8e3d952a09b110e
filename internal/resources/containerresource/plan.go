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
	if r.Client == nil {
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
		warnUserNamespaces(plan["security_opts"], facts.Seccomp, r.Client.Endpoint(), resp)
		return
	}
	r.planFixed(ctx, plan, state, resp)
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
