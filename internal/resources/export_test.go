package resources

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/resource"
)

// Names the external tests use.
const (
	LabelManagedBy = labelManagedBy
	ManagedByValue = managedByValue
)

// NewLegacyContainerResourceV0 returns sandbox_container as schema version 0
// served it, before network_mode existed: the core (version 1) schema without
// network_mode, at version 0. Tests use it to write states that the current
// resource must upgrade.
func NewLegacyContainerResourceV0() resource.Resource {
	return &legacyContainerResource{}
}

type legacyContainerResource struct {
	ContainerResource
}

func (r *legacyContainerResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	s := coreSchema()
	delete(s.Attributes, "network_mode")
	s.Version = 0
	resp.Schema = s
}

func (r *legacyContainerResource) UpgradeState(context.Context) map[int64]resource.StateUpgrader {
	return nil
}

// Version 0 had no combinations to validate and no files to plan.
func (r *legacyContainerResource) ValidateConfig(context.Context, resource.ValidateConfigRequest, *resource.ValidateConfigResponse) {
}

func (r *legacyContainerResource) ModifyPlan(context.Context, resource.ModifyPlanRequest, *resource.ModifyPlanResponse) {
}

func (r *legacyContainerResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var old containerModelV0
	resp.Diagnostics.Append(req.Plan.Get(ctx, &old)...)
	if resp.Diagnostics.HasError() {
		return
	}
	m := upgradeFromV0(old)
	resp.Diagnostics.Append(r.create(ctx, &m, nil)...)
	if resp.Diagnostics.HasError() {
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, downgradeToV0(m))...)
}

func (r *legacyContainerResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var old containerModelV0
	resp.Diagnostics.Append(req.State.Get(ctx, &old)...)
	if resp.Diagnostics.HasError() {
		return
	}
	m := upgradeFromV0(old)
	found, diags := r.refresh(ctx, &m)
	resp.Diagnostics.Append(diags...)
	switch {
	case resp.Diagnostics.HasError():
	case !found:
		resp.State.RemoveResource(ctx)
	default:
		resp.Diagnostics.Append(resp.State.Set(ctx, downgradeToV0(m))...)
	}
}

func (r *legacyContainerResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan, state containerModelV0
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	m := upgradeFromV0(plan)
	resp.Diagnostics.Append(r.update(ctx, &m, upgradeFromV0(state))...)
	if resp.Diagnostics.HasError() {
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, downgradeToV0(m))...)
}

func (r *legacyContainerResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var old containerModelV0
	resp.Diagnostics.Append(req.State.Get(ctx, &old)...)
	if resp.Diagnostics.HasError() {
		return
	}
	resp.Diagnostics.Append(r.remove(ctx, upgradeFromV0(old))...)
}

func downgradeToV0(m containerModel) containerModelV0 {
	return containerModelV0{
		ID:          m.ID,
		Name:        m.Name,
		Image:       m.Image,
		Entrypoint:  m.Entrypoint,
		Command:     m.Command,
		Env:         m.Env,
		Labels:      m.Labels,
		WorkingDir:  m.WorkingDir,
		User:        m.User,
		Init:        m.Init,
		Running:     m.Running,
		StopTimeout: m.StopTimeout,
		Networks:    m.Networks,
		ImageID:     m.ImageID,
	}
}
