package execresource

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/mapvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/ephemeral"
	"github.com/hashicorp/terraform-plugin-framework/ephemeral/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/framework/base"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/framework/timeouts"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/framework/validators"
)

// The ephemeral sandbox_exec: the same command, run the same way, whose
// exit code and output are ephemeral values that no plan or state keeps.

var _ ephemeral.EphemeralResourceWithConfigure = &Ephemeral{}

// NewEphemeral returns the ephemeral sandbox_exec.
func NewEphemeral() ephemeral.EphemeralResource {
	return &Ephemeral{}
}

// Ephemeral runs one command in a sandbox each time Terraform opens it.
type Ephemeral struct {
	base.EphemeralResource
}

// ephemeralModel is the ephemeral sandbox_exec: the command, as the
// resource's, and what it gave.
type ephemeralModel struct {
	ContainerID types.String `tfsdk:"container_id"`
	commandModel
	ExitCode        types.Int64  `tfsdk:"exit_code"`
	Stdout          types.String `tfsdk:"stdout"`
	Stderr          types.String `tfsdk:"stderr"`
	StdoutTruncated types.Bool   `tfsdk:"stdout_truncated"`
	StderrTruncated types.Bool   `tfsdk:"stderr_truncated"`
}

// Metadata names the ephemeral resource.
func (e *Ephemeral) Metadata(_ context.Context, req ephemeral.MetadataRequest, resp *ephemeral.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_exec"
}

// Schema describes the ephemeral resource.
func (e *Ephemeral) Schema(_ context.Context, _ ephemeral.SchemaRequest, resp *ephemeral.SchemaResponse) {
	resp.Schema = ephemeralSchema()
}

func ephemeralSchema() schema.Schema { //nolint:funlen // a schema literal
	computed := func(desc string) schema.StringAttribute {
		return schema.StringAttribute{MarkdownDescription: desc, Computed: true}
	}
	return schema.Schema{
		MarkdownDescription: "A command run in a running sandbox each time Terraform opens this ephemeral " +
			"resource, whose exit code and output are ephemeral values: never written to the plan or the " +
			"state, usable in write-only arguments (such as `sandbox_container`'s `env_wo`), provider blocks " +
			"and other ephemeral contexts. **Terraform opens it during every plan as well as every apply**, " +
			"so it is for commands without side effects, such as reading a token a sandbox minted. It runs as " +
			"the `sandbox_exec` resource runs a command: bounded output, `timeout` (the command and all its " +
			"processes are killed), Ctrl-C, and `success_exit_codes`. Its errors never show its output, " +
			"which may be a secret. A plan whose sandbox does not exist yet leaves its values unknown.",
		Attributes: map[string]schema.Attribute{
			"container_id": schema.StringAttribute{
				MarkdownDescription: "ID of the running sandbox to run in, such as `sandbox_container.agent.id`.",
				Required:            true,
				Validators:          []validator.String{stringvalidator.LengthAtLeast(1)},
			},
			"command": schema.ListAttribute{
				MarkdownDescription: "Program and arguments, run without a shell (for one, use `[\"sh\", \"-c\", " +
					"\"...\"]`). Errors name the program only.",
				ElementType: types.StringType,
				Required:    true,
				Validators:  []validator.List{listvalidator.SizeAtLeast(1)},
			},
			"env": schema.MapAttribute{
				MarkdownDescription: "Environment variables added for the command, by name. Sensitive; " +
					"ephemeral values are welcome here.",
				ElementType: types.StringType,
				Optional:    true,
				Sensitive:   true,
				Validators: []validator.Map{mapvalidator.KeysAre(stringvalidator.RegexMatches(envName,
					"must be a variable name: non-empty, without '='"))},
			},
			"user": schema.StringAttribute{
				MarkdownDescription: "User, and optionally group, to run as; the sandbox's user when omitted.",
				Optional:            true,
				Validators:          []validator.String{stringvalidator.LengthAtLeast(1)},
			},
			"working_dir": schema.StringAttribute{
				MarkdownDescription: "Absolute directory to run in; the sandbox's when omitted.",
				Optional:            true,
				Validators:          []validator.String{validators.AbsolutePath()},
			},
			"timeout": schema.StringAttribute{
				MarkdownDescription: "How long the command may run, as a duration such as `\"30s\"` (default `\"" +
					timeouts.Short(defaultTimeout) + "\"`); then it is stopped with all its processes, and the " +
					"plan or apply fails.",
				Optional:   true,
				Computed:   true,
				Validators: []validator.String{validators.PositiveDuration()},
			},
			"success_exit_codes": schema.ListAttribute{
				MarkdownDescription: "Exit codes that count as success (default `[0]`); any other fails the plan " +
					"or apply with the code.",
				ElementType: types.Int64Type,
				Optional:    true,
				Computed:    true,
				Validators:  []validator.List{listvalidator.SizeAtLeast(1)},
			},
			"exit_code": schema.Int64Attribute{
				MarkdownDescription: "The command's exit code, one of `success_exit_codes`.",
				Computed:            true,
			},
			"stdout": computed("The command's standard output, its first 64 KiB (see `stdout_truncated`)."),
			"stderr": computed("The command's standard error, its first 64 KiB (see `stderr_truncated`)."),
			"stdout_truncated": schema.BoolAttribute{
				MarkdownDescription: "Whether standard output was longer than 64 KiB and was cut.",
				Computed:            true,
			},
			"stderr_truncated": schema.BoolAttribute{
				MarkdownDescription: "Whether standard error was longer than 64 KiB and was cut.",
				Computed:            true,
			},
		},
	}
}

// Open runs the command and returns what it gave.
func (e *Ephemeral) Open(ctx context.Context, req ephemeral.OpenRequest, resp *ephemeral.OpenResponse) {
	var m ephemeralModel
	if resp.Diagnostics.Append(req.Config.Get(ctx, &m)...); resp.Diagnostics.HasError() {
		return
	}
	spec, timeout, diags := m.prepared(ctx, e.Client, "the ephemeral sandbox_exec was opened", false)
	if resp.Diagnostics.Append(diags...); resp.Diagnostics.HasError() {
		return
	}
	res, diags := runIn(ctx, e.Client, run{
		sandbox: m.ContainerID.ValueString(), spec: spec, timeout: timeout, codes: m.successCodes(ctx),
		secrets: m.secrets(ctx), hideOutput: true,
		hiddenBecause: "an ephemeral sandbox_exec's output is never printed, as it may be a secret",
	})
	if resp.Diagnostics.Append(diags...); resp.Diagnostics.HasError() {
		return
	}
	m.ExitCode = types.Int64Value(int64(res.ExitCode))
	m.Stdout, m.Stderr = types.StringValue(res.Stdout), types.StringValue(res.Stderr)
	m.StdoutTruncated, m.StderrTruncated = types.BoolValue(res.StdoutCut), types.BoolValue(res.StderrCut)
	resp.Diagnostics.Append(resp.Result.Set(ctx, m)...)
}
