package resources

import (
	"context"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/image"
	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/isolation"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/validators"
)

// Labels the provider stamps on the containers it creates: ownership on
// every one, and the names (never the values) of write-only secret
// environment variables.
const (
	labelManagedBy    = "tfsandbox.managed-by"
	labelResourceType = "tfsandbox.resource-type"
	labelSecretEnv    = "tfsandbox.secret-env-names"
	managedByValue    = "terraform-provider-sandbox"
)

// keepAlive is the entrypoint a sandbox runs when neither entrypoint nor
// command is configured.
var keepAlive = []string{"tail", "-f", "/dev/null"}

// containerModel is the state and plan of a sandbox_container.
type containerModel struct {
	ID          types.String `tfsdk:"id"`
	Name        types.String `tfsdk:"name"`
	Image       types.String `tfsdk:"image"`
	NetworkMode types.String `tfsdk:"network_mode"`
	Entrypoint  types.List   `tfsdk:"entrypoint"`
	Command     types.List   `tfsdk:"command"`
	Env         types.Map    `tfsdk:"env"`
	Labels      types.Map    `tfsdk:"labels"`
	WorkingDir  types.String `tfsdk:"working_dir"`
	User        types.String `tfsdk:"user"`
	Init        types.Bool   `tfsdk:"init"`
	Running     types.Bool   `tfsdk:"running"`
	StopTimeout types.Int64  `tfsdk:"stop_timeout"`
	Networks    types.Set    `tfsdk:"networks"`
	ImageID     types.String `tfsdk:"image_id"`

	CapAdd          types.Set      `tfsdk:"cap_add"`
	CapDrop         types.Set      `tfsdk:"cap_drop"`
	NoNewPrivileges types.Bool     `tfsdk:"no_new_privileges"`
	ReadOnly        types.Bool     `tfsdk:"read_only"`
	Tmpfs           types.Map      `tfsdk:"tmpfs"`
	Runtime         types.String   `tfsdk:"runtime"`
	SecurityOpts    types.Set      `tfsdk:"security_opts"`
	AllowUnconfined types.Bool     `tfsdk:"allow_unconfined"`
	Memory          types.Int64    `tfsdk:"memory"`
	MemorySwap      types.Int64    `tfsdk:"memory_swap"`
	CPUs            types.Float64  `tfsdk:"cpus"`
	PidsLimit       types.Int64    `tfsdk:"pids_limit"`
	ShmSize         types.Int64    `tfsdk:"shm_size"`
	Ulimits         types.Map      `tfsdk:"ulimits"`
	Ports           types.Set      `tfsdk:"ports"`
	Files           types.Map      `tfsdk:"files"`
	EnvWO           types.Map      `tfsdk:"env_wo"`
	EnvWOVersion    types.Int64    `tfsdk:"env_wo_version"`
	Timeouts        timeouts.Value `tfsdk:"timeouts"`
}

// isolated reports whether the configuration asks for network isolation.
func (m containerModel) isolated() bool {
	return m.NetworkMode.ValueString() == isolation.NoneMode
}

// spec turns a planned sandbox into what the engine is asked to create.
// secretEnv holds the write-only env_wo values from the configuration.
func (m containerModel) spec(ctx context.Context, secretEnv map[string]string) (engine.ContainerSpec, diag.Diagnostics) {
	var diags diag.Diagnostics
	spec := engine.ContainerSpec{
		Name:        m.Name.ValueString(),
		Image:       m.Image.ValueString(),
		NetworkMode: m.NetworkMode.ValueString(),
		WorkingDir:  m.WorkingDir.ValueString(),
		User:        m.User.ValueString(),
		Init:        m.Init.ValueBool(),
	}
	diags.Append(m.Entrypoint.ElementsAs(ctx, &spec.Entrypoint, false)...)
	diags.Append(m.Command.ElementsAs(ctx, &spec.Command, false)...)
	if len(spec.Entrypoint) == 0 && len(spec.Command) == 0 {
		spec.Entrypoint = slices.Clone(keepAlive)
	}

	var env map[string]string
	diags.Append(m.Env.ElementsAs(ctx, &env, false)...)
	spec.Env = envList(env)
	spec.Env = append(spec.Env, envList(secretEnv)...)

	diags.Append(m.Labels.ElementsAs(ctx, &spec.Labels, false)...)
	if spec.Labels == nil {
		spec.Labels = map[string]string{}
	}
	spec.Labels[labelManagedBy] = managedByValue
	spec.Labels[labelResourceType] = "sandbox_container"
	if len(secretEnv) > 0 {
		spec.Labels[labelSecretEnv] = strings.Join(slices.Sorted(maps.Keys(secretEnv)), ",")
	}
	diags.Append(m.hardeningSpec(ctx, &spec)...)
	return spec, diags
}

// envList renders environment variables as the engine takes them, sorted by
// name so the same map always gives the same list.
func envList(env map[string]string) []string {
	list := make([]string, 0, len(env))
	for k, v := range env {
		list = append(list, k+"="+v)
	}
	sort.Strings(list)
	return list
}

// setObserved records what the engine shows of a container: its ID, name,
// whether it runs, its networks and its image.
func (m *containerModel) setObserved(c container.InspectResponse) {
	m.ID = types.StringValue(c.ID)
	m.Name = types.StringValue(strings.TrimPrefix(c.Name, "/"))
	m.Running = types.BoolValue(isRunning(c))
	m.ImageID = types.StringValue(c.Image)

	m.Networks = stringSet(isolation.Assess(c).Networks)
	m.observeHardening(c)
}

func isRunning(c container.InspectResponse) bool {
	return c.ContainerJSONBase != nil && c.State != nil && c.State.Running && !c.State.Paused
}

// setFromEngine fills every configurable attribute from the engine's data,
// as an import does: values that only repeat the image's defaults, the
// provider's own labels and the keep-alive are left null, as they would be in
// a configuration that produced this container.
func (m *containerModel) setFromEngine(c container.InspectResponse, img image.InspectResponse) {
	cfg := c.Config
	if cfg == nil {
		cfg = &container.Config{}
	}
	var imgCfg ocispec.ImageConfig
	if img.Config != nil {
		imgCfg = img.Config.ImageConfig
	}

	m.Image = types.StringValue(cfg.Image)

	entrypoint, command := []string(cfg.Entrypoint), []string(cfg.Cmd)
	switch {
	case slices.Equal(entrypoint, keepAlive) && len(command) == 0:
		entrypoint, command = nil, nil
	case slices.Equal(entrypoint, imgCfg.Entrypoint):
		entrypoint = nil
		if slices.Equal(command, imgCfg.Cmd) {
			command = nil
		}
	}
	m.Entrypoint = stringList(entrypoint)
	m.Command = stringList(command)

	env := envMap(without(cfg.Env, imgCfg.Env))
	for _, secret := range strings.Split(cfg.Labels[labelSecretEnv], ",") {
		delete(env, secret)
	}
	m.Env = stringMap(env)
	m.Labels = stringMap(userLabels(cfg.Labels, imgCfg.Labels))
	m.WorkingDir = stringOrNull(cfg.WorkingDir, imgCfg.WorkingDir)
	m.User = stringOrNull(cfg.User, imgCfg.User)

	withInit := false
	if c.HostConfig != nil && c.HostConfig.Init != nil {
		withInit = *c.HostConfig.Init
	}
	m.Init = types.BoolValue(withInit)
	m.StopTimeout = types.Int64Value(defaultStopTimeout)

	m.NetworkMode = types.StringNull()
	if isolation.Assess(c).Isolated {
		m.NetworkMode = types.StringValue(isolation.NoneMode)
	}
	// Start from nothing, so that observing takes every hardening value
	// from the engine.
	m.setHardeningNull()
	m.setObserved(c)
	if c.HostConfig != nil && c.HostConfig.Runtime != "" && c.HostConfig.Runtime != defaultRuntime {
		m.Runtime = types.StringValue(c.HostConfig.Runtime)
	}
	m.AllowUnconfined = types.BoolValue(slices.ContainsFunc(setStrings(m.SecurityOpts), validators.Unconfined))
}

// without returns the entries of list that are not in base.
func without(list, base []string) []string {
	var out []string
	for _, e := range list {
		if !slices.Contains(base, e) {
			out = append(out, e)
		}
	}
	return out
}

func envMap(list []string) map[string]string {
	if len(list) == 0 {
		return nil
	}
	env := make(map[string]string, len(list))
	for _, e := range list {
		k, v, _ := strings.Cut(e, "=")
		env[k] = v
	}
	return env
}

// userLabels returns the labels a configuration would have set: all but the
// provider's own and those inherited unchanged from the image.
func userLabels(labels, imageLabels map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range labels {
		if k == labelManagedBy || k == labelResourceType || k == labelSecretEnv {
			continue
		}
		if iv, ok := imageLabels[k]; ok && iv == v {
			continue
		}
		out[k] = v
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

func stringOrNull(v, imageDefault string) types.String {
	if v == "" || v == imageDefault {
		return types.StringNull()
	}
	return types.StringValue(v)
}

func stringValues(list []string) []attr.Value {
	vals := make([]attr.Value, len(list))
	for i, s := range list {
		vals[i] = types.StringValue(s)
	}
	return vals
}

func stringList(list []string) types.List {
	if len(list) == 0 {
		return types.ListNull(types.StringType)
	}
	return types.ListValueMust(types.StringType, stringValues(list))
}

func stringSet(list []string) types.Set {
	return types.SetValueMust(types.StringType, stringValues(list))
}

func stringMap(m map[string]string) types.Map {
	if len(m) == 0 {
		return types.MapNull(types.StringType)
	}
	vals := make(map[string]attr.Value, len(m))
	for k, v := range m {
		vals[k] = types.StringValue(v)
	}
	return types.MapValueMust(types.StringType, vals)
}
