package poolresource

import (
	"context"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/framework/values"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/framework/writeonly"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/isolation"
)

// keepAlive is what a sandbox of the pool runs without a command: the
// same process a sandbox_container runs.
var keepAlive = []string{"tail", "-f", "/dev/null"}

const mib = 1 << 20

// resourceModel is the pool as the plan and state hold it.
type resourceModel struct {
	ID              types.String  `tfsdk:"id"`
	Name            types.String  `tfsdk:"name"`
	Replicas        types.Int64   `tfsdk:"replicas"`
	Image           types.String  `tfsdk:"image"`
	Command         types.List    `tfsdk:"command"`
	WorkingDir      types.String  `tfsdk:"working_dir"`
	User            types.String  `tfsdk:"user"`
	Env             types.Map     `tfsdk:"env"`
	ReadOnly        types.Bool    `tfsdk:"read_only"`
	Memory          types.Int64   `tfsdk:"memory"`
	CPUs            types.Float64 `tfsdk:"cpus"`
	Files           types.Map     `tfsdk:"files"`
	CapAdd          types.Set     `tfsdk:"cap_add"`
	NetworkMode     types.String  `tfsdk:"network_mode"`
	Hardened        types.Bool    `tfsdk:"hardened"`
	ReadyReplicas   types.Int64   `tfsdk:"ready_replicas"`
	ClaimedReplicas types.Int64   `tfsdk:"claimed_replicas"`
	secretsModel
}

// secretsModel is env_wo and its version (writeonly.Env).
type secretsModel = writeonly.Env

// spec is the pool the plan asks for; secretEnv holds env_wo's values.
func (m resourceModel) spec(ctx context.Context, secretEnv map[string]string) (engine.PoolSpec, diag.Diagnostics) {
	var diags diag.Diagnostics
	sandbox := engine.ContainerSpec{
		Image: m.Image.ValueString(), NetworkMode: isolation.NoneMode, WorkingDir: m.WorkingDir.ValueString(),
		User: m.User.ValueString(), Init: true, ReadOnly: m.ReadOnly.ValueBool(),
		CapDrop: slices.Clone(hardening.capDrop), CapAdd: values.SetStrings(m.CapAdd),
		SecurityOpt: slices.Clone(hardening.securityOpt),
		Labels:      engine.OwnershipLabels(resourceType),
	}
	sandbox.Labels[engine.LabelCreateToken] = engine.NewCreateToken()
	diags.Append(m.Command.ElementsAs(ctx, &sandbox.Command, false)...)
	if m.Command.IsNull() {
		sandbox.Entrypoint = slices.Clone(keepAlive)
	}
	var env map[string]string
	diags.Append(m.Env.ElementsAs(ctx, &env, false)...)
	sandbox.Env = values.EnvList(env)
	if len(secretEnv) > 0 {
		sandbox.Env = append(sandbox.Env, values.EnvList(secretEnv)...)
		sandbox.SecretEnv = slices.Sorted(maps.Keys(secretEnv))
	}
	files, fileDiags := engineFiles(ctx, m.Files)
	diags.Append(fileDiags...)
	sandbox.Files = files
	sandbox.Limits.Memory = m.Memory.ValueInt64() * mib
	sandbox.Limits.MemorySwap = sandbox.Limits.Memory
	sandbox.Limits.NanoCPUs = int64(math.Round(m.CPUs.ValueFloat64() * 1e9))
	return engine.PoolSpec{Name: m.Name.ValueString(), Replicas: int(m.Replicas.ValueInt64()), Sandbox: sandbox}, diags
}

// observe records what the cluster shows of the pool: its template's
// settings as the attributes that made them (a change out of band shows
// as a diff, which replaces the pool), its isolation and hardening, and
// its counts. env_wo's variables come from the template's Secret and
// show in no attribute.
func (m *resourceModel) observe(p engine.Pool) {
	c := p.Template
	m.ID, m.Name = types.StringValue(p.ID), types.StringValue(p.Name)
	m.Replicas = types.Int64Value(int64(p.Replicas))
	m.ReadyReplicas = types.Int64Value(int64(p.Ready))
	m.ClaimedReplicas = types.Int64Value(int64(len(p.Claimed())))
	m.NetworkMode = types.StringValue(verdict(p).Mode)
	if c.Config != nil {
		m.Image = types.StringValue(c.Config.Image)
		m.WorkingDir = values.KeepIfEqual(m.WorkingDir, stringOrNull(c.Config.WorkingDir))
		m.User = values.KeepIfEqual(m.User, stringOrNull(c.Config.User))
		m.Command = commandOf(c.Config.Entrypoint, c.Config.Cmd)
		m.Env = envOf(c.Config.Env)
	}
	if h := c.HostConfig; h != nil {
		m.ReadOnly = types.BoolValue(h.ReadonlyRootfs)
		m.Hardened = types.BoolValue(hardened(h))
		m.CapAdd = values.KeepIfEqual(m.CapAdd, values.StringSetOrNull(engine.CapabilityNames(h.CapAdd)))
		l := engine.ObservedLimits(h)
		m.Memory = values.Int64OrNull(l.Memory / mib)
		m.CPUs = types.Float64Null()
		if l.NanoCPUs > 0 {
			m.CPUs = types.Float64Value(float64(l.NanoCPUs) / 1e9)
		}
	}
}

// verdict is the worst of the template's isolation and that of every
// sandbox of the pool no claim holds: what the next claim would get. A
// claimed sandbox is its claim's (data "sandbox_pool_claims" judges it).
func verdict(p engine.Pool) isolation.Verdict {
	v := isolation.Assess(p.Template.Network)
	for _, s := range p.Sandboxes {
		if !v.Isolated {
			break
		}
		if s.Claim == "" {
			v = isolation.Assess(s.Network)
		}
	}
	return v
}

// commandOf is the command attribute for what a template runs: null for
// the keep-alive, the arguments when the image's entrypoint runs, and
// otherwise the whole command line (which differs from any command the
// configuration can give, so the plan replaces the pool).
func commandOf(entrypoint, args []string) types.List {
	switch {
	case slices.Equal(entrypoint, keepAlive) && len(args) == 0:
		return types.ListNull(types.StringType)
	case len(entrypoint) == 0 && len(args) > 0:
		return values.StringList(args)
	}
	return values.StringList(append(append([]string{"entrypoint:"}, entrypoint...), args...))
}

// envOf is the env attribute for a template's literal variables (the
// backend leaves out env_wo's, which come from the template's Secret).
func envOf(env []string) types.Map {
	m := map[string]string{}
	for _, e := range env {
		k, v, _ := strings.Cut(e, "=")
		m[k] = v
	}
	if len(m) == 0 {
		return types.MapNull(types.StringType)
	}
	return values.StringMap(m)
}

func stringOrNull(s string) types.String {
	if s == "" {
		return types.StringNull()
	}
	return types.StringValue(s)
}
