package execresource

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
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
			"Inspecting container %s on the Docker engine at %s failed: %s", engine.ShortID(id),
			r.Client.Endpoint(), engine.Brief(err)))}
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
	addSecrets(secretEnv, &spec)
	id := m.ContainerID.ValueString()
	c, err := r.Client.InspectContainer(ctx, id)
	switch {
	case engine.IsNotFound(err):
		diags.AddAttributeError(path.Root("container_id"), "No such sandbox", fmt.Sprintf(
			"No container %s exists on the Docker engine at %s to run the command in. Give the ID of a "+
				"sandbox_container, such as sandbox_container.agent.id.", engine.ShortID(id), r.Client.Endpoint()))
		return diags
	case err != nil:
		diags.AddError("Cannot read sandbox", fmt.Sprintf("Inspecting container %s on the Docker engine at %s "+
			"failed: %s", engine.ShortID(id), r.Client.Endpoint(), engine.Brief(err)))
		return diags
	case !engine.IsRunning(c):
		diags.AddAttributeError(path.Root("container_id"), "Sandbox is not running", fmt.Sprintf(
			"Container %s on the Docker engine at %s is not running, so the command cannot run in it. Set "+
				"running = true on its sandbox_container.", engine.ShortID(id), r.Client.Endpoint()))
		return diags
	}

	runCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	res, err := r.Client.RunExec(runCtx, id, spec)
	secrets := m.secrets(ctx)
	secrets.Add(slices.Collect(maps.Values(secretEnv))...)
	var interrupted *engine.ExecInterruptedError
	switch {
	case errors.As(err, &interrupted) && errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil:
		diags.AddAttributeError(path.Root("timeout"), "Command timed out", secrets.Redact(fmt.Sprintf(
			"%s in sandbox %s ran longer than its timeout (%s): %v. Raise timeout, or make the command "+
				"finish sooner.", program(spec.Command), engine.ShortID(id), timeout, err)))
		return diags
	case err != nil:
		diags.AddError("Cannot run command", secrets.Redact(fmt.Sprintf("Running %s in sandbox %s on the "+
			"Docker engine at %s failed: %v", program(spec.Command), engine.ShortID(id), r.Client.Endpoint(), err)))
		return diags
	}
	if ok, codes := m.succeeded(ctx, res.ExitCode); !ok {
		diags.AddError("Command failed", secrets.Redact(fmt.Sprintf("%s in sandbox %s exited %d, which is not "+
			"among success_exit_codes %v.%s%s", program(spec.Command), engine.ShortID(id), res.ExitCode, codes,
			tail("standard error", res.StderrTail, m.SensitiveOutput.ValueBool()),
			tail("standard output", res.StdoutTail, m.SensitiveOutput.ValueBool()))))
		return diags
	}
	m.ID = types.StringValue(res.ID)
	m.observe(res)
	return diags
}
