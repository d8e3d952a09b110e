package execresource

import (
	"context"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/mapvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/listdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/listplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/mapplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/framework/base"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/framework/timeouts"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/framework/validators"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/framework/values"
)

// The command: what runs, as whom, where, for how long, and which exit
// codes count as success.

const defaultTimeout = 5 * time.Minute

var envName = regexp.MustCompile(`^[^=]+$`)

// defaultSuccessCodes is success_exit_codes when unset: [0].
func defaultSuccessCodes() types.List {
	return types.ListValueMust(types.Int64Type, []attr.Value{types.Int64Value(0)})
}

// commandModel is the command to run.
type commandModel struct {
	Command          types.List   `tfsdk:"command"`
	Env              types.Map    `tfsdk:"env"`
	User             types.String `tfsdk:"user"`
	WorkingDir       types.String `tfsdk:"working_dir"`
	Timeout          types.String `tfsdk:"timeout"`
	SuccessExitCodes types.List   `tfsdk:"success_exit_codes"`
}

func commandAttributes() map[string]schema.Attribute {
	rerun := "Changing it runs the command again."
	return map[string]schema.Attribute{
		"command": schema.ListAttribute{
			MarkdownDescription: "Program and arguments, run without a shell (for one, use `[\"sh\", \"-c\", " +
				"\"...\"]`). Errors and logs name the program only, and never show the arguments or the values " +
				"of `env`, which may hold secrets. " + rerun,
			ElementType:   types.StringType,
			Required:      true,
			Validators:    []validator.List{listvalidator.SizeAtLeast(1)},
			PlanModifiers: []planmodifier.List{listplanmodifier.RequiresReplace()},
		},
		"env": schema.MapAttribute{
			MarkdownDescription: "Environment variables added for the command, by name. Sensitive: they are " +
				"stored in the state but not shown in plans. " + rerun,
			ElementType: types.StringType,
			Optional:    true,
			Sensitive:   true,
			Validators: []validator.Map{mapvalidator.KeysAre(stringvalidator.RegexMatches(envName,
				"must be a variable name: non-empty, without '='"))},
			PlanModifiers: []planmodifier.Map{mapplanmodifier.RequiresReplace()},
		},
		"user": schema.StringAttribute{
			MarkdownDescription: "User, and optionally group, to run as (`\"1000\"`, `\"agent:agent\"`); the " +
				"sandbox's user when omitted. " + rerun,
			Optional:      true,
			Validators:    []validator.String{stringvalidator.LengthAtLeast(1)},
			PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
		},
		"working_dir": schema.StringAttribute{
			MarkdownDescription: "Absolute directory to run in; the sandbox's when omitted. " + rerun,
			Optional:            true,
			Validators:          []validator.String{validators.AbsolutePath()},
			PlanModifiers:       []planmodifier.String{stringplanmodifier.RequiresReplace()},
		},
		"timeout": schema.StringAttribute{
			MarkdownDescription: "How long the command may run, as a duration such as `\"30s\"` (default `\"" +
				timeouts.Short(defaultTimeout) + "\"`). A command still running then is stopped with all its " +
				"processes, and the apply fails; when any outlives a kill inside the sandbox, the sandbox is " +
				"restarted (see the interruptions guide). Changing it updates the state only.",
			Optional:   true,
			Computed:   true,
			Default:    stringdefault.StaticString(timeouts.Short(defaultTimeout)),
			Validators: []validator.String{validators.PositiveDuration()},
		},
		"success_exit_codes": schema.ListAttribute{
			MarkdownDescription: "Exit codes that count as success (default `[0]`); any other fails the apply " +
				"with the code and the end of the output. Changing it updates the state only.",
			ElementType: types.Int64Type,
			Optional:    true,
			Computed:    true,
			Default:     listdefault.StaticValue(defaultSuccessCodes()),
			Validators:  []validator.List{listvalidator.SizeAtLeast(1)},
		},
	}
}

// spec is the command as the engine runs it, keeping at most maxOutput
// bytes of each stream.
func (c commandModel) spec(ctx context.Context) (engine.ExecSpec, time.Duration, diag.Diagnostics) {
	var diags diag.Diagnostics
	spec := engine.ExecSpec{User: c.User.ValueString(), WorkingDir: c.WorkingDir.ValueString(), MaxOutput: maxOutput}
	diags.Append(c.Command.ElementsAs(ctx, &spec.Command, false)...)
	var env map[string]string
	diags.Append(c.Env.ElementsAs(ctx, &env, false)...)
	spec.Env = values.EnvList(env)
	timeout, err := time.ParseDuration(c.Timeout.ValueString())
	if err != nil {
		diags.AddError("Invalid timeout", fmt.Sprintf("timeout %q is not a duration: %v. Give it as Go writes "+
			"a duration, such as \"90s\" or \"5m\".", c.Timeout.ValueString(), err))
	}
	return spec, timeout, diags
}

// prepared is the command as an action or the ephemeral resource runs it
// (neither has defaults in its schema): with the defaults filled in, and
// what the backend refuses of it refused. what names the caller, for the
// error of a provider not yet configured; secretEnv says env_wo is set.
func (c *commandModel) prepared(ctx context.Context, client engine.Engine, what string, secretEnv bool) (
	engine.ExecSpec, time.Duration, diag.Diagnostics) {
	var diags diag.Diagnostics
	if client == nil {
		diags.AddError("Provider not configured", "The sandbox provider has no engine to run the command on: "+
			"its configuration was not known when "+what+". Make the provider block's host known before then.")
		return engine.ExecSpec{}, 0, diags
	}
	if c.Timeout.IsNull() {
		c.Timeout = types.StringValue(timeouts.Short(defaultTimeout))
	}
	if c.SuccessExitCodes.IsNull() {
		c.SuccessExitCodes = defaultSuccessCodes()
	}
	spec, timeout, diags := c.spec(ctx)
	if !diags.HasError() {
		diags.Append(c.refused(ctx, client, secretEnv)...)
	}
	return spec, timeout, diags
}

// secrets are the values no message may show: those of env, which is
// sensitive, and the command's arguments, any of which may be.
func (c commandModel) secrets(ctx context.Context) values.Secrets {
	secrets := c.envSecrets(ctx)
	var cmd []string
	_ = c.Command.ElementsAs(ctx, &cmd, false)
	if len(cmd) > 1 {
		secrets.Add(cmd[1:]...)
	}
	return secrets
}

// envSecrets are the values of env.
func (c commandModel) envSecrets(ctx context.Context) values.Secrets {
	var secrets values.Secrets
	var env map[string]string
	_ = c.Env.ElementsAs(ctx, &env, false)
	secrets.Add(slices.Collect(maps.Values(env))...)
	return secrets
}

// successCodes are the exit codes that count as success.
func (c commandModel) successCodes(ctx context.Context) []int64 {
	var codes []int64
	_ = c.SuccessExitCodes.ElementsAs(ctx, &codes, false)
	return codes
}

// refused is what the backend refuses of the command (engine.Rules): on
// a cluster, an environment, user or working directory of its own.
// secretEnv says env_wo is set.
func (c commandModel) refused(ctx context.Context, client engine.Engine, secretEnv bool) diag.Diagnostics {
	if client == nil {
		return nil
	}
	return base.Refusals(client.RefuseCommand(ctx, engine.PlannedCommand{Set: engine.Attributes{
		"env": !c.Env.IsNull(), "env_wo": secretEnv, "user": !c.User.IsNull(), "working_dir": !c.WorkingDir.IsNull(),
	}}))
}
