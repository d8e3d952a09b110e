// Package volumeresource implements the sandbox_volume resource: a named
// engine volume that outlives the sandboxes that mount it.
package volumeresource

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/resource"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/framework/base"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/framework/identity"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/framework/planned"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/framework/values"
)

var (
	_ resource.Resource                   = &Resource{}
	_ resource.ResourceWithConfigure      = &Resource{}
	_ resource.ResourceWithImportState    = &Resource{}
	_ resource.ResourceWithIdentity       = &Resource{}
	_ resource.ResourceWithUpgradeState   = &Resource{}
	_ resource.ResourceWithModifyPlan     = &Resource{}
	_ resource.ResourceWithValidateConfig = &Resource{}
)

// resourceType is the resource's type name, also stamped on what it makes.
const resourceType = "sandbox_volume"

// New returns the sandbox_volume resource.
func New() resource.Resource {
	return &Resource{}
}

// Resource manages one named volume on the engine.
type Resource struct {
	base.Resource
}

// Metadata names the resource.
func (r *Resource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_volume"
}

// Schema describes the resource.
func (r *Resource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = resourceSchema()
}

// IdentitySchema describes the volume's identity (identity.go).
func (r *Resource) IdentitySchema(_ context.Context, _ resource.IdentitySchemaRequest, resp *resource.IdentitySchemaResponse) {
	resp.IdentitySchema = identitySchema()
}

// Create makes the volume, and records its create token in the private
// state: the token is what proves the volume the provider's.
func (r *Resource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan resourceModel
	if resp.Diagnostics.Append(values.GetPlan(ctx, req.Plan, &plan)...); resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel, diags := plan.within(ctx, false)
	defer cancel()
	if resp.Diagnostics.Append(diags...); resp.Diagnostics.HasError() {
		return
	}
	tokens, kept, diags := r.create(ctx, &plan)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() && (!kept || !r.CLI.SavesFailedCreates()) {
		// A CLI that cannot save a failed create's state would fail to
		// write the whole state (framework/cli): the error says what to
		// remove by hand.
		return
	}
	if kept {
		plan.ID = pendingID(tokens)
	}
	// A volume whose seeding failed and that could not be removed is
	// recorded all the same, and Terraform marks it tainted: the next apply
	// replaces it.
	resp.Diagnostics.Append(writeTokens(ctx, resp.Private, tokens)...)
	resp.Diagnostics.Append(values.SetState(ctx, &resp.State, plan)...)
	resp.Diagnostics.Append(identity.Set(ctx, resp.Identity, r.identityOf(plan.Name.ValueString()))...)
}

// Read checks, by name, that the volume the state recorded is still on the
// engine. One that is gone, or that another volume of the same name
// replaced, is removed from the state with a warning that its data is
// gone, so the plan creates it again.
func (r *Resource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state resourceModel
	if resp.Diagnostics.Append(values.GetState(ctx, req.State, &state)...); resp.Diagnostics.HasError() {
		return
	}
	tokens, diags := readTokens(ctx, req.Private, state.ID)
	if resp.Diagnostics.Append(diags...); resp.Diagnostics.HasError() {
		return
	}
	// A state from before identities gets one.
	resp.Diagnostics.Append(identity.SetIfMissing(ctx, resp.Identity, r.identityOf(state.Name.ValueString()))...)
	found, diags := r.refresh(ctx, &state, tokens.create)
	if resp.Diagnostics.Append(diags...); resp.Diagnostics.HasError() {
		return
	}
	if !found {
		resp.State.RemoveResource(ctx)
		return
	}
	resp.Diagnostics.Append(values.SetState(ctx, &resp.State, state)...)
}

// Update seeds the volume again when reseed changed, and records
// keep_on_destroy and the seed's inputs; a name or labels change replaces
// the volume.
func (r *Resource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan, state resourceModel
	resp.Diagnostics.Append(values.GetPlan(ctx, req.Plan, &plan)...)
	resp.Diagnostics.Append(values.GetState(ctx, req.State, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if plan.reseeds(state.seedModel) {
		ctx, cancel, diags := plan.within(ctx, false)
		defer cancel()
		if resp.Diagnostics.Append(diags...); resp.Diagnostics.HasError() {
			return
		}
		if err := r.seed(ctx, plan, engine.NewCreateToken()); err != nil {
			resp.Diagnostics.Append(seedDiagnostics(plan.Name.ValueString(), r.Client.Endpoint(), err)...)
			return
		}
	}
	resp.Diagnostics.Append(values.SetState(ctx, &resp.State, plan)...)
	// A CLI without identities (Terraform 1.11) keeps none between runs.
	resp.Diagnostics.Append(identity.SetIfMissing(ctx, resp.Identity, r.identityOf(plan.Name.ValueString()))...)
}

// Delete removes the volume, and its data with it; with keep_on_destroy it
// leaves the volume. A volume that containers mount is an error naming
// them.
func (r *Resource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state resourceModel
	if resp.Diagnostics.Append(values.GetState(ctx, req.State, &state)...); resp.Diagnostics.HasError() {
		return
	}
	if state.KeepOnDestroy.ValueBool() {
		return
	}
	ctx, cancel, diags := state.within(ctx, true)
	defer cancel()
	if resp.Diagnostics.Append(diags...); resp.Diagnostics.HasError() {
		return
	}
	tokens, diags := readTokens(ctx, req.Private, state.ID)
	if resp.Diagnostics.Append(diags...); resp.Diagnostics.HasError() {
		return
	}
	resp.Diagnostics.Append(r.remove(ctx, state, tokens)...)
}

// ImportState takes a volume by name or identity, only one that the
// provider's sandbox_volume made.
func (r *Resource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	name, diags := r.importName(req)
	if resp.Diagnostics.Append(diags...); resp.Diagnostics.HasError() {
		return
	}
	m, tokens, diags := r.importVolume(ctx, name)
	if resp.Diagnostics.Append(diags...); resp.Diagnostics.HasError() {
		return
	}
	resp.Diagnostics.Append(writeTokens(ctx, resp.Private, tokens)...)
	resp.Diagnostics.Append(values.SetState(ctx, &resp.State, m)...)
	resp.Diagnostics.Append(identity.Set(ctx, resp.Identity, r.identityOf(name))...)
}

// UpgradeState upgrades states written by earlier schema versions.
func (r *Resource) UpgradeState(_ context.Context) map[int64]resource.StateUpgrader {
	return stateUpgraders()
}

// ModifyPlan digests the seed's source, and plans whether the volume is
// seeded (at create, and when reseed changes). It only reads.
func (r *Resource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() {
		return
	}
	var plan resourceModel
	if resp.Diagnostics.Append(values.GetPlan(ctx, req.Plan, &plan)...); resp.Diagnostics.HasError() {
		return
	}
	var state *resourceModel
	if !req.State.Raw.IsNull() {
		state = &resourceModel{}
		if resp.Diagnostics.Append(req.State.Get(ctx, state)...); resp.Diagnostics.HasError() {
			return
		}
	}
	if r.Client != nil {
		p := plan.planned()
		p.Set[engine.FillsVolume] = state == nil || len(resp.RequiresReplace) > 0 || !plan.Reseed.Equal(state.Reseed)
		if resp.Diagnostics.Append(base.Refusals(r.Client.RefuseVolume(ctx, p))...); resp.Diagnostics.HasError() {
			return
		}
	}
	if plan.validateRestore(&resp.Diagnostics); resp.Diagnostics.HasError() {
		return
	}
	if root, ok := plan.plannedRoot(r.Client); ok && r.Client != nil {
		planned.RecordRoot(r.Client.Endpoint(), plan.Name.ValueString(), root)
	}
	if plan.inMemory() {
		plan.planSize(ctx, state, resp)
		return
	}
	var seeded *seedModel
	var restored *restoreModel
	if state != nil {
		seeded, restored = &state.seedModel, &state.restoreModel
	}
	plan.plan(ctx, seeded, resp)
	plan.planRestore(ctx, r.Client, restored, &resp.Diagnostics)
}

// ValidateConfig refuses what a memory volume cannot do, and a snapshot
// with a seed.
func (r *Resource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var m resourceModel
	if resp.Diagnostics.Append(values.GetConfig(ctx, req.Config, &m)...); resp.Diagnostics.HasError() {
		return
	}
	m.validateSize(resp)
	m.validateRestore(&resp.Diagnostics)
}
