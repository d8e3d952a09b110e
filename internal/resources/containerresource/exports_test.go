package containerresource

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/resource"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/framework/identity"
)

// What the external tests (package containerresource_test) need of the package.

// SchemaVersion is the current schema version.
const SchemaVersion = schemaVersion

// NewLegacyResourceV0 returns sandbox_container as schema version 0 served
// it, before network_mode existed: the frozen version 0 schema, and the
// engine work of this version on states of that shape. Tests use it to
// write states that the current resource must upgrade.
func NewLegacyResourceV0() resource.Resource {
	return &legacyResourceV0{}
}

type legacyResourceV0 struct {
	Resource
}

func (r *legacyResourceV0) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schemaV0()
}

func (r *legacyResourceV0) UpgradeState(context.Context) map[int64]resource.StateUpgrader {
	return nil
}

// Version 0 had no combinations to validate and no files to plan.
func (r *legacyResourceV0) ValidateConfig(context.Context, resource.ValidateConfigRequest, *resource.ValidateConfigResponse) {
}

func (r *legacyResourceV0) ModifyPlan(context.Context, resource.ModifyPlanRequest, *resource.ModifyPlanResponse) {
}

func (r *legacyResourceV0) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var old modelV0
	if resp.Diagnostics.Append(req.Plan.Get(ctx, &old)...); resp.Diagnostics.HasError() {
		return
	}
	m := upgradeFromV0(old)
	// Versions before v1 never ran on engines with defaults of their own
	// (Podman), so recording them changes nothing on Docker and lets the
	// upgrade tests run on Podman.
	added, diags := r.create(ctx, &m, nil, &mainProcess{}, &engine.Built{})
	if resp.Diagnostics.Append(diags...); resp.Diagnostics.HasError() {
		return
	}
	resp.Diagnostics.Append(writeDefaults(ctx, resp.Private, added)...)
	resp.Diagnostics.Append(resp.State.Set(ctx, downgradeToV0(m))...)
	// Version 0 had no identity, but embedding the resource gives it the
	// identity schema, and the framework then requires an identity.
	resp.Diagnostics.Append(identity.Set(ctx, resp.Identity, r.identityOf(m.ID.ValueString()))...)
}

func (r *legacyResourceV0) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var old modelV0
	if resp.Diagnostics.Append(req.State.Get(ctx, &old)...); resp.Diagnostics.HasError() {
		return
	}
	m := upgradeFromV0(old)
	defaults, diags := readDefaults(ctx, req.Private)
	if resp.Diagnostics.Append(diags...); resp.Diagnostics.HasError() {
		return
	}
	found, diags := r.refresh(ctx, &m, defaults, &mainProcess{})
	resp.Diagnostics.Append(diags...)
	switch {
	case resp.Diagnostics.HasError():
	case !found:
		resp.State.RemoveResource(ctx)
	default:
		resp.Diagnostics.Append(resp.State.Set(ctx, downgradeToV0(m))...)
	}
	resp.Diagnostics.Append(identity.Set(ctx, resp.Identity, r.identityOf(m.ID.ValueString()))...)
}

func (r *legacyResourceV0) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan, state modelV0
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	m := upgradeFromV0(plan)
	defaults, diags := readDefaults(ctx, req.Private)
	if resp.Diagnostics.Append(diags...); resp.Diagnostics.HasError() {
		return
	}
	if resp.Diagnostics.Append(r.update(ctx, &m, upgradeFromV0(state), defaults, &mainProcess{}, nil)...); resp.Diagnostics.HasError() {
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, downgradeToV0(m))...)
	resp.Diagnostics.Append(identity.Set(ctx, resp.Identity, r.identityOf(m.ID.ValueString()))...)
}

func (r *legacyResourceV0) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var old modelV0
	if resp.Diagnostics.Append(req.State.Get(ctx, &old)...); resp.Diagnostics.HasError() {
		return
	}
	resp.Diagnostics.Append(r.remove(ctx, upgradeFromV0(old), engine.Built{})...)
}

func downgradeToV0(m resourceModel) modelV0 {
	return modelV0{
		ID: m.ID, Name: m.Name, Image: m.Image, Entrypoint: m.Entrypoint, Command: m.Command, Env: m.Env,
		Labels: m.Labels, WorkingDir: m.WorkingDir, User: m.User, Init: m.Init, Running: m.Running,
		StopTimeout: m.StopTimeout, Networks: m.Networks, ImageID: m.ImageID,
	}
}
