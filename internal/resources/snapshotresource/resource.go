// Package snapshotresource implements the sandbox_snapshot resource: an
// archive of a volume's content, with its digest, in a directory on the
// machine running Terraform, which sandbox_volume restores on any backend.
package snapshotresource

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/framework/base"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/framework/identity"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/framework/timeouts"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/framework/values"
)

var (
	_ resource.Resource               = &Resource{}
	_ resource.ResourceWithConfigure  = &Resource{}
	_ resource.ResourceWithIdentity   = &Resource{}
	_ resource.ResourceWithModifyPlan = &Resource{}
)

// pathFile is the archive's attribute, which diagnostics about it name.
var pathFile = path.Root("file")

// New returns the sandbox_snapshot resource.
func New() resource.Resource {
	return &Resource{}
}

// Resource manages one archive of a volume.
type Resource struct {
	base.Resource
}

// Metadata names the resource.
func (r *Resource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_snapshot"
}

// Schema describes the resource.
func (r *Resource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = resourceSchema(ctx)
}

// IdentitySchema describes the snapshot's identity (identity.go).
func (r *Resource) IdentitySchema(_ context.Context, _ resource.IdentitySchemaRequest, resp *resource.IdentitySchemaResponse) {
	resp.IdentitySchema = identitySchema()
}

// Create archives the volume, within the create timeout.
func (r *Resource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan resourceModel
	if resp.Diagnostics.Append(values.GetPlan(ctx, req.Plan, &plan)...); resp.Diagnostics.HasError() {
		return
	}
	timeout, diags := plan.Timeouts.Create(ctx, defaultCreateTimeout)
	if resp.Diagnostics.Append(diags...); resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel := timeouts.Within(ctx, "timeouts.create", timeout)
	defer cancel()
	if resp.Diagnostics.Append(r.take(ctx, &plan)...); resp.Diagnostics.HasError() {
		return
	}
	resp.Diagnostics.Append(values.SetState(ctx, &resp.State, plan)...)
	resp.Diagnostics.Append(identity.Set(ctx, resp.Identity, map[string]string{identity.File: plan.File.ValueString()})...)
}

// Read reads the archive again. One that is gone, or whose digest is not
// the one recorded, is removed from the state with a warning: the plan
// takes the snapshot again, and a changed archive is never trusted.
func (r *Resource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state resourceModel
	if resp.Diagnostics.Append(values.GetState(ctx, req.State, &state)...); resp.Diagnostics.HasError() {
		return
	}
	file := state.File.ValueString()
	// A state from before identities gets one.
	resp.Diagnostics.Append(identity.SetIfMissing(ctx, resp.Identity, map[string]string{identity.File: file})...)
	disk, err := readArchive(file)
	switch {
	case err != nil:
		resp.Diagnostics.AddAttributeError(pathFile, "Cannot read the snapshot", fmt.Sprintf(
			"Reading the archive %q failed: %v. Make it readable by the user running Terraform.", file, err))
		return
	case !disk.found:
		resp.Diagnostics.AddAttributeWarning(pathFile, "Snapshot archive gone", fmt.Sprintf("The archive %q "+
			"of the volume %q is gone. The plan takes the snapshot again, from what the volume holds now.",
			file, state.Volume.ValueString()))
		resp.State.RemoveResource(ctx)
		return
	case disk.sha256 != state.SHA256.ValueString():
		resp.Diagnostics.AddAttributeWarning(pathFile, "Snapshot archive changed", fmt.Sprintf("The archive "+
			"%q is not the one recorded: its SHA-256 is %s, and was %s. A changed archive is never trusted, "+
			"nor removed: the plan takes the snapshot again, into a new file, from what the volume %q holds "+
			"now.", file, disk.sha256, state.SHA256.ValueString(), state.Volume.ValueString()))
		resp.State.RemoveResource(ctx)
		return
	}
	resp.Diagnostics.Append(values.SetState(ctx, &resp.State, state)...)
}

// Update records what changes in place: the bounds of the next snapshot,
// keep_on_destroy and the timeouts. Everything else takes a new snapshot.
func (r *Resource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan resourceModel
	if resp.Diagnostics.Append(values.GetPlan(ctx, req.Plan, &plan)...); resp.Diagnostics.HasError() {
		return
	}
	resp.Diagnostics.Append(values.SetState(ctx, &resp.State, plan)...)
	// A CLI without identities (Terraform 1.11) keeps none between runs.
	resp.Diagnostics.Append(identity.SetIfMissing(ctx, resp.Identity, map[string]string{identity.File: plan.File.ValueString()})...)
}

// Delete removes the archive, unless keep_on_destroy, and only the one
// recorded: an archive that changed since is left, with a warning.
func (r *Resource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state resourceModel
	if resp.Diagnostics.Append(values.GetState(ctx, req.State, &state)...); resp.Diagnostics.HasError() {
		return
	}
	if state.KeepOnDestroy.ValueBool() {
		return
	}
	resp.Diagnostics.Append(remove(state)...)
}

// ModifyPlan refuses a snapshot the backend cannot take from the
// provider's platform, when the plan takes one (at create, or a
// replacement). It only reads.
func (r *Resource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() || r.Client == nil || (!req.State.Raw.IsNull() && len(resp.RequiresReplace) == 0) {
		return
	}
	if why := r.refusal(ctx); why != "" {
		resp.Diagnostics.AddAttributeError(path.Root("volume"), "Cannot take this snapshot from this platform", why)
	}
}

// remove removes the recorded archive if it is still the one recorded.
func remove(state resourceModel) diag.Diagnostics {
	var diags diag.Diagnostics
	file := state.File.ValueString()
	disk, err := readArchive(file)
	switch {
	case err != nil:
		diags.AddAttributeError(pathFile, "Cannot read the snapshot", fmt.Sprintf("Reading the archive %q, "+
			"to remove it, failed: %v. Make it readable by the user running Terraform, or remove it by hand.",
			file, err))
	case !disk.found:
	case disk.sha256 != state.SHA256.ValueString():
		diags.AddAttributeWarning(pathFile, "Changed snapshot archive left", fmt.Sprintf("The archive %q "+
			"changed since it was taken (its SHA-256 is %s, not %s), so it is not the provider's to remove: "+
			"it is left on disk. Remove it by hand if it is not needed.", file, disk.sha256, state.SHA256.ValueString()))
	default:
		if err := removeFile(file); err != nil {
			diags.AddAttributeError(pathFile, "Cannot remove the snapshot", fmt.Sprintf("Removing the "+
				"archive %q failed: %v. Remove it by hand, or set keep_on_destroy = true.", file, err))
		}
	}
	return diags
}
