// Package poolresource implements the sandbox_pool resource: a warm pool
// of isolated sandboxes that agents claim at run time, on a cluster that
// runs agent-sandbox with its extensions (engine.Pools).
package poolresource

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/framework/base"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/framework/values"
)

var (
	_ resource.Resource                   = &Resource{}
	_ resource.ResourceWithConfigure      = &Resource{}
	_ resource.ResourceWithImportState    = &Resource{}
	_ resource.ResourceWithModifyPlan     = &Resource{}
	_ resource.ResourceWithValidateConfig = &Resource{}
)

// resourceType is the resource's type name, also stamped on what it makes.
const resourceType = "sandbox_pool"

// New returns the sandbox_pool resource.
func New() resource.Resource {
	return &Resource{}
}

// Resource manages one warm pool.
type Resource struct {
	base.Resource
}

// Metadata names the resource.
func (r *Resource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_pool"
}

// Schema describes the resource.
func (r *Resource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = resourceSchema()
}

// ValidateConfig refuses env_wo without its version, or beside env.
func (r *Resource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var m resourceModel
	if resp.Diagnostics.Append(values.GetConfig(ctx, req.Config, &m)...); resp.Diagnostics.HasError() {
		return
	}
	resp.Diagnostics.Append(m.Validate(m.Env, secretUsage)...)
	resp.Diagnostics.Append(m.NeedsCapableCLI(req.ClientCapabilities.WriteOnlyAttributesAllowed)...)
}

// ModifyPlan refuses, at create, a backend that keeps no pools; it only
// reads.
func (r *Resource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() || !req.State.Raw.IsNull() || r.Client == nil {
		return
	}
	pools, ok := r.Client.(engine.Pools)
	if !ok {
		resp.Diagnostics.AddError("Needs a cluster that runs agent-sandbox", "sandbox_pool is a SandboxTemplate and "+
			"a SandboxWarmPool of agent-sandbox, on a Kubernetes cluster, and the provider is configured for "+
			r.Client.Where()+". Give this resource a provider with a kubernetes block (a provider alias and "+
			"`provider = sandbox.<alias>`), or use sandbox_container here.")
		return
	}
	if err := pools.PoolsServed(ctx); err != nil {
		resp.Diagnostics.AddError("Cannot make a pool on this cluster", engine.Brief(err)+".")
	}
}

// Create makes the pool and waits until it is warm.
func (r *Resource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan resourceModel
	if resp.Diagnostics.Append(values.GetPlan(ctx, req.Plan, &plan)...); resp.Diagnostics.HasError() {
		return
	}
	var secretEnv map[string]string
	if resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("env_wo"), &secretEnv)...); resp.Diagnostics.HasError() {
		return
	}
	id, diags := r.create(ctx, &plan, secretEnv)
	resp.Diagnostics.Append(diags...)
	if id == "" {
		return
	}
	if diags.HasError() {
		// Made, but not warm, or interrupted: removed, or else recorded
		// (Terraform marks it tainted, and the next apply replaces it)
		// where the CLI can record a failed create.
		if id = r.undo(ctx, id, &resp.Diagnostics); id == "" {
			return
		}
	}
	resp.Diagnostics.Append(values.SetState(ctx, &resp.State, plan)...)
}

// Read judges the pool as the cluster shows it; a pool gone is removed
// from the state, so the plan makes it again.
func (r *Resource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state resourceModel
	if resp.Diagnostics.Append(values.GetState(ctx, req.State, &state)...); resp.Diagnostics.HasError() {
		return
	}
	found, diags := r.read(ctx, &state)
	if resp.Diagnostics.Append(diags...); resp.Diagnostics.HasError() {
		return
	}
	if !found {
		resp.State.RemoveResource(ctx)
		return
	}
	resp.Diagnostics.Append(values.SetState(ctx, &resp.State, state)...)
}

// Update scales the pool, the only attribute changed in place, and waits
// until it is warm.
func (r *Resource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan resourceModel
	if resp.Diagnostics.Append(values.GetPlan(ctx, req.Plan, &plan)...); resp.Diagnostics.HasError() {
		return
	}
	resp.Diagnostics.Append(r.scale(ctx, &plan)...)
	if !resp.Diagnostics.HasError() {
		resp.Diagnostics.Append(values.SetState(ctx, &resp.State, plan)...)
	}
}

// Delete removes the pool, refusing while claims hold its sandboxes.
func (r *Resource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state resourceModel
	if resp.Diagnostics.Append(values.GetState(ctx, req.State, &state)...); resp.Diagnostics.HasError() {
		return
	}
	resp.Diagnostics.Append(r.remove(ctx, state)...)
}

// ImportState imports a pool by its template's name (namespace/name, or
// a name in the provider's namespace) or its ID; the refresh after it
// reads every attribute the cluster shows.
func (r *Resource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	pools, diags := r.pools()
	if resp.Diagnostics.Append(diags...); resp.Diagnostics.HasError() {
		return
	}
	id, err := pools.PoolID(ctx, req.ID)
	if err != nil {
		resp.Diagnostics.AddError("Cannot import the pool", fmt.Sprintf("Importing %q on %s: %s. Give the name of a "+
			"SandboxTemplate of a pool (namespace/name, or a name in the provider's kubernetes.namespace), as "+
			"`kubectl get sandboxtemplates -A` lists them.", req.ID, r.Client.Where(), engine.Brief(err)))
		return
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), id)...)
}

// hardenedPlan plans hardened: true after a create, the state's value
// while it holds, and a replacement when a refresh found it false.
type hardenedPlan struct{}

func (hardenedPlan) Description(context.Context) string {
	return "a pool whose hardening was weakened is replaced"
}

func (p hardenedPlan) MarkdownDescription(ctx context.Context) string { return p.Description(ctx) }

func (hardenedPlan) PlanModifyBool(_ context.Context, req planmodifier.BoolRequest, resp *planmodifier.BoolResponse) {
	switch {
	case req.StateValue.IsNull() || req.Plan.Raw.IsNull():
		return
	case !req.StateValue.ValueBool():
		resp.PlanValue, resp.RequiresReplace = types.BoolValue(true), true
	default:
		resp.PlanValue = req.StateValue
	}
}
