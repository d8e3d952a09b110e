package execresource

import (
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/boolplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
)

// What the command gave: its exit code and output, each stream bounded,
// in plain or sensitive attributes.

// maxOutput is how many bytes of each stream the state keeps.
const maxOutput = 64 << 10

// outputModel is what the command gave.
type outputModel struct {
	SensitiveOutput types.Bool   `tfsdk:"sensitive_output"`
	ExitCode        types.Int64  `tfsdk:"exit_code"`
	Stdout          types.String `tfsdk:"stdout"`
	Stderr          types.String `tfsdk:"stderr"`
	SensitiveStdout types.String `tfsdk:"sensitive_stdout"`
	SensitiveStderr types.String `tfsdk:"sensitive_stderr"`
	StdoutTruncated types.Bool   `tfsdk:"stdout_truncated"`
	StderrTruncated types.Bool   `tfsdk:"stderr_truncated"`
}

func outputAttributes() map[string]schema.Attribute {
	// What the command gave stays as it was until it runs again.
	keep := []planmodifier.String{stringplanmodifier.UseStateForUnknown()}
	keepBool := []planmodifier.Bool{boolplanmodifier.UseStateForUnknown()}
	observed := func(desc string) schema.StringAttribute {
		return schema.StringAttribute{MarkdownDescription: desc, Computed: true, PlanModifiers: keep}
	}
	return map[string]schema.Attribute{
		"sensitive_output": schema.BoolAttribute{
			MarkdownDescription: "Whether the output is a secret: when true it goes to `sensitive_stdout` and " +
				"`sensitive_stderr`, which plans and outputs do not show, and `stdout` and `stderr` stay null. " +
				"The state holds it either way. Changing it runs the command again.",
			Optional:      true,
			Computed:      true,
			Default:       booldefault.StaticBool(false),
			PlanModifiers: []planmodifier.Bool{boolplanmodifier.RequiresReplace()},
		},
		"exit_code": schema.Int64Attribute{
			MarkdownDescription: "Observed: the command's exit code, one of `success_exit_codes`.",
			Computed:            true,
			PlanModifiers:       []planmodifier.Int64{int64planmodifier.UseStateForUnknown()},
		},
		"stdout": observed("Observed: the command's standard output, its first 64 KiB (see " +
			"`stdout_truncated`); null with `sensitive_output`."),
		"stderr": observed("Observed: the command's standard error, its first 64 KiB (see " +
			"`stderr_truncated`); null with `sensitive_output`."),
		"sensitive_stdout": schema.StringAttribute{
			MarkdownDescription: "Observed: with `sensitive_output`, the command's standard output, its first 64 KiB.",
			Computed:            true,
			Sensitive:           true,
			PlanModifiers:       keep,
		},
		"sensitive_stderr": schema.StringAttribute{
			MarkdownDescription: "Observed: with `sensitive_output`, the command's standard error, its first 64 KiB.",
			Computed:            true,
			Sensitive:           true,
			PlanModifiers:       keep,
		},
		"stdout_truncated": schema.BoolAttribute{
			MarkdownDescription: "Observed: whether standard output was longer than 64 KiB and was cut.",
			Computed:            true,
			PlanModifiers:       keepBool,
		},
		"stderr_truncated": schema.BoolAttribute{
			MarkdownDescription: "Observed: whether standard error was longer than 64 KiB and was cut.",
			Computed:            true,
			PlanModifiers:       keepBool,
		},
	}
}

// observe records what the command gave.
func (o *outputModel) observe(res engine.ExecResult) {
	o.ExitCode = types.Int64Value(int64(res.ExitCode))
	o.StdoutTruncated, o.StderrTruncated = types.BoolValue(res.StdoutCut), types.BoolValue(res.StderrCut)
	plain, secret := &o.Stdout, &o.SensitiveStdout
	plainErr, secretErr := &o.Stderr, &o.SensitiveStderr
	if o.SensitiveOutput.ValueBool() {
		plain, secret, plainErr, secretErr = secret, plain, secretErr, plainErr
	}
	*plain, *secret = types.StringValue(res.Stdout), types.StringNull()
	*plainErr, *secretErr = types.StringValue(res.Stderr), types.StringNull()
}
