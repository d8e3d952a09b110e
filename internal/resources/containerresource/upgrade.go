package containerresource

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/boolplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64default"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/listplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/mapplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/setplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// Each earlier schema version has a frozen schema and one upgrader straight
// to the current version. The frozen schemas copy what those versions
// served, types, defaults and plan behaviour alike, and never change with
// the live schema.

// stateUpgraders has one upgrader per earlier schema version.
func stateUpgraders() map[int64]resource.StateUpgrader {
	v0, v1 := schemaV0(), schemaV1()
	return map[int64]resource.StateUpgrader{
		0: {PriorSchema: &v0, StateUpgrader: upgrader(upgradeFromV0)},
		1: {PriorSchema: &v1, StateUpgrader: upgrader(upgradeFromV1)},
	}
}

// upgrader reads a prior state into T and writes what upgrade makes of it.
func upgrader[T any](upgrade func(T) resourceModel) func(context.Context, resource.UpgradeStateRequest, *resource.UpgradeStateResponse) {
	return func(ctx context.Context, req resource.UpgradeStateRequest, resp *resource.UpgradeStateResponse) {
		var old T
		resp.Diagnostics.Append(req.State.Get(ctx, &old)...)
		if resp.Diagnostics.HasError() {
			return
		}
		resp.Diagnostics.Append(resp.State.Set(ctx, upgrade(old))...)
	}
}

// schemaV1 is the schema of version 1, which predated hardening, limits,
// ports, files, secrets and timeouts. Frozen.
func schemaV1() schema.Schema {
	replaceString := []planmodifier.String{stringplanmodifier.RequiresReplace()}
	keepString := []planmodifier.String{stringplanmodifier.UseStateForUnknown()}
	replaceList := []planmodifier.List{listplanmodifier.RequiresReplace()}
	replaceMap := []planmodifier.Map{mapplanmodifier.RequiresReplace()}
	return schema.Schema{
		Version: 1,
		Attributes: map[string]schema.Attribute{
			"id":           schema.StringAttribute{Computed: true, PlanModifiers: keepString},
			"name":         schema.StringAttribute{Optional: true, Computed: true, PlanModifiers: keepString},
			"image":        schema.StringAttribute{Required: true, PlanModifiers: replaceString},
			"network_mode": schema.StringAttribute{Optional: true, PlanModifiers: replaceString},
			"entrypoint":   schema.ListAttribute{ElementType: types.StringType, Optional: true, PlanModifiers: replaceList},
			"command":      schema.ListAttribute{ElementType: types.StringType, Optional: true, PlanModifiers: replaceList},
			"env": schema.MapAttribute{
				ElementType: types.StringType, Optional: true, Sensitive: true, PlanModifiers: replaceMap,
			},
			"labels":      schema.MapAttribute{ElementType: types.StringType, Optional: true, PlanModifiers: replaceMap},
			"working_dir": schema.StringAttribute{Optional: true, PlanModifiers: replaceString},
			"user":        schema.StringAttribute{Optional: true, PlanModifiers: replaceString},
			"init": schema.BoolAttribute{
				Optional: true, Computed: true, Default: booldefault.StaticBool(true),
				PlanModifiers: []planmodifier.Bool{boolplanmodifier.RequiresReplace()},
			},
			"running":      schema.BoolAttribute{Optional: true, Computed: true, Default: booldefault.StaticBool(true)},
			"stop_timeout": schema.Int64Attribute{Optional: true, Computed: true, Default: int64default.StaticInt64(10)},
			"networks": schema.SetAttribute{
				ElementType: types.StringType, Computed: true,
				PlanModifiers: []planmodifier.Set{setplanmodifier.UseStateForUnknown()},
			},
			"image_id": schema.StringAttribute{Computed: true, PlanModifiers: keepString},
		},
	}
}

// schemaV0 is the schema of version 0: version 1 without network_mode.
// Frozen.
func schemaV0() schema.Schema {
	s := schemaV1()
	s.Version = 0
	delete(s.Attributes, "network_mode")
	return s
}

// modelV0 is a state written by schema version 0.
type modelV0 struct {
	ID          types.String `tfsdk:"id"`
	Name        types.String `tfsdk:"name"`
	Image       types.String `tfsdk:"image"`
	Entrypoint  types.List   `tfsdk:"entrypoint"`
	Command     types.List   `tfsdk:"command"`
	Env         types.Map    `tfsdk:"env"`
	Labels      types.Map    `tfsdk:"labels"`
	WorkingDir  types.String `tfsdk:"working_dir"`
	User        types.String `tfsdk:"user"`
	Init        types.Bool   `tfsdk:"init"`
	Running     types.Bool   `tfsdk:"running"`
	StopTimeout types.Int64  `tfsdk:"stop_timeout"`
	Networks    types.Set    `tfsdk:"networks"`
	ImageID     types.String `tfsdk:"image_id"`
}

// modelV1 is a state written by schema version 1: version 0 and
// network_mode.
type modelV1 struct {
	modelV0
	NetworkMode types.String `tfsdk:"network_mode"`
}

// upgradeFromV0 carries a version 0 state over; network_mode, which version
// 0 did not have, is null: the engine's default, as it was then.
func upgradeFromV0(old modelV0) resourceModel {
	return upgradeFromV1(modelV1{modelV0: old, NetworkMode: types.StringNull()})
}

// upgradeFromV1 carries a version 1 state over. The new attributes record
// what version 1 created: no limits, a writable root, and no
// no-new-privileges, so a configuration that keeps the default
// no_new_privileges = true plans a replacement with a hardened sandbox.
func upgradeFromV1(old modelV1) resourceModel {
	m := resourceModel{
		ID: old.ID, Name: old.Name, Image: old.Image,
		Entrypoint: old.Entrypoint, Command: old.Command, Env: old.Env, Labels: old.Labels,
		WorkingDir: old.WorkingDir, User: old.User, Init: old.Init, Running: old.Running,
		StopTimeout: old.StopTimeout, ImageID: old.ImageID,
		networkModel: networkModel{NetworkMode: old.NetworkMode, Networks: old.Networks},
	}
	m.setGroupsNull()
	m.NoNewPrivileges = types.BoolValue(false)
	m.ReadOnly = types.BoolValue(defaultReadOnly)
	m.AllowUnconfined = types.BoolValue(defaultAllowUnconfined)
	return m
}
