package resources

import (
	"context"
	"maps"
	"regexp"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/mapvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/boolplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64default"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/listplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/mapplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/setplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/isolation"
)

// containerSchemaVersion is the version of the current schema. Version 0
// predated network_mode; version 1 predated hardening, limits, ports, files
// and secrets.
const containerSchemaVersion = 2

// Defaults that are part of the schema and of import.
const (
	defaultRunning     = true
	defaultInit        = true
	defaultStopTimeout = 10
)

// Default timeouts. Create includes pulling a missing image.
const (
	defaultCreateTimeout = 10 * time.Minute
	defaultDeleteTimeout = 5 * time.Minute
)

var (
	// containerNamePattern is the engine's own rule for container names.
	containerNamePattern = regexp.MustCompile(`^[a-zA-Z0-9][a-zA-Z0-9_.-]+$`)
	envNamePattern       = regexp.MustCompile(`^[^=]+$`)
)

func containerSchema(ctx context.Context) schema.Schema {
	s := coreSchema()
	for _, group := range []map[string]schema.Attribute{privilegeAttributes(), limitAttributes(), secretAttributes()} {
		maps.Copy(s.Attributes, group)
	}
	s.Attributes["ports"] = portsAttribute()
	s.Attributes["files"] = filesAttribute()
	s.Attributes["timeouts"] = timeoutsAttribute(ctx)
	return s
}

// timeoutsAttribute bounds create and delete, as durations like "30s" or
// "2m".
func timeoutsAttribute(ctx context.Context) schema.Attribute {
	attribute := timeouts.Attributes(ctx, timeouts.Opts{
		Create:            true,
		Delete:            true,
		CreateDescription: "How long creating the sandbox may take, pulling a missing image included (default `10m`).",
		DeleteDescription: "How long destroying the sandbox may take (default `5m`).",
	})
	if nested, ok := attribute.(schema.SingleNestedAttribute); ok {
		nested.MarkdownDescription = "Time limits, as durations such as `\"30s\"` or `\"2m\"`. Changing them " +
			"updates the state only."
		return nested
	}
	return attribute
}

// coreSchema is the sandbox's identity, image, process and network.
func coreSchema() schema.Schema {
	return schema.Schema{
		Version: containerSchemaVersion,
		MarkdownDescription: "A sandbox: a Docker container for running untrusted code, kept alive so it can be " +
			"exec'd into. With `network_mode = \"none\"` it has no network but loopback, and the provider keeps " +
			"it that way: when the container is removed, or re-attached to a network outside Terraform, the next " +
			"plan shows it and apply brings back a sandbox with the same isolation.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				MarkdownDescription: "Full ID of the container on the engine.",
				Computed:            true,
				PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"name": schema.StringAttribute{
				MarkdownDescription: "Container name. When omitted the engine picks one. Changing it renames the " +
					"container in place; a name taken by another container is an error, and that container is " +
					"left alone. At least two characters: letters, digits, `_`, `.` and `-`, starting with a letter " +
					"or digit.",
				Optional:      true,
				Computed:      true,
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
				Validators: []validator.String{
					stringvalidator.RegexMatches(containerNamePattern,
						"must be at least two characters, start with a letter or digit, and contain only "+
							"letters, digits, '_', '.' and '-'"),
				},
			},
			"image": schema.StringAttribute{
				MarkdownDescription: "Image to run, by name and tag or by ID. It must be present on the engine; when it " +
					"is not, the provider tries one pull and otherwise fails, saying how to build or load it. " +
					"Changing it forces replacement.",
				Required:      true,
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
				Validators:    []validator.String{stringvalidator.LengthAtLeast(1)},
			},
			"network_mode": schema.StringAttribute{
				MarkdownDescription: "Network isolation. The only allowed value is `\"none\"`: the sandbox gets no " +
					"network interface but loopback. When omitted, nothing is sent and the engine's default " +
					"network applies. Changing it forces replacement. When the state says `\"none\"` and the " +
					"engine shows a weaker mode or the container attached to any other network, the refreshed " +
					"value is what the engine shows (for example `\"bridge\"`), so the plan replaces the sandbox.",
				Optional:      true,
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
				Validators:    []validator.String{stringvalidator.OneOf(isolation.NoneMode)},
			},
			"entrypoint": schema.ListAttribute{
				MarkdownDescription: "Entrypoint, overriding the image's. When both `entrypoint` and `command` are " +
					"omitted, the sandbox runs the keep-alive `tail -f /dev/null` (the image must provide `tail`), " +
					"whatever the image's own command is. Changing it forces replacement.",
				ElementType:   types.StringType,
				Optional:      true,
				PlanModifiers: []planmodifier.List{listplanmodifier.RequiresReplace()},
				Validators:    []validator.List{listvalidator.SizeAtLeast(1)},
			},
			"command": schema.ListAttribute{
				MarkdownDescription: "Command, overriding the image's, run by the image's entrypoint (or by " +
					"`entrypoint` when set). It should keep running: a sandbox whose command exits is not running. " +
					"Changing it forces replacement.",
				ElementType:   types.StringType,
				Optional:      true,
				PlanModifiers: []planmodifier.List{listplanmodifier.RequiresReplace()},
				Validators:    []validator.List{listvalidator.SizeAtLeast(1)},
			},
			"env": schema.MapAttribute{
				MarkdownDescription: "Environment variables added to the image's. Sensitive: values are hidden " +
					"in plans, but they are stored in the state. Changing it forces replacement.",
				ElementType:   types.StringType,
				Optional:      true,
				Sensitive:     true,
				PlanModifiers: []planmodifier.Map{mapplanmodifier.RequiresReplace()},
				Validators: []validator.Map{mapvalidator.KeysAre(
					stringvalidator.RegexMatches(envNamePattern, "must be non-empty and contain no '='"),
				)},
			},
			"labels": schema.MapAttribute{
				MarkdownDescription: "Labels added to the container. The provider also stamps its own labels " +
					"(`" + labelManagedBy + "`, `" + labelResourceType + "` and, with `env_wo`, `" + labelSecretEnv +
					"`), which cannot be set here. Changing it forces replacement.",
				ElementType:   types.StringType,
				Optional:      true,
				PlanModifiers: []planmodifier.Map{mapplanmodifier.RequiresReplace()},
				Validators: []validator.Map{mapvalidator.KeysAre(
					stringvalidator.LengthAtLeast(1),
					stringvalidator.NoneOf(labelManagedBy, labelResourceType, labelSecretEnv),
				)},
			},
			"working_dir": schema.StringAttribute{
				MarkdownDescription: "Working directory of the sandbox's processes, overriding the image's. " +
					"Changing it forces replacement.",
				Optional:      true,
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
				Validators:    []validator.String{stringvalidator.LengthAtLeast(1)},
			},
			"user": schema.StringAttribute{
				MarkdownDescription: "User (and optionally group) the sandbox runs as, as `name`, `uid` or " +
					"`uid:gid`, overriding the image's. Changing it forces replacement.",
				Optional:      true,
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
				Validators:    []validator.String{stringvalidator.LengthAtLeast(1)},
			},
			"init": schema.BoolAttribute{
				MarkdownDescription: "Run the engine's init process (`docker-init`) as PID 1, so that the sandbox " +
					"reaps zombie processes and stops promptly on SIGTERM. Defaults to `true`. Changing it forces " +
					"replacement.",
				Optional:      true,
				Computed:      true,
				Default:       booldefault.StaticBool(defaultInit),
				PlanModifiers: []planmodifier.Bool{boolplanmodifier.RequiresReplace()},
			},
			"running": schema.BoolAttribute{
				MarkdownDescription: "Whether the sandbox should be running. Defaults to `true`. Refresh records " +
					"what the engine shows (a paused sandbox is not running), so a sandbox stopped or paused " +
					"outside Terraform plans an in-place update, and apply starts or unpauses it. Set `false` to " +
					"keep the container but stop it.",
				Optional: true,
				Computed: true,
				Default:  booldefault.StaticBool(defaultRunning),
			},
			"stop_timeout": schema.Int64Attribute{
				MarkdownDescription: "Seconds the provider waits for the sandbox to exit after SIGTERM before it " +
					"kills it, when it stops (`running = false`) or destroys it. Defaults to `10`. Changing it " +
					"updates the state only.",
				Optional:   true,
				Computed:   true,
				Default:    int64default.StaticInt64(defaultStopTimeout),
				Validators: []validator.Int64{int64validator.AtLeast(0)},
			},
			"networks": schema.SetAttribute{
				MarkdownDescription: "Observed: names of the networks the container is attached to, as the engine " +
					"reports them (`[\"none\"]` for an isolated sandbox).",
				ElementType:   types.StringType,
				Computed:      true,
				PlanModifiers: []planmodifier.Set{setplanmodifier.UseStateForUnknown()},
			},
			"image_id": schema.StringAttribute{
				MarkdownDescription: "Observed: ID of the image the container runs.",
				Computed:            true,
				PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
		},
	}
}

// containerSchemaV0 is the schema of version 0, which predated network_mode.
// It is frozen: it describes states written by that version, and only its
// types matter.
func containerSchemaV0() *schema.Schema {
	s := containerSchemaV1()
	s.Version = 0
	delete(s.Attributes, "network_mode")
	return s
}

// containerSchemaV1 is the schema of version 1, which predated hardening,
// limits, ports, files, secrets and timeouts. It is frozen.
func containerSchemaV1() *schema.Schema {
	str := func() schema.StringAttribute { return schema.StringAttribute{Optional: true, Computed: true} }
	strList := func() schema.ListAttribute {
		return schema.ListAttribute{ElementType: types.StringType, Optional: true}
	}
	strMap := func() schema.MapAttribute {
		return schema.MapAttribute{ElementType: types.StringType, Optional: true}
	}
	return &schema.Schema{
		Version: 1,
		Attributes: map[string]schema.Attribute{
			"id":           str(),
			"name":         str(),
			"image":        schema.StringAttribute{Required: true},
			"network_mode": schema.StringAttribute{Optional: true},
			"entrypoint":   strList(),
			"command":      strList(),
			"env":          schema.MapAttribute{ElementType: types.StringType, Optional: true, Sensitive: true},
			"labels":       strMap(),
			"working_dir":  schema.StringAttribute{Optional: true},
			"user":         schema.StringAttribute{Optional: true},
			"init":         schema.BoolAttribute{Optional: true, Computed: true},
			"running":      schema.BoolAttribute{Optional: true, Computed: true},
			"stop_timeout": schema.Int64Attribute{Optional: true, Computed: true},
			"networks":     schema.SetAttribute{ElementType: types.StringType, Computed: true},
			"image_id":     schema.StringAttribute{Computed: true},
		},
	}
}

// containerModelV1 is a state written by schema version 1.
type containerModelV1 struct {
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
}

// containerModelV0 is a state written by schema version 0.
type containerModelV0 struct {
	ID          types.String `tfsdk:"id"`
	Name        types.String `tfsdk:"name"`
	Image       types.String `tfsdk:"image"`
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
}

// upgradeFromV0 carries a version 0 state over; network_mode, which version
// 0 did not have, is null: the engine's default, as it was then.
func upgradeFromV0(old containerModelV0) containerModel {
	return upgradeFromV1(containerModelV1{
		ID:          old.ID,
		Name:        old.Name,
		Image:       old.Image,
		NetworkMode: types.StringNull(),
		Entrypoint:  old.Entrypoint,
		Command:     old.Command,
		Env:         old.Env,
		Labels:      old.Labels,
		WorkingDir:  old.WorkingDir,
		User:        old.User,
		Init:        old.Init,
		Running:     old.Running,
		StopTimeout: old.StopTimeout,
		Networks:    old.Networks,
		ImageID:     old.ImageID,
	})
}

// upgradeFromV1 carries a version 1 state over. The new attributes record
// what version 1 created: no limits, a writable root, and no
// no-new-privileges, so a configuration that keeps the default
// no_new_privileges = true plans a replacement with a hardened sandbox.
func upgradeFromV1(old containerModelV1) containerModel {
	m := containerModel{
		ID:          old.ID,
		Name:        old.Name,
		Image:       old.Image,
		NetworkMode: old.NetworkMode,
		Entrypoint:  old.Entrypoint,
		Command:     old.Command,
		Env:         old.Env,
		Labels:      old.Labels,
		WorkingDir:  old.WorkingDir,
		User:        old.User,
		Init:        old.Init,
		Running:     old.Running,
		StopTimeout: old.StopTimeout,
		Networks:    old.Networks,
		ImageID:     old.ImageID,
	}
	m.setHardeningNull()
	m.NoNewPrivileges = types.BoolValue(false)
	m.ReadOnly = types.BoolValue(defaultReadOnly)
	m.AllowUnconfined = types.BoolValue(defaultAllowUnconfined)
	return m
}

// containerStateUpgraders has one upgrader per earlier schema version, each
// straight to the current one.
func containerStateUpgraders() map[int64]resource.StateUpgrader {
	return map[int64]resource.StateUpgrader{
		0: {PriorSchema: containerSchemaV0(), StateUpgrader: upgrader(upgradeFromV0)},
		1: {PriorSchema: containerSchemaV1(), StateUpgrader: upgrader(upgradeFromV1)},
	}
}

// upgrader reads a prior state into T and writes what upgrade makes of it.
func upgrader[T any](upgrade func(T) containerModel) func(context.Context, resource.UpgradeStateRequest, *resource.UpgradeStateResponse) {
	return func(ctx context.Context, req resource.UpgradeStateRequest, resp *resource.UpgradeStateResponse) {
		var old T
		resp.Diagnostics.Append(req.State.Get(ctx, &old)...)
		if resp.Diagnostics.HasError() {
			return
		}
		resp.Diagnostics.Append(resp.State.Set(ctx, upgrade(old))...)
	}
}
