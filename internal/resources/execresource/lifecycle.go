package execresource

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/framework/values"
)

// The engine work behind Create and Read.

// sandboxExists reports whether the sandbox the command ran in is still on
// the engine.
func (r *Resource) sandboxExists(ctx context.Context, id string) (bool, diag.Diagnostics) {
	_, err := r.Client.InspectContainer(ctx, id)
	switch {
	case engine.IsNotFound(err):
		return false, nil
	case err != nil:
		return false, diag.Diagnostics{diag.NewErrorDiagnostic("Cannot read sandbox", fmt.Sprintf(
			"Inspecting container %s on %s failed: %s. %s", engine.ShortID(id),
			r.Client.Where(), engine.Brief(err), engine.NextStep(err, r.Client.Where())))}
	}
	return true, nil
}

// run runs the command in a running sandbox and records what it gave; an
// exit code outside success_exit_codes, or a timeout, is an error that
// quotes the end of the output.
func (r *Resource) run(ctx context.Context, m *resourceModel, secretEnv map[string]string) diag.Diagnostics {
	spec, timeout, diags := m.spec(ctx)
	if diags.HasError() {
		return diags
	}
	spec.Env = append(spec.Env, values.EnvList(secretEnv)...)
	secrets := m.secrets(ctx)
	secrets.Add(slices.Collect(maps.Values(secretEnv))...)
	res, diags := runIn(ctx, r.Client, run{
		sandbox: m.ContainerID.ValueString(), spec: spec, timeout: timeout, codes: m.successCodes(ctx), secrets: secrets,
		hideOutput: m.SensitiveOutput.ValueBool(), hiddenBecause: "sensitive_output is true",
	})
	if diags.HasError() {
		return diags
	}
	m.ID = types.StringValue(res.ID)
	m.observe(res)
	return diags
}

// run is one command to run in a sandbox, as the resource and the
// ephemeral resource run it.
type run struct {
	sandbox string
	spec    engine.ExecSpec
	timeout time.Duration
	codes   []int64 // the exit codes that count as success
	secrets values.Secrets
	// hideOutput keeps the output out of errors, for hiddenBecause.
	hideOutput    bool
	hiddenBecause string
}

// runIn runs the command in its sandbox, which must be running, within its
// timeout; an exit code outside its codes, or a timeout, is an error that
// quotes the end of the output unless it is hidden.
func runIn(ctx context.Context, client engine.Engine, c run) (engine.ExecResult, diag.Diagnostics) {
	var diags diag.Diagnostics
	id := c.sandbox
	sandbox, err := client.InspectContainer(ctx, id)
	switch {
	case engine.IsNotFound(err):
		diags.AddAttributeError(path.Root("container_id"), "No such sandbox", fmt.Sprintf(
			"No container %s exists on %s to run the command in. Give the ID of a "+
				"sandbox_container, such as sandbox_container.agent.id.", engine.ShortID(id), client.Where()))
		return engine.ExecResult{}, diags
	case err != nil:
		diags.AddError("Cannot read sandbox", fmt.Sprintf("Inspecting container %s on %s "+
			"failed: %s. %s", engine.ShortID(id), client.Where(), engine.Brief(err), engine.NextStep(err, client.Where())))
		return engine.ExecResult{}, diags
	case !engine.IsRunning(sandbox):
		diags.AddAttributeError(path.Root("container_id"), "Sandbox is not running", fmt.Sprintf(
			"Container %s on %s is not running, so the command cannot run in it. Set "+
				"running = true on its sandbox_container.", engine.ShortID(id), client.Where()))
		return engine.ExecResult{}, diags
	}

	spec := c.spec
	spec.Timeout = c.timeout
	res, err := client.RunExec(ctx, id, spec)
	var interrupted *engine.ExecInterruptedError
	switch {
	case errors.As(err, &interrupted) && errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil:
		diags.AddAttributeError(path.Root("timeout"), "Command timed out", c.secrets.Redact(fmt.Sprintf(
			"%s in sandbox %s ran longer than its timeout (%s): %v. Raise timeout, or make the command "+
				"finish sooner.", program(c.spec.Command), engine.ShortID(id), c.timeout, err)))
		return res, diags
	case err != nil:
		diags.AddError("Cannot run command", c.secrets.Redact(fmt.Sprintf("%s in sandbox %s could not be run "+
			"on %s: %v. %s", program(c.spec.Command), engine.ShortID(id), client.Where(), err,
			engine.NextStep(err, client.Where()))))
		return res, diags
	}
	if !slices.Contains(c.codes, int64(res.ExitCode)) {
		diags.AddError("Command failed", c.secrets.Redact(fmt.Sprintf("%s in sandbox %s exited %d, which is not "+
			"among success_exit_codes %v. Fix the command, or add its status to success_exit_codes.%s%s", program(c.spec.Command), engine.ShortID(id), res.ExitCode, c.codes,
			tail("standard error", res.StderrTail, c.hideOutput, c.hiddenBecause),
			tail("standard output", res.StdoutTail, c.hideOutput, c.hiddenBecause))))
	}
	return res, diags
}
