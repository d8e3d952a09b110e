package containerresource

import (
	"context"
	"fmt"
	"maps"

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
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// Each earlier schema version has a frozen schema and one upgrader straight
// to the current version. The frozen schemas copy what those versions
// served, types, defaults and plan behaviour alike, and never change with
// the live schema. Version 2 differs from the current one in files alone,
// so only the type of its files is frozen (fileTypeV2); a version that
// changes another attribute freezes version 2's whole schema first.

// stateUpgraders has one upgrader per earlier schema version.
func stateUpgraders() map[int64]resource.StateUpgrader {
	v0, v1 := schemaV0(), schemaV1()
	return map[int64]resource.StateUpgrader{
		0: {PriorSchema: &v0, StateUpgrader: upgrader(upgradeFromV0)},
		1: {PriorSchema: &v1, StateUpgrader: upgrader(upgradeFromV1)},
		2: {StateUpgrader: upgradeFromV2},
	}
}

// fileTypeV2 is a file of schema version 2, a nested object with its
// digest in it. Frozen.
var fileTypeV2 = tftypes.Object{AttributeTypes: map[string]tftypes.Type{
	"content": tftypes.String, "content_base64": tftypes.String, "source": tftypes.String,
	"mode": tftypes.String, "sha256": tftypes.String,
}}

// upgradeFromV2 carries a version 2 state over. Version 2 is version 3
// with files as a map of nested objects, each with its digest, and no
// files_sha256; so the state is read with the current schema's types but
// for files, and the digests move to files_sha256. The files keep version
// 2's type: the next plan shows the attribute's type changing, in place,
// when the configuration writes the same files (filesvalue.go).
func upgradeFromV2(ctx context.Context, req resource.UpgradeStateRequest, resp *resource.UpgradeStateResponse) {
	current, ok := resp.State.Schema.Type().TerraformType(ctx).(tftypes.Object)
	if !ok || req.RawState == nil {
		resp.Diagnostics.AddError("Cannot upgrade the state", "The provider found no state of version 2 to upgrade. "+
			"This is always an error in the provider; please report it.")
		return
	}
	attrs := maps.Clone(current.AttributeTypes)
	delete(attrs, "files_sha256")
	attrs["files"] = tftypes.Map{ElementType: fileTypeV2}
	old, err := req.RawState.Unmarshal(tftypes.Object{AttributeTypes: attrs})
	var vals map[string]tftypes.Value
	if err == nil {
		err = old.As(&vals)
	}
	if err == nil {
		vals["files"], vals["files_sha256"], err = upgradeFilesV2(vals["files"])
	}
	if err != nil {
		resp.Diagnostics.AddError("Cannot upgrade the state", fmt.Sprintf("The state of this sandbox_container, "+
			"written by schema version 2, cannot be read: %v. Remove it from the state (terraform state rm) "+
			"and import the sandbox again.", err))
		return
	}
	resp.State.Raw = tftypes.NewValue(current, vals)
}

// upgradeFilesV2 splits version 2's files into the files, without their
// digests, and the digests by path.
func upgradeFilesV2(v tftypes.Value) (files, digests tftypes.Value, err error) {
	digestsType := tftypes.Map{ElementType: tftypes.String}
	if v.IsNull() {
		return tftypes.NewValue(tftypes.DynamicPseudoType, nil), tftypes.NewValue(digestsType, nil), nil
	}
	var elements map[string]tftypes.Value
	if err := v.As(&elements); err != nil {
		return files, digests, err
	}
	fileType := tftypes.Object{AttributeTypes: maps.Clone(fileTypeV2.AttributeTypes)}
	delete(fileType.AttributeTypes, "sha256")
	newElements := make(map[string]tftypes.Value, len(elements))
	sums := make(map[string]tftypes.Value, len(elements))
	for p, element := range elements {
		var fields map[string]tftypes.Value
		if err := element.As(&fields); err != nil {
			return files, digests, fmt.Errorf("files[%q]: %w", p, err)
		}
		sums[p] = fields["sha256"]
		delete(fields, "sha256")
		newElements[p] = tftypes.NewValue(fileType, fields)
	}
	return tftypes.NewValue(tftypes.Map{ElementType: fileType}, newElements), tftypes.NewValue(digestsType, sums), nil
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
		WorkingDir: old.WorkingDir, User: old.User, Init: old.Init, ImageID: old.ImageID,
		networkModel: networkModel{NetworkMode: old.NetworkMode, Networks: old.Networks},
	}
	m.StopTimeout = old.StopTimeout
	m.setState(stateRunning)
	if !old.Running.ValueBool() {
		m.setState(stateStopped)
	}
	m.setGroupsNull()
	m.NoNewPrivileges = types.BoolValue(false)
	m.ReadOnly = types.BoolValue(defaultReadOnly)
	m.AllowUnconfined = types.BoolValue(defaultAllowUnconfined)
	return m
}
