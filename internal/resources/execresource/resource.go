// Package execresource implements the sandbox_exec resource: a command run
// in a sandbox during apply.
package execresource

import (
	"context"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/resource"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/framework/base"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/framework/values"
)

var (
	_ resource.Resource                   = &Resource{}
	_ resource.ResourceWithConfigure      = &Resource{}
	_ resource.ResourceWithUpgradeState   = &Resource{}
	_ resource.ResourceWithValidateConfig = &Resource{}
	_ resource.ResourceWithModifyPlan     = &Resource{}
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

// ValidateConfig refuses env_wo without env_wo_version, a variable in both
// env and env_wo, and env_wo on a CLI that would store it.
func (r *Resource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var m resourceModel
	if resp.Diagnostics.Append(values.GetConfig(ctx, req.Config, &m)...); resp.Diagnostics.HasError() {
		return
	}
	resp.Diagnostics.Append(m.Validate(m.commandModel.Env, secretUsage)...)
	resp.Diagnostics.Append(m.NeedsCapableCLI(req.ClientCapabilities.WriteOnlyAttributesAllowed)...)
}

// Create runs the command in the sandbox, within its timeout, and records
// what it gave. A failure records nothing, so the next apply runs it again.
func (r *Resource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan resourceModel
	if resp.Diagnostics.Append(values.GetPlan(ctx, req.Plan, &plan)...); resp.Diagnostics.HasError() {
		return
	}
	secretEnv, diags := secretEnv(ctx, req.Config)
	if resp.Diagnostics.Append(diags...); resp.Diagnostics.HasError() {
		return
	}
	if resp.Diagnostics.Append(r.run(ctx, &plan, secretEnv)...); resp.Diagnostics.HasError() {
		return
	}
	resp.Diagnostics.Append(values.SetState(ctx, &resp.State, plan)...)
}

// Read checks that the sandbox still exists: when it is gone, the command
// is removed from the state, so the plan runs it again in the sandbox
// that replaces it.
func (r *Resource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state resourceModel
	if resp.Diagnostics.Append(values.GetState(ctx, req.State, &state)...); resp.Diagnostics.HasError() {
		return
	}
	exists, diags := r.sandboxExists(ctx, state.ContainerID.ValueString())
	if resp.Diagnostics.Append(diags...); !diags.HasError() && !exists {
		resp.State.RemoveResource(ctx)
	}
}

// Update records timeout and success_exit_codes: everything else runs the
// command again.
func (r *Resource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan resourceModel
	if resp.Diagnostics.Append(values.GetPlan(ctx, req.Plan, &plan)...); resp.Diagnostics.HasError() {
		return
	}
	resp.Diagnostics.Append(values.SetState(ctx, &resp.State, plan)...)
}

// Delete forgets the command; the sandbox is left alone.
func (r *Resource) Delete(context.Context, resource.DeleteRequest, *resource.DeleteResponse) {}

// UpgradeState upgrades states written by earlier schema versions.
func (r *Resource) UpgradeState(_ context.Context) map[int64]resource.StateUpgrader {
	return stateUpgraders()
}

// program names a command in messages by its program alone: its arguments
// may hold secrets, which the provider cannot tell from the rest (Terraform
// does not say which values it holds as sensitive).
func program(cmd []string) string {
	return fmt.Sprintf("The command %q (its arguments are not shown)", cmd[0])
}

// tail is the end of a stream for an error message, or a note that it is
// withheld, and why.
func tail(name, text string, hidden bool, because string) string {
	text = strings.TrimSpace(text)
	switch {
	case text == "":
		return ""
	case hidden:
		return fmt.Sprintf("\n\nIts %s is not shown: %s.", name, because)
	}
	return fmt.Sprintf("\n\nEnd of its %s:\n%s", name, text)
}

// ModifyPlan refuses, on a Kubernetes cluster, what a command run there
// cannot have. It only reads.
func (r *Resource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() || r.Client == nil {
		return
	}
	var plan resourceModel
	if resp.Diagnostics.Append(values.GetPlan(ctx, req.Plan, &plan)...); resp.Diagnostics.HasError() {
		return
	}
	secretEnv, diags := secretEnv(ctx, req.Config)
	if resp.Diagnostics.Append(diags...); resp.Diagnostics.HasError() {
		return
	}
	resp.Diagnostics.Append(plan.refused(ctx, r.Client, len(secretEnv) > 0)...)
}
