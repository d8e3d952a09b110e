package snapshotresource

import (
	"context"
	"fmt"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/action"
	"github.com/hashicorp/terraform-plugin-framework/action/schema"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/framework/base"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/framework/timeouts"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/framework/validators"
)

// The action sandbox_snapshot (Terraform 1.14 and later): a snapshot taken
// on demand, the resource's way, into a new file that no state records.

var _ action.ActionWithConfigure = &Action{}

// NewAction returns the sandbox_snapshot action.
func NewAction() action.Action { return &Action{} }

// Action takes a snapshot each time it is invoked. It embeds the resource,
// whose way of taking one it shares.
type Action struct {
	Resource
}

// actionModel is the action's configuration.
type actionModel struct {
	Volume    types.String `tfsdk:"volume"`
	Directory types.String `tfsdk:"directory"`
	MaxSizeMB types.Int64  `tfsdk:"max_size_mb"`
	MaxFiles  types.Int64  `tfsdk:"max_files"`
	Timeout   types.String `tfsdk:"timeout"`
}

// Configure takes the provider's engine client.
func (a *Action) Configure(ctx context.Context, req action.ConfigureRequest, resp *action.ConfigureResponse) {
	var b base.Action
	b.Configure(ctx, req, resp)
	a.Client = b.Client
}

// Metadata names the action.
func (a *Action) Metadata(_ context.Context, req action.MetadataRequest, resp *action.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_snapshot"
}

// Schema describes the action.
func (a *Action) Schema(_ context.Context, _ action.SchemaRequest, resp *action.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "A snapshot of a volume taken when the action is invoked (`terraform apply " +
			"-invoke=action.sandbox_snapshot.NAME`, or by an `action_trigger`), as `sandbox_snapshot` takes " +
			"one: the same archive, digest, bounds and paused writers, into a new file in `directory`. No " +
			"state records it, and nothing removes it: the apply shows its path and SHA-256, to give to " +
			"`sandbox_volume.snapshot`.",
		Attributes: map[string]schema.Attribute{
			"volume": schema.StringAttribute{
				MarkdownDescription: "Name of the volume (a `sandbox_volume`'s `name`).",
				Required:            true,
				Validators:          []validator.String{volumeValidator()},
			},
			"directory": schema.StringAttribute{
				MarkdownDescription: "Directory on the machine running Terraform to write the archive into " +
					"(made with mode 0700 when missing).",
				Required:   true,
				Validators: []validator.String{stringvalidator.LengthAtLeast(1)},
			},
			"max_size_mb": schema.Int64Attribute{
				MarkdownDescription: fmt.Sprintf("Most MiB the volume's files may hold, from 1 to %d (default `%d`).",
					int64(maxMaxSizeMB), defaultMaxSizeMB),
				Optional:   true,
				Validators: []validator.Int64{int64validator.Between(1, maxMaxSizeMB)},
			},
			"max_files": schema.Int64Attribute{
				MarkdownDescription: fmt.Sprintf("Most entries the volume may hold, from 1 to %d (default `%d`).",
					maxMaxFiles, defaultMaxFiles),
				Optional:   true,
				Validators: []validator.Int64{int64validator.Between(1, maxMaxFiles)},
			},
			"timeout": schema.StringAttribute{
				MarkdownDescription: "How long taking it may take, as a duration (default `\"" +
					timeouts.Short(defaultCreateTimeout) + "\"`).",
				Optional:   true,
				Validators: []validator.String{validators.PositiveDuration()},
			},
		},
	}
}

// Invoke takes the snapshot and shows where it is.
func (a *Action) Invoke(ctx context.Context, req action.InvokeRequest, resp *action.InvokeResponse) {
	var c actionModel
	if resp.Diagnostics.Append(req.Config.Get(ctx, &c)...); resp.Diagnostics.HasError() {
		return
	}
	if a.Client == nil {
		resp.Diagnostics.AddError("Provider not configured", "The sandbox provider has no engine to read the "+
			"volume from: its configuration was not known when the action was invoked. Give the provider block "+
			"values known at plan, and invoke the action again.")
		return
	}
	m := resourceModel{Volume: c.Volume, Directory: c.Directory, MaxSizeMB: c.MaxSizeMB, MaxFiles: c.MaxFiles}
	if m.MaxSizeMB.IsNull() {
		m.MaxSizeMB = types.Int64Value(defaultMaxSizeMB)
	}
	if m.MaxFiles.IsNull() {
		m.MaxFiles = types.Int64Value(defaultMaxFiles)
	}
	timeout := defaultCreateTimeout
	if !c.Timeout.IsNull() {
		var err error
		if timeout, err = time.ParseDuration(c.Timeout.ValueString()); err != nil {
			resp.Diagnostics.AddAttributeError(path.Root("timeout"), "Invalid timeout", err.Error()+
				`. Give it as Go writes a duration, such as "90s" or "5m".`)
			return
		}
	}
	ctx, cancel := timeouts.Within(ctx, "timeout", timeout)
	defer cancel()
	if resp.Diagnostics.Append(a.take(ctx, &m)...); resp.Diagnostics.HasError() {
		return
	}
	if resp.SendProgress != nil {
		resp.SendProgress(action.InvokeProgressEvent{Message: fmt.Sprintf("snapshot of the volume %q: %s "+
			"(sha256 %s, %d files, %d bytes)", c.Volume.ValueString(), m.File.ValueString(), m.SHA256.ValueString(),
			m.Files.ValueInt64(), m.SizeBytes.ValueInt64())})
	}
}
