package execresource

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/mapvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/action"
	"github.com/hashicorp/terraform-plugin-framework/action/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/framework/base"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/framework/timeouts"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/framework/validators"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/framework/values"
)

// The action sandbox_exec (Terraform 1.14 and later): the same command, run
// the same way, on demand (terraform apply -invoke) or when a resource's
// action_trigger fires, with nothing in the state. Its output reaches the
// user as progress lines, unless sensitive_output.

var _ action.ActionWithConfigure = &Action{}

// NewAction returns the sandbox_exec action.
func NewAction() action.Action { return &Action{} }

// Action runs one command in a sandbox each time it is invoked.
type Action struct {
	base.Action
}

// actionModel is the action's configuration.
type actionModel struct {
	ContainerID types.String `tfsdk:"container_id"`
	commandModel
	EnvWO           types.Map  `tfsdk:"env_wo"`
	SensitiveOutput types.Bool `tfsdk:"sensitive_output"`
}

// Metadata names the action.
func (a *Action) Metadata(_ context.Context, req action.MetadataRequest, resp *action.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_exec"
}

// Schema describes the action.
func (a *Action) Schema(_ context.Context, _ action.SchemaRequest, resp *action.SchemaResponse) {
	resp.Schema = actionSchema()
}

func actionSchema() schema.Schema { //nolint:funlen // a schema literal
	envKeys := []validator.Map{mapvalidator.KeysAre(stringvalidator.RegexMatches(envName,
		"must be a variable name: non-empty, without '='"))}
	return schema.Schema{
		MarkdownDescription: "A command run in a running sandbox when the action is invoked: on demand with " +
			"`terraform apply -invoke=action.sandbox_exec.NAME`, or after a resource's create or update by an " +
			"`action_trigger` in its `lifecycle` (Terraform 1.14 and later). Nothing is written to the plan or " +
			"the state. It runs as the `sandbox_exec` resource runs a command: without a shell, bounded output, " +
			"`timeout` (the command and all its processes are killed, and the sandbox restarted when one " +
			"survives), Ctrl-C, `success_exit_codes`, and errors that never quote its arguments or environment. " +
			"Each line of its output (the first 64 KiB of each stream) is shown as it comes, unless " +
			"`sensitive_output` is true.",
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
				MarkdownDescription: "Environment variables added for the command, by name. An action's " +
					"arguments are never stored, and errors never show these values; ephemeral values are " +
					"welcome. An action's arguments cannot be marked sensitive: give a secret as a sensitive or " +
					"ephemeral value (a `sensitive` variable, an ephemeral resource's result), which Terraform " +
					"hides.",
				ElementType: types.StringType,
				Optional:    true,
				Validators:  envKeys,
			},
			"env_wo": schema.MapAttribute{
				MarkdownDescription: "Environment variables added for the command, as `env`, under the resource's " +
					"name for them, so that a command moves between the resource and the action unchanged. " +
					"(Terraform refuses write-only arguments in actions; an action's are never stored anyway.)",
				ElementType: types.StringType,
				Optional:    true,
				Validators:  envKeys,
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
					"apply fails.",
				Optional:   true,
				Validators: []validator.String{validators.PositiveDuration()},
			},
			"success_exit_codes": schema.ListAttribute{
				MarkdownDescription: "Exit codes that count as success (default `[0]`); any other fails the apply " +
					"with the code and, unless `sensitive_output`, the end of the output.",
				ElementType: types.Int64Type,
				Optional:    true,
				Validators:  []validator.List{listvalidator.SizeAtLeast(1)},
			},
			"sensitive_output": schema.BoolAttribute{
				MarkdownDescription: "Whether the output is a secret: then no line of it is shown, and errors " +
					"leave it out. Default `false`.",
				Optional: true,
			},
		},
	}
}

// Invoke runs the command, showing its output line by line.
func (a *Action) Invoke(ctx context.Context, req action.InvokeRequest, resp *action.InvokeResponse) {
	var m actionModel
	if resp.Diagnostics.Append(req.Config.Get(ctx, &m)...); resp.Diagnostics.HasError() {
		return
	}
	var secretEnv map[string]string
	if resp.Diagnostics.Append(m.EnvWO.ElementsAs(ctx, &secretEnv, false)...); resp.Diagnostics.HasError() {
		return
	}
	spec, timeout, diags := m.prepared(ctx, a.Client, "the action was invoked", len(secretEnv) > 0)
	if resp.Diagnostics.Append(diags...); resp.Diagnostics.HasError() {
		return
	}
	spec.Env = append(spec.Env, values.EnvList(secretEnv)...)
	secrets := m.secrets(ctx)
	secrets.Add(slices.Collect(maps.Values(secretEnv))...)
	hide := m.SensitiveOutput.ValueBool()
	if !hide && resp.SendProgress != nil {
		// The output is shown as the resource records it, but for the
		// values of env and env_wo, which are secrets (errors also hide
		// the arguments).
		envSecrets := m.envSecrets(ctx)
		envSecrets.Add(slices.Collect(maps.Values(secretEnv))...)
		spec.Lines = func(stream, line string) {
			resp.SendProgress(action.InvokeProgressEvent{Message: envSecrets.Redact(stream + ": " + line)})
		}
	}
	res, diags := runIn(ctx, a.Client, run{
		sandbox: m.ContainerID.ValueString(), spec: spec, timeout: timeout, codes: m.successCodes(ctx),
		secrets: secrets, hideOutput: hide, hiddenBecause: "sensitive_output is true",
	})
	if resp.Diagnostics.Append(diags...); resp.Diagnostics.HasError() {
		return
	}
	if resp.SendProgress != nil {
		resp.SendProgress(action.InvokeProgressEvent{Message: fmt.Sprintf("%s in sandbox %s exited %d",
			program(spec.Command), engine.ShortID(m.ContainerID.ValueString()), res.ExitCode)})
	}
}
