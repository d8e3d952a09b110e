// Package execresource implements the sandbox_exec resource: a command run in a
// sandbox during apply. Its files: resource.go (the framework's methods,
// in scaffolding order), schema.go and model.go (which sandbox, and
// triggers), command.go (the command), output.go (what it gave) and
// upgrade.go.
package execresource

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/framework/base"
)

var (
	_ resource.Resource                 = &Resource{}
	_ resource.ResourceWithConfigure    = &Resource{}
	_ resource.ResourceWithUpgradeState = &Resource{}
)

// New returns the sandbox_exec resource.
func New() resource.Resource {
	return &Resource{}
}

// Resource runs one command in a sandbox.
type Resource struct {
	base.Resource
}

// Metadata names the resource.
func (r *Resource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_exec"
}

// Schema describes the resource.
func (r *Resource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = resourceSchema()
}

// Create runs the command in the sandbox, within its timeout, and records
// what it gave. A failure records nothing, so the next apply runs it again.
func (r *Resource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan resourceModel
	if resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...); resp.Diagnostics.HasError() {
		return
	}
	if resp.Diagnostics.Append(r.run(ctx, &plan)...); resp.Diagnostics.HasError() {
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, plan)...)
}

// Read checks that the sandbox still exists: when it is gone, the command
// is removed from the state, so the plan runs it again in the sandbox
// that replaces it.
func (r *Resource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state resourceModel
	if resp.Diagnostics.Append(req.State.Get(ctx, &state)...); resp.Diagnostics.HasError() {
		return
	}
	_, err := r.Client.InspectContainer(ctx, state.ContainerID.ValueString())
	switch {
	case engine.IsNotFound(err):
		resp.State.RemoveResource(ctx)
	case err != nil:
		resp.Diagnostics.AddError("Cannot read sandbox", fmt.Sprintf(
			"Inspecting container %s on the Docker engine at %s failed: %s", engine.ShortID(state.ContainerID.ValueString()),
			r.Client.Endpoint(), engine.Brief(err)))
	}
}

// Update records timeout and success_exit_codes: everything else runs the
// command again.
func (r *Resource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan resourceModel
	if resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...); resp.Diagnostics.HasError() {
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, plan)...)
}

// Delete forgets the command; the sandbox is left alone.
func (r *Resource) Delete(context.Context, resource.DeleteRequest, *resource.DeleteResponse) {}

// UpgradeState upgrades states written by earlier schema versions.
func (r *Resource) UpgradeState(_ context.Context) map[int64]resource.StateUpgrader {
	return stateUpgraders()
}

// run runs the command in a running sandbox and records what it gave; an
// exit code outside success_exit_codes, or a timeout, is an error that
// quotes the end of the output.
func (r *Resource) run(ctx context.Context, m *resourceModel) diag.Diagnostics {
	spec, timeout, diags := m.spec(ctx)
	if diags.HasError() {
		return diags
	}
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
	var interrupted *engine.ExecInterruptedError
	switch {
	case errors.As(err, &interrupted) && errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil:
		diags.AddAttributeError(path.Root("timeout"), "Command timed out", fmt.Sprintf(
			"%s in sandbox %s ran longer than its timeout (%s): %v. Raise timeout, or make the command "+
				"finish sooner.", quote(spec.Command), engine.ShortID(id), timeout, err))
		return diags
	case err != nil:
		diags.AddError("Cannot run command", fmt.Sprintf("Running %s in sandbox %s on the Docker engine at %s "+
			"failed: %v", quote(spec.Command), engine.ShortID(id), r.Client.Endpoint(), err))
		return diags
	}
	if ok, codes := m.succeeded(ctx, res.ExitCode); !ok {
		diags.AddError("Command failed", fmt.Sprintf("%s in sandbox %s exited %d, which is not among "+
			"success_exit_codes %v.%s%s", quote(spec.Command), engine.ShortID(id), res.ExitCode, codes,
			tail("standard error", res.StderrTail, m.SensitiveOutput.ValueBool()),
			tail("standard output", res.StdoutTail, m.SensitiveOutput.ValueBool())))
		return diags
	}
	m.ID = types.StringValue(res.ID)
	m.observe(res)
	return diags
}

// quote prints a command as a list, the way it was configured.
func quote(cmd []string) string {
	return fmt.Sprintf("%q", cmd)
}

// tail is the end of a stream for an error message, or a note that it is
// withheld because the output is sensitive.
func tail(name, text string, sensitive bool) string {
	text = strings.TrimSpace(text)
	switch {
	case text == "":
		return ""
	case sensitive:
		return fmt.Sprintf("\n\nIts %s is not shown: sensitive_output is true.", name)
	}
	return fmt.Sprintf("\n\nEnd of its %s:\n%s", name, text)
}
