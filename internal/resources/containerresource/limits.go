package containerresource

import (
	"fmt"
	"maps"
	"math"
	"slices"

	"github.com/hashicorp/terraform-plugin-framework-validators/float64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/mapvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/mapplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/framework/planmodifiers"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/framework/values"
)

const (
	mib            = 1 << 20
	nanoCPUsPerCPU = 1e9
	// engineDefaultShmMiB is the /dev/shm size the engine gives when none
	// is asked for.
	engineDefaultShmMiB = 64
	// minMemoryMiB is the engine's smallest memory limit.
	minMemoryMiB = 6
	// maxSizeMiB bounds every size in MiB (16 TiB), far above any host and
	// far below where MiB in bytes would overflow.
	maxSizeMiB = 1 << 24
	minCPUs    = 0.01
	// maxCPUs bounds cpus, so that CPUs in units of 10^-9 cannot overflow.
	maxCPUs = 1024
	// maxPids is the kernel's largest process ID (PID_MAX_LIMIT).
	maxPids = 1 << 22
)

// ulimitRequired says that soft and hard, optional in the schema, must be
// set (limitsModel.validate).
const ulimitRequired = "Must be set: the provider checks it instead of the schema, so that an entry " +
	"known only at apply is accepted."

// ulimitNames are the process limits the engine can set.
var ulimitNames = []string{
	"core", "cpu", "data", "fsize", "locks", "memlock", "msgqueue", "nice", "nofile", "nproc", "rss",
	"rtprio", "rttime", "sigpending", "stack",
}

var ulimitAttrTypes = map[string]attr.Type{"soft": types.Int64Type, "hard": types.Int64Type}

// limitsModel bounds what the sandbox can consume.
type limitsModel struct {
	Memory     types.Int64   `tfsdk:"memory"`
	MemorySwap types.Int64   `tfsdk:"memory_swap"`
	CPUs       types.Float64 `tfsdk:"cpus"`
	PidsLimit  types.Int64   `tfsdk:"pids_limit"`
	ShmSize    types.Int64   `tfsdk:"shm_size"`
	Ulimits    types.Map     `tfsdk:"ulimits"`
}

type ulimitModel struct {
	Soft types.Int64 `tfsdk:"soft"`
	Hard types.Int64 `tfsdk:"hard"`
}

// nullLimits knows nothing yet.
func nullLimits() limitsModel {
	return limitsModel{
		Memory:     types.Int64Null(),
		MemorySwap: types.Int64Null(),
		CPUs:       types.Float64Null(),
		PidsLimit:  types.Int64Null(),
		ShmSize:    types.Int64Null(),
		Ulimits:    types.MapNull(types.ObjectType{AttrTypes: ulimitAttrTypes}),
	}
}

func limitAttributes() map[string]schema.Attribute { //nolint:funlen // a schema literal
	inPlace := "Changing it is applied to the running sandbox and checked where the runtime and engine allow " +
		"(runc on Docker); under gVisor (`runsc`) and on Podman a change replaces the sandbox, and the plan " +
		"says why. Removing it forces replacement. The plan refuses more than the engine has."
	return map[string]schema.Attribute{
		"memory": schema.Int64Attribute{
			MarkdownDescription: fmt.Sprintf("Memory limit in MiB (%d to %d). The kernel kills processes of "+
				"the sandbox that would exceed it. When omitted, memory is not limited. Under gVisor (`runsc`) "+
				"it covers the whole sandbox, gVisor's own kernel included, must be at least 32, and "+
				"exceeding it kills the whole sandbox. %s", minMemoryMiB, maxSizeMiB, inPlace),
			Optional:      true,
			Validators:    []validator.Int64{int64validator.Between(minMemoryMiB, maxSizeMiB)},
			PlanModifiers: []planmodifier.Int64{planmodifiers.Int64RequiresReplaceWhenRemoved()},
		},
		"memory_swap": schema.Int64Attribute{
			MarkdownDescription: fmt.Sprintf("Memory plus swap limit in MiB, at least `memory`, which it "+
				"requires, and at most %d. When omitted it equals `memory`: the sandbox gets no swap. Changing or "+
				"removing it is applied to the running sandbox and checked.", maxSizeMiB),
			Optional: true,
			Validators: []validator.Int64{
				int64validator.Between(minMemoryMiB, maxSizeMiB),
				int64validator.AlsoRequires(path.MatchRelative().AtParent().AtName("memory")),
			},
		},
		"cpus": schema.Float64Attribute{
			MarkdownDescription: fmt.Sprintf("CPU limit as a number of CPUs, fractional (for example `0.5`), at "+
				"least `%g` and at most the engine's CPU count (and %d). When omitted, CPU is not limited. %s",
				minCPUs, maxCPUs, inPlace),
			Optional:      true,
			Validators:    []validator.Float64{float64validator.Between(minCPUs, maxCPUs)},
			PlanModifiers: []planmodifier.Float64{planmodifiers.Float64RequiresReplaceWhenRemoved()},
		},
		"pids_limit": schema.Int64Attribute{
			MarkdownDescription: fmt.Sprintf("Largest number of processes and threads the sandbox may run at "+
				"once (1 to %d), which stops fork bombs. When omitted, it is not limited. Under gVisor "+
				"(`runsc`) it means the same: gVisor's own kernel enforces it as the `nproc` ulimit, for each "+
				"user inside the sandbox (`ulimits.nproc` may set it lower), and the host bounds gVisor's own "+
				"threads at %d plus %d per process. %s", maxPids, engine.GVisorHostPids(0),
				engine.GVisorHostPids(1)-engine.GVisorHostPids(0), inPlace),
			Optional:      true,
			Validators:    []validator.Int64{int64validator.Between(1, maxPids)},
			PlanModifiers: []planmodifier.Int64{planmodifiers.Int64RequiresReplaceWhenRemoved()},
		},
		"shm_size": schema.Int64Attribute{
			MarkdownDescription: fmt.Sprintf("Size of `/dev/shm` in MiB (1 to %d). When omitted the engine "+
				"gives %d MiB. Changing it forces replacement.", maxSizeMiB, engineDefaultShmMiB),
			Optional:      true,
			Validators:    []validator.Int64{int64validator.Between(1, maxSizeMiB)},
			PlanModifiers: []planmodifier.Int64{int64planmodifier.RequiresReplace()},
		},
		"ulimits": schema.MapNestedAttribute{
			MarkdownDescription: "Process resource limits, by name: one of `" + joinCode(ulimitNames) +
				"`. Changing it forces replacement.",
			Optional:      true,
			PlanModifiers: []planmodifier.Map{mapplanmodifier.RequiresReplace()},
			Validators: []validator.Map{
				mapvalidator.SizeAtLeast(1),
				mapvalidator.KeysAre(stringvalidator.OneOf(ulimitNames...)),
			},
			// soft and hard are required, and checked in validate: the
			// framework's own check of a required attribute refuses an
			// entry whose whole object is known only at apply.
			NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
				"soft": schema.Int64Attribute{
					MarkdownDescription: "Soft limit (at least 0, at most `hard`). " + ulimitRequired,
					Optional:            true,
					Validators:          []validator.Int64{int64validator.AtLeast(0)},
				},
				"hard": schema.Int64Attribute{
					MarkdownDescription: "Hard limit (at least 0). " + ulimitRequired,
					Optional:            true,
					Validators:          []validator.Int64{int64validator.AtLeast(0)},
				},
			}},
		},
	}
}

// engineLimits are the limits the engine can change in place, as it takes
// them. Without memory_swap the sandbox gets no swap: memory plus swap
// equals memory.
func (l limitsModel) engineLimits() engine.Limits {
	el := engine.Limits{
		Memory:    l.Memory.ValueInt64() * mib,
		NanoCPUs:  int64(math.Round(l.CPUs.ValueFloat64() * nanoCPUsPerCPU)),
		PidsLimit: l.PidsLimit.ValueInt64(),
	}
	if el.Memory > 0 {
		el.MemorySwap = el.Memory
		if !l.MemorySwap.IsNull() {
			el.MemorySwap = l.MemorySwap.ValueInt64() * mib
		}
	}
	return el
}

// applyTo adds the limits to spec.
func (l limitsModel) applyTo(spec *engine.ContainerSpec) diag.Diagnostics {
	spec.Limits = l.engineLimits()
	spec.ShmSize = l.ShmSize.ValueInt64() * mib
	ulimits, diags := values.ObjectsAs[ulimitModel](l.Ulimits)
	for _, name := range slices.Sorted(maps.Keys(ulimits)) {
		u := ulimits[name]
		spec.Ulimits = append(spec.Ulimits, engine.Ulimit{Name: name, Soft: u.Soft.ValueInt64(), Hard: u.Hard.ValueInt64()})
	}
	return diags
}

// observe records memory, swap, CPUs, processes, shared memory and ulimits
// as the engine shows them. What the engine added on its own (d), where
// the model asks for nothing, stays unset.
func (l *limitsModel) observe(h *engine.HostConfig, d engine.Defaults) {
	el := engine.ObservedLimits(h)
	l.Memory = values.Int64OrNull(el.Memory / mib)
	switch {
	case el.MemorySwap == 0 || (el.MemorySwap == el.Memory && l.MemorySwap.IsNull()):
		l.MemorySwap = types.Int64Null()
	case el.MemorySwap < 0:
		l.MemorySwap = types.Int64Value(-1)
	default:
		l.MemorySwap = types.Int64Value(el.MemorySwap / mib)
	}
	l.CPUs = types.Float64Null()
	if el.NanoCPUs > 0 {
		l.CPUs = types.Float64Value(float64(el.NanoCPUs) / nanoCPUsPerCPU)
	}
	if !l.PidsLimit.IsNull() || el.PidsLimit != d.PidsLimit {
		l.PidsLimit = values.Int64OrNull(el.PidsLimit)
	}
	if !l.ShmSize.IsNull() || (h.ShmSize/mib != engineDefaultShmMiB && h.ShmSize != d.ShmSize) {
		l.ShmSize = values.Int64OrNull(h.ShmSize / mib)
	}
	var asked map[string]attr.Value
	if values.Known(l.Ulimits) {
		asked = l.Ulimits.Elements()
	}
	observed := slices.DeleteFunc(engine.ObservedUlimits(h), func(u engine.Ulimit) bool {
		_, isAsked := asked[u.Name]
		return !isAsked && d.IsDefaultUlimit(u)
	})
	l.Ulimits = values.KeepIfEqual(l.Ulimits, ulimitsValue(observed))
}

func ulimitsValue(ulimits []engine.Ulimit) types.Map {
	objType := types.ObjectType{AttrTypes: ulimitAttrTypes}
	if len(ulimits) == 0 {
		return types.MapNull(objType)
	}
	vals := make(map[string]attr.Value, len(ulimits))
	for _, u := range ulimits {
		vals[u.Name] = types.ObjectValueMust(ulimitAttrTypes, map[string]attr.Value{
			"soft": types.Int64Value(u.Soft), "hard": types.Int64Value(u.Hard),
		})
	}
	return types.MapValueMust(objType, vals)
}

// validate rejects swap below memory, ulimits without both limits, and
// soft limits above hard ones. Values not known yet are skipped; apply
// sees them.
func (l limitsModel) validate() diag.Diagnostics {
	var diags diag.Diagnostics
	if values.Known(l.Memory) && values.Known(l.MemorySwap) && l.MemorySwap.ValueInt64() < l.Memory.ValueInt64() {
		diags.AddAttributeError(path.Root("memory_swap"), "Memory plus swap below memory", fmt.Sprintf(
			"memory_swap (%d MiB) is memory plus swap and cannot be less than memory (%d MiB). Raise "+
				"memory_swap to at least memory (equal: no swap), or leave it unset.",
			l.MemorySwap.ValueInt64(), l.Memory.ValueInt64()))
	}
	if !values.Known(l.Ulimits) {
		return diags
	}
	entries, d := values.ObjectsAs[ulimitModel](l.Ulimits)
	diags.Append(d...)
	for _, name := range slices.Sorted(maps.Keys(entries)) {
		u := entries[name]
		if u.Soft.IsNull() {
			diags.Append(missingUlimit(name, "soft"))
		}
		if u.Hard.IsNull() {
			diags.Append(missingUlimit(name, "hard"))
		}
		if values.Known(u.Soft) && values.Known(u.Hard) && u.Soft.ValueInt64() > u.Hard.ValueInt64() {
			diags.AddAttributeError(path.Root("ulimits").AtMapKey(name).AtName("soft"), "Soft limit above hard limit",
				fmt.Sprintf("Attribute ulimits[%q].soft (%d) cannot exceed ulimits[%q].hard (%d). Lower soft, or "+
					"raise hard.",
					name, u.Soft.ValueInt64(), name, u.Hard.ValueInt64()))
		}
	}
	return diags
}

// missingUlimit is the error for a ulimits entry without its soft or hard
// limit.
func missingUlimit(name, limit string) diag.Diagnostic {
	return diag.NewAttributeErrorDiagnostic(path.Root("ulimits").AtMapKey(name).AtName(limit), "Missing ulimit "+limit+" limit",
		fmt.Sprintf("Attribute ulimits[%q] sets no %s limit. Set both: ulimits = { %s = { soft = ..., hard = ... } }.",
			name, limit, name))
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
	return values.RawNumber(fields["hard"])
}

// enforcedLimits are the limits refuseUnenforcedLimits checks, with the
// cgroup controller each needs ("" for ulimits, which need none).
var enforcedLimits = []struct {
	attr, controller string
	enforced         func(engine.Enforcement) bool
}{
	{"memory", "memory", func(e engine.Enforcement) bool { return e.Memory }},
	{"memory_swap", "memory", func(e engine.Enforcement) bool { return e.Swap }},
	{"cpus", "cpu", func(e engine.Enforcement) bool { return e.CPU }},
	{"pids_limit", "pids", func(e engine.Enforcement) bool { return e.Pids }},
	{"ulimits", "", func(e engine.Enforcement) bool { return e.Ulimits }},
}

// refuseUnenforcedLimits refuses, at plan time, a limit the engine reports
// it cannot apply: the sandbox would run without it.
func refuseUnenforcedLimits(plan map[string]tftypes.Value, e engine.Enforcement, endpoint string, resp *resource.ModifyPlanResponse) {
	for _, l := range enforcedLimits {
		if v := plan[l.attr]; v.IsNull() || l.enforced(e) {
			continue
		}
		why, fix := e.Why, e.Fix
		needs := fmt.Sprintf(" (it needs the %s cgroup controller)", l.controller)
		if l.controller == "" {
			why, fix, needs = e.UlimitsWhy, e.UlimitsFix, ""
		}
		resp.Diagnostics.AddAttributeError(path.Root(l.attr), "Limit the engine cannot apply", fmt.Sprintf(
			"The engine at %s cannot apply %s: %s, so the sandbox would run without the limit%s. Remove %s, "+
				"or %s.", endpoint, l.attr, why, needs, l.attr, fix))
	}
}

// checkApplied fails when the engine shows limits other than those asked
// for: a limit accepted and ignored is never kept.
func (l limitsModel) checkApplied(c engine.Sandbox) diag.Diagnostics {
	var diags diag.Diagnostics
	if c.HostConfig == nil || !values.Known(l.Memory) || !values.Known(l.CPUs) ||
		!values.Known(l.PidsLimit) || !values.Known(l.MemorySwap) {
		return diags
	}
	want, got := l.engineLimits(), engine.ObservedLimits(c.HostConfig)
	for _, d := range []struct {
		attr      string
		want, got int64
	}{
		{"memory", want.Memory, got.Memory}, {"memory_swap", want.MemorySwap, got.MemorySwap},
		{"cpus", want.NanoCPUs, got.NanoCPUs}, {"pids_limit", want.PidsLimit, got.PidsLimit},
	} {
		if d.want != 0 && d.want != d.got {
			diags.AddAttributeError(path.Root(d.attr), "Limit not applied by the engine", fmt.Sprintf(
				"The engine created container %s with %s at %d where %d was asked for: it did not apply the "+
					"limit. A sandbox without it is not kept. Check the engine's cgroup support, or place this "+
					"sandbox on another engine.", engine.ShortID(c.ID), d.attr, d.got, d.want))
		}
	}
	return diags
}
