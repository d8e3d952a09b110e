package resources

import (
	"context"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/docker/docker/api/types/container"
	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/validators"
)

const (
	mib             = 1 << 20
	nanoCPUsPerCPU  = 1e9
	noNewPrivileges = "no-new-privileges"
	// defaultRuntime is the engine's usual default runtime, which import
	// leaves unset.
	defaultRuntime = "runc"
)

type ulimitModel struct {
	Soft types.Int64 `tfsdk:"soft"`
	Hard types.Int64 `tfsdk:"hard"`
}

type portModel struct {
	Internal types.Int64  `tfsdk:"internal"`
	External types.Int64  `tfsdk:"external"`
	HostIP   types.String `tfsdk:"host_ip"`
	Protocol types.String `tfsdk:"protocol"`
}

// binding is the port as the engine takes it, defaults applied.
func (p portModel) binding() engine.PortBinding {
	b := engine.PortBinding{
		Port:     int(p.Internal.ValueInt64()),
		Protocol: p.Protocol.ValueString(),
		HostIP:   p.HostIP.ValueString(),
		HostPort: int(p.External.ValueInt64()),
	}
	if p.Protocol.IsNull() {
		b.Protocol = defaultPortProtocol
	}
	if p.HostIP.IsNull() {
		b.HostIP = defaultPortHostIP
	}
	return b
}

// hardeningSpec adds the privileges, limits and ports of m to spec.
func (m containerModel) hardeningSpec(ctx context.Context, spec *engine.ContainerSpec) diag.Diagnostics {
	var diags diag.Diagnostics
	spec.CapAdd = setStrings(m.CapAdd)
	spec.CapDrop = setStrings(m.CapDrop)
	spec.SecurityOpt = setStrings(m.SecurityOpts)
	if m.NoNewPrivileges.ValueBool() {
		spec.SecurityOpt = append(spec.SecurityOpt, noNewPrivileges)
	}
	spec.ReadOnly = m.ReadOnly.ValueBool()
	diags.Append(m.Tmpfs.ElementsAs(ctx, &spec.Tmpfs, false)...)
	spec.Runtime = m.Runtime.ValueString()
	spec.Limits = m.limits()
	spec.ShmSize = m.ShmSize.ValueInt64() * mib

	var ulimits map[string]ulimitModel
	diags.Append(m.Ulimits.ElementsAs(ctx, &ulimits, false)...)
	for _, name := range slices.Sorted(maps.Keys(ulimits)) {
		u := ulimits[name]
		spec.Ulimits = append(spec.Ulimits, engine.Ulimit{Name: name, Soft: u.Soft.ValueInt64(), Hard: u.Hard.ValueInt64()})
	}

	var ports []portModel
	diags.Append(m.Ports.ElementsAs(ctx, &ports, false)...)
	for _, p := range ports {
		spec.Ports = append(spec.Ports, p.binding())
	}
	return diags
}

// limits are the limits of m as the engine takes them. Without memory_swap
// the sandbox gets no swap: memory plus swap equals memory.
func (m containerModel) limits() engine.Limits {
	l := engine.Limits{
		Memory:    m.Memory.ValueInt64() * mib,
		NanoCPUs:  int64(math.Round(m.CPUs.ValueFloat64() * nanoCPUsPerCPU)),
		PidsLimit: m.PidsLimit.ValueInt64(),
	}
	if l.Memory > 0 {
		l.MemorySwap = l.Memory
		if !m.MemorySwap.IsNull() {
			l.MemorySwap = m.MemorySwap.ValueInt64() * mib
		}
	}
	return l
}

// engineLimits are the limits the engine shows for a container.
func engineLimits(h *container.HostConfig) engine.Limits {
	l := engine.Limits{Memory: h.Memory, MemorySwap: h.MemorySwap, NanoCPUs: h.NanoCPUs}
	if h.PidsLimit != nil && *h.PidsLimit > 0 {
		l.PidsLimit = *h.PidsLimit
	}
	return l
}

// setHardeningNull sets every hardening attribute to null, as for a
// container about which nothing is known yet.
func (m *containerModel) setHardeningNull() {
	m.CapAdd = types.SetNull(types.StringType)
	m.CapDrop = types.SetNull(types.StringType)
	m.NoNewPrivileges = types.BoolNull()
	m.ReadOnly = types.BoolNull()
	m.Tmpfs = types.MapNull(types.StringType)
	m.Runtime = types.StringNull()
	m.SecurityOpts = types.SetNull(types.StringType)
	m.AllowUnconfined = types.BoolNull()
	m.Memory = types.Int64Null()
	m.MemorySwap = types.Int64Null()
	m.CPUs = types.Float64Null()
	m.PidsLimit = types.Int64Null()
	m.ShmSize = types.Int64Null()
	m.Ulimits = types.MapNull(types.ObjectType{AttrTypes: ulimitAttrTypes})
	m.Ports = types.SetNull(types.ObjectType{AttrTypes: portAttrTypes})
	m.Files = types.MapNull(types.ObjectType{AttrTypes: fileAttrTypes})
	m.EnvWO = types.MapNull(types.StringType)
	m.EnvWOVersion = types.Int64Null()
	m.Timeouts = timeouts.Value{Object: types.ObjectNull(map[string]attr.Type{
		"create": types.StringType, "delete": types.StringType,
	})}
}

// observeHardening records the privileges and limits the engine shows. A
// value equal in meaning to the one already held is kept as written, so a
// refresh plans nothing for an unchanged sandbox, while a widened privilege
// or a changed limit shows in the plan.
func (m *containerModel) observeHardening(c container.InspectResponse) {
	if c.ContainerJSONBase == nil || c.HostConfig == nil {
		return
	}
	m.observePrivileges(c.HostConfig)
	m.observeLimits(c.HostConfig)
}

// observePrivileges records capabilities, security options, the root
// filesystem, mounts, the runtime and published ports.
func (m *containerModel) observePrivileges(h *container.HostConfig) {
	m.CapAdd = keepIfEqual(m.CapAdd, stringSetOrNull(capNames(h.CapAdd)))
	m.CapDrop = keepIfEqual(m.CapDrop, stringSetOrNull(capNames(h.CapDrop)))

	var opts []string
	nnp := false
	for _, opt := range h.SecurityOpt {
		if key, value, _ := validators.SplitSecurityOpt(opt); key == noNewPrivileges {
			nnp = value == "" || value == "true"
			continue
		}
		opts = append(opts, opt)
	}
	m.NoNewPrivileges = types.BoolValue(nnp)
	m.SecurityOpts = keepIfEqual(m.SecurityOpts, stringSetOrNull(opts))
	m.ReadOnly = types.BoolValue(h.ReadonlyRootfs)
	m.Tmpfs = keepIfEqual(m.Tmpfs, stringMap(h.Tmpfs))
	// A container's runtime cannot change. An unset one stays unset, whatever
	// the engine's default runtime is called.
	if !m.Runtime.IsNull() {
		m.Runtime = types.StringValue(h.Runtime)
	}
	m.Ports = keepIfEqualPorts(m.Ports, h)
}

// observeLimits records memory, swap, CPUs, processes, shared memory and
// ulimits.
func (m *containerModel) observeLimits(h *container.HostConfig) {
	l := engineLimits(h)
	m.Memory = int64OrNull(l.Memory / mib)
	switch {
	case l.MemorySwap == 0 || (l.MemorySwap == l.Memory && m.MemorySwap.IsNull()):
		m.MemorySwap = types.Int64Null()
	case l.MemorySwap < 0:
		m.MemorySwap = types.Int64Value(-1)
	default:
		m.MemorySwap = types.Int64Value(l.MemorySwap / mib)
	}
	m.CPUs = types.Float64Null()
	if l.NanoCPUs > 0 {
		m.CPUs = types.Float64Value(float64(l.NanoCPUs) / nanoCPUsPerCPU)
	}
	m.PidsLimit = int64OrNull(l.PidsLimit)
	if shm := h.ShmSize / mib; shm == engineDefaultShmMiB && m.ShmSize.IsNull() {
		m.ShmSize = types.Int64Null()
	} else {
		m.ShmSize = int64OrNull(shm)
	}
	m.Ulimits = keepIfEqual(m.Ulimits, ulimitsValue(h.Ulimits))
}

// capNames normalises the engine's capability names to the schema's form:
// upper case without the CAP_ prefix.
func capNames(caps []string) []string {
	out := make([]string, 0, len(caps))
	for _, c := range caps {
		out = append(out, strings.TrimPrefix(strings.ToUpper(c), "CAP_"))
	}
	return out
}

func ulimitsValue(ulimits []*container.Ulimit) types.Map {
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

// keepIfEqualPorts keeps the ports held when the engine binds the same ones,
// defaults applied; otherwise it records the engine's bindings.
func keepIfEqualPorts(held types.Set, h *container.HostConfig) types.Set {
	var observed []engine.PortBinding
	for key, bindings := range h.PortBindings {
		for _, b := range bindings {
			hostPort, _ := strconv.Atoi(b.HostPort)
			observed = append(observed, engine.PortBinding{
				Port: key.Int(), Protocol: key.Proto(), HostIP: b.HostIP, HostPort: hostPort,
			})
		}
	}
	var heldBindings []engine.PortBinding
	if !held.IsNull() && !held.IsUnknown() {
		var ports []portModel
		_ = held.ElementsAs(context.Background(), &ports, false)
		for _, p := range ports {
			heldBindings = append(heldBindings, p.binding())
		}
	}
	if samePorts(heldBindings, observed) {
		return held
	}
	objType := types.ObjectType{AttrTypes: portAttrTypes}
	if len(observed) == 0 {
		return types.SetNull(objType)
	}
	vals := make([]attr.Value, 0, len(observed))
	for _, b := range observed {
		external := types.Int64Null()
		if b.HostPort != 0 {
			external = types.Int64Value(int64(b.HostPort))
		}
		vals = append(vals, types.ObjectValueMust(portAttrTypes, map[string]attr.Value{
			"internal": types.Int64Value(int64(b.Port)), "external": external,
			"host_ip": types.StringValue(b.HostIP), "protocol": types.StringValue(b.Protocol),
		}))
	}
	return types.SetValueMust(objType, vals)
}

func samePorts(a, b []engine.PortBinding) bool {
	if len(a) != len(b) {
		return false
	}
	for _, p := range a {
		if !slices.Contains(b, p) {
			return false
		}
	}
	return true
}

// keepIfEqual returns held when it means the same as observed (null and
// empty alike), else observed.
func keepIfEqual[T interface {
	attr.Value
	IsNull() bool
	IsUnknown() bool
}](held, observed T) T {
	if held.IsUnknown() {
		return observed
	}
	if held.Equal(observed) || (held.IsNull() && observed.IsNull()) {
		return held
	}
	return observed
}

func setStrings(s types.Set) []string {
	if s.IsNull() || s.IsUnknown() {
		return nil
	}
	out := make([]string, 0, len(s.Elements()))
	for _, v := range s.Elements() {
		if str, ok := v.(types.String); ok {
			out = append(out, str.ValueString())
		}
	}
	slices.Sort(out)
	return out
}

func stringSetOrNull(list []string) types.Set {
	if len(list) == 0 {
		return types.SetNull(types.StringType)
	}
	return stringSet(list)
}

func int64OrNull(v int64) types.Int64 {
	if v <= 0 {
		return types.Int64Null()
	}
	return types.Int64Value(v)
}
