package containerresource

import (
	"context"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/framework/base"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/framework/values"
)

// What the backend refuses of a sandbox, and what it cannot change in
// place, are its own (engine.Rules); the plan asks them here with what it
// knows of the sandbox, and the backend asks them again at apply with the
// whole spec.

// plannedSandbox is the sandbox as the plan knows it, for the backend's
// rules: only known values in the spec (of the limits, those gVisor's
// rules read), the attributes that a rule refuses whatever their value in
// Set, and in Unknown a runtime known only at apply. Files are asked about
// once they are counted (planFiles).
func plannedSandbox(plan map[string]tftypes.Value) engine.PlannedSandbox {
	p := engine.PlannedSandbox{
		Spec: engine.ContainerSpec{
			Name:        values.RawString(plan["name"]),
			User:        values.RawString(plan["user"]),
			Runtime:     values.RawString(plan["runtime"]),
			SecurityOpt: values.RawStrings(plan["security_opts"]),
			Tmpfs:       values.RawStringMap(plan["tmpfs"]),
			Mounts:      plannedHostPaths(plan["mounts"]),
		},
		Set: engine.Attributes{},
	}
	if !plan["runtime"].IsKnown() {
		p.Unknown = map[string]bool{"runtime": true}
	}
	if v, ok := values.RawNumber(plan["memory"]); ok {
		p.Spec.Limits.Memory = int64(v) * mib
	}
	if v, ok := values.RawNumber(plan["pids_limit"]); ok {
		p.Spec.Limits.PidsLimit = int64(v)
	}
	if hard, ok := ulimitHard(plan["ulimits"], "nproc"); ok {
		p.Spec.Ulimits = []engine.Ulimit{{Name: "nproc", Hard: int64(hard)}}
	}
	for _, attr := range []string{"ports", "shm_size"} {
		if v, ok := plan[attr]; ok && !v.IsNull() {
			p.Set[attr] = true
		}
	}
	if want := plan["state"]; want.IsKnown() && values.RawString(want) == statePaused {
		p.Paused = true
	}
	p.Expiry = expiryAttribute(plan)
	return p
}

// plannedHostPaths are the planned mounts whose host path is known.
func plannedHostPaths(mounts tftypes.Value) []engine.Mount {
	var byTarget map[string]tftypes.Value
	if !mounts.IsKnown() || mounts.IsNull() || mounts.As(&byTarget) != nil {
		return nil
	}
	var out []engine.Mount
	for target, v := range byTarget {
		var m map[string]tftypes.Value
		if v.As(&m) == nil {
			if hostPath := values.RawString(m["host_path"]); hostPath != "" {
				out = append(out, engine.Mount{Target: target, HostPath: hostPath})
			}
		}
	}
	return out
}

// planFixed replaces the sandbox for a change the backend cannot make in
// place, and says why where the backend does (a limit change).
func (r *Resource) planFixed(ctx context.Context, plan, state map[string]tftypes.Value, resp *resource.ModifyPlanResponse) {
	for _, fixed := range r.Client.FixedInPlace(ctx, values.RawString(state["runtime"])) {
		var changed []string
		for _, name := range fixed.Attributes {
			if !plan[name].Equal(state[name]) {
				resp.RequiresReplace.Append(path.Root(name))
				changed = append(changed, name)
			}
		}
		if len(changed) > 0 && fixed.Why != "" {
			resp.Diagnostics.AddWarning("Limit change replaces the sandbox", fmt.Sprintf(
				"Changing %s replaces the sandbox with a new one that has the new limits: %s. Keep the old "+
					"value to keep the sandbox.",
				strings.Join(changed, ", "), fixed.Why))
		}
	}
}

// planFiles refuses, once the plan counted them, files the backend cannot
// give the sandbox (a cluster's Secret holds at most about 1 MiB): total
// is their size in bytes.
func (r *Resource) planFiles(ctx context.Context, total int, resp *resource.ModifyPlanResponse) {
	if r.Client == nil {
		return
	}
	resp.Diagnostics.Append(base.Refusals(r.Client.RefuseSandbox(ctx, engine.PlannedSandbox{FilesBytes: total}))...)
}
