package containerresource

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/framework/values"
)

// resourceType is the Terraform type name, stamped on each container.
const resourceType = "sandbox_container"

// keepAlive is the entrypoint a sandbox runs when neither entrypoint nor
// command is configured.
var keepAlive = []string{"tail", "-f", "/dev/null"}

// keepAliveText is keepAlive as a shell would show it.
var keepAliveText = strings.Join(keepAlive, " ")

// resourceModel is the state and plan of a sandbox_container: the core
// attributes, then one embedded model per attribute group, each defined in
// the group's own file.
type resourceModel struct {
	ID         types.String `tfsdk:"id"`
	Name       types.String `tfsdk:"name"`
	Image      types.String `tfsdk:"image"`
	Entrypoint types.List   `tfsdk:"entrypoint"`
	Command    types.List   `tfsdk:"command"`
	Env        types.Map    `tfsdk:"env"`
	Labels     types.Map    `tfsdk:"labels"`
	WorkingDir types.String `tfsdk:"working_dir"`
	User       types.String `tfsdk:"user"`
	Init       types.Bool   `tfsdk:"init"`
	ImageID    types.String `tfsdk:"image_id"`

	runStateModel
	expiryModel
	networkModel
	capabilitiesModel
	privilegesModel
	filesystemModel
	mountsModel
	limitsModel
	portsModel
	filesModel
	secretsModel
	timeoutsModel
	restartModel
}

// setGroupsNull sets every attribute group but the network to null, as for
// a container about which nothing is known yet.
func (m *resourceModel) setGroupsNull() {
	m.capabilitiesModel = nullCapabilities()
	m.privilegesModel = nullPrivileges()
	m.filesystemModel = nullFilesystem()
	m.mountsModel = nullMounts()
	m.limitsModel = nullLimits()
	m.portsModel = nullPorts()
	m.filesModel = nullFiles()
	m.secretsModel = nullSecrets()
	m.timeoutsModel = nullTimeouts()
	m.restartModel = restartModel{Restart: types.StringNull()}
}

// spec turns a planned sandbox into what the engine is asked to create.
// secretEnv holds the write-only env_wo values from the configuration.
func (m resourceModel) spec(ctx context.Context, secretEnv map[string]string) (engine.ContainerSpec, diag.Diagnostics) {
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
	if m.runsKeepAlive() {
		spec.Entrypoint = slices.Clone(keepAlive)
	}

	var env map[string]string
	diags.Append(m.Env.ElementsAs(ctx, &env, false)...)
	spec.Env = values.EnvList(env)

	diags.Append(m.Labels.ElementsAs(ctx, &spec.Labels, false)...)
	if spec.Labels == nil {
		spec.Labels = map[string]string{}
	}
	for k, v := range engine.OwnershipLabels(resourceType) {
		spec.Labels[k] = v
	}
	applySecrets(secretEnv, &spec)
	m.capabilitiesModel.applyTo(&spec)
	m.privilegesModel.applyTo(&spec)
	diags.Append(m.filesystemModel.applyTo(ctx, &spec)...)
	diags.Append(m.mountsModel.applyTo(&spec)...)
	diags.Append(m.limitsModel.applyTo(&spec)...)
	diags.Append(m.portsModel.applyTo(ctx, &spec)...)
	m.restartModel.applyTo(&spec)
	recordConfigured(&spec, env, m.EnvWOVersion)
	return spec, diags
}

// runsKeepAlive reports whether the sandbox runs only the keep-alive: no
// entrypoint and no command configured.
func (m resourceModel) runsKeepAlive() bool {
	return m.Entrypoint.IsNull() && m.Command.IsNull()
}

// setObserved records what the engine shows of a container: its ID, name,
// whether it runs, its image and networks, and every privilege, limit and
// port it can report.
func (m *resourceModel) setObserved(ctx context.Context, c engine.Sandbox, d engine.Defaults) {
	m.ID = types.StringValue(c.ID)
	m.Name = types.StringValue(strings.TrimPrefix(c.Name, "/"))
	m.runStateModel.observe(c)
	if m.CreatedAt.IsNull() || m.CreatedAt.IsUnknown() {
		// A state from before created_at, or an import: what the create
		// recorded, or the engine's own time.
		m.CreatedAt = types.StringNull()
		if c.Config != nil && c.Config.Labels[engine.LabelCreatedAt] != "" {
			m.CreatedAt = types.StringValue(c.Config.Labels[engine.LabelCreatedAt])
		} else if created, err := time.Parse(time.RFC3339Nano, c.Created); err == nil {
			m.CreatedAt = types.StringValue(stamp(created))
		}
	}
	if m.Expired.IsNull() || m.Expired.IsUnknown() {
		m.Expired = types.BoolValue(false)
	}
	if c.Image != "" || !values.Known(m.ImageID) {
		// A backend that cannot say what the sandbox ran (a Sandbox whose
		// controller has removed its pod at its expiry) leaves it as read
		// last.
		m.ImageID = types.StringValue(c.Image)
	}
	m.observeNetworks(c)
	if c.HostConfig == nil {
		return
	}
	m.capabilitiesModel.observe(c.HostConfig, d)
	m.privilegesModel.observe(c.HostConfig)
	m.filesystemModel.observe(c.HostConfig, d)
	m.mountsModel.observe(c)
	m.limitsModel.observe(c.HostConfig, d)
	m.portsModel.observe(ctx, c.HostConfig)
	m.restartModel.observe(c.HostConfig)
}

// validate checks combinations of attributes at plan time, each attribute
// group its own. Values not known yet are skipped; apply sees them.
func (m resourceModel) validate(ctx context.Context) diag.Diagnostics {
	var diags diag.Diagnostics
	diags.Append(m.capabilitiesModel.validate()...)
	diags.Append(m.privilegesModel.validate()...)
	diags.Append(m.limitsModel.validate()...)
	diags.Append(m.portsModel.validate(m.isolated())...)
	diags.Append(m.filesModel.validate(ctx, m.filesystemModel)...)
	diags.Append(m.mountsModel.validate(ctx, m.filesystemModel, m.filesModel)...)
	diags.Append(m.validateHostPaths()...)
	diags.Append(m.Validate(m.Env, secretUsage)...)
	return diags
}
