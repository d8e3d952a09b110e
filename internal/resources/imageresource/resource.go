// Package imageresource implements the sandbox_image resource: an image
// built on the engine from a local directory.
package imageresource

import (
	"context"
	"errors"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/framework/base"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/framework/builds"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/framework/identity"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/framework/values"
)

var (
	_ resource.Resource                 = &Resource{}
	_ resource.ResourceWithConfigure    = &Resource{}
	_ resource.ResourceWithUpgradeState = &Resource{}
	_ resource.ResourceWithModifyPlan   = &Resource{}
	_ resource.ResourceWithIdentity     = &Resource{}
	_ resource.ResourceWithImportState  = &Resource{}
)

// resourceType is the resource's type name, also stamped on what it builds.
const resourceType = "sandbox_image"

// New returns the sandbox_image resource.
func New() resource.Resource {
	return &Resource{}
}

// Resource manages one image built on the engine.
type Resource struct {
	base.Resource
	// images are the engine's image operations: nil on a backend without
	// them, which needsImages refuses before any engine call.
	images engine.Images
}

// Metadata names the resource.
func (r *Resource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_image"
}

// Configure takes the provider's engine client, and its image operations.
func (r *Resource) Configure(ctx context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.Resource.Configure(ctx, req, resp)
	r.images, _ = r.Client.(engine.Images)
}

// needsImages refuses every engine call on a backend without images.
func (r *Resource) needsImages() diag.Diagnostics {
	return base.Requires[engine.Images](r.Client, "sandbox_image", "On a cluster, build and push the image "+
		"with your registry's tooling, and give its reference to sandbox_container.image.")
}

// Schema describes the resource.
func (r *Resource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = resourceSchema(ctx)
}

// IdentitySchema describes the image's identity (identity.go).
func (r *Resource) IdentitySchema(_ context.Context, _ resource.IdentitySchemaRequest, resp *resource.IdentitySchemaResponse) {
	resp.IdentitySchema = identitySchema()
}

// Create builds the image, within the create timeout.
func (r *Resource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan resourceModel
	if resp.Diagnostics.Append(values.GetPlan(ctx, req.Plan, &plan)...); resp.Diagnostics.HasError() {
		return
	}
	timeout, diags := plan.Timeouts.Create(ctx, defaultCreateTimeout)
	if resp.Diagnostics.Append(diags...); resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	built, diags := r.build(ctx, &plan)
	resp.Diagnostics.Append(diags...)
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		resp.Diagnostics.AddError("Image build timed out", fmt.Sprintf(
			"Building %s on the Docker engine at %s took longer than its create timeout (%s). Raise "+
				"timeouts.create.", plan.Name.ValueString(), r.Client.Endpoint(), timeout))
	}
	if resp.Diagnostics.HasError() {
		return
	}
	resp.Diagnostics.Append(builds.Record(ctx, resp.Private, built)...)
	resp.Diagnostics.Append(values.SetState(ctx, &resp.State, plan)...)
	resp.Diagnostics.Append(identity.Set(ctx, resp.Identity, map[string]string{identity.ID: plan.ID.ValueString()})...)
}

// Read checks that the image is still on the engine, by ID, and whether
// its name still names it. An image that is gone is removed from the
// state, so the plan builds it again.
func (r *Resource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state resourceModel
	if resp.Diagnostics.Append(values.GetState(ctx, req.State, &state)...); resp.Diagnostics.HasError() {
		return
	}
	// A state from before identities gets one.
	resp.Diagnostics.Append(identity.SetIfMissing(ctx, resp.Identity, map[string]string{identity.ID: state.ID.ValueString()})...)
	found, diags := r.refresh(ctx, &state)
	if resp.Diagnostics.Append(diags...); resp.Diagnostics.HasError() {
		return
	}
	if !found {
		resp.State.RemoveResource(ctx)
		return
	}
	resp.Diagnostics.Append(values.SetState(ctx, &resp.State, state)...)
}

// Update puts a moved tag back on the image and records keep_on_destroy
// and the timeouts: everything else rebuilds the image.
func (r *Resource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan, state resourceModel
	resp.Diagnostics.Append(values.GetPlan(ctx, req.Plan, &plan)...)
	resp.Diagnostics.Append(values.GetState(ctx, req.State, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if !state.Tagged.ValueBool() {
		if resp.Diagnostics.Append(r.retag(ctx, state)...); resp.Diagnostics.HasError() {
			return
		}
	}
	plan.Tagged = types.BoolValue(true)
	resp.Diagnostics.Append(values.SetState(ctx, &resp.State, plan)...)
	// A CLI without identities (Terraform 1.11) keeps none between runs.
	resp.Diagnostics.Append(identity.SetIfMissing(ctx, resp.Identity, map[string]string{identity.ID: plan.ID.ValueString()})...)
}

// Delete removes the image's tag, and the image with it unless another
// tag names it, within the delete timeout; with keep_on_destroy it leaves
// the image.
func (r *Resource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state resourceModel
	if resp.Diagnostics.Append(values.GetState(ctx, req.State, &state)...); resp.Diagnostics.HasError() {
		return
	}
	if state.KeepOnDestroy.ValueBool() {
		return
	}
	timeout, diags := state.Timeouts.Delete(ctx, defaultDeleteTimeout)
	if resp.Diagnostics.Append(diags...); resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	resp.Diagnostics.Append(r.remove(ctx, state, builds.Recorded(ctx, req.Private, state.ImageID.ValueString()))...)
}

// ImportState takes an image by ID or name, or by its identity: only one
// that a sandbox_image of this provider built, whose configuration it
// records (record.go).
func (r *Resource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	ref := req.ID
	if ref == "" {
		attrs, diags := identity.Get(req.Identity)
		if resp.Diagnostics.Append(diags...); resp.Diagnostics.HasError() {
			return
		}
		ref = attrs[identity.ID]
	}
	m, diags := r.importImage(ctx, ref)
	if resp.Diagnostics.Append(diags...); resp.Diagnostics.HasError() {
		return
	}
	resp.Diagnostics.Append(values.SetState(ctx, &resp.State, m)...)
	resp.Diagnostics.Append(identity.Set(ctx, resp.Identity, map[string]string{identity.ID: m.ID.ValueString()})...)
}

// UpgradeState upgrades states written by earlier schema versions.
func (r *Resource) UpgradeState(_ context.Context) map[int64]resource.StateUpgrader {
	return stateUpgraders()
}

// ModifyPlan digests the context, so that a changed file plans a rebuild,
// and plans the image's name to name it after apply, so that a moved tag
// plans an update that puts it back (Read saw it moved). It only reads.
func (r *Resource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() {
		return
	}
	if resp.Diagnostics.Append(r.needsImages()...); resp.Diagnostics.HasError() {
		return
	}
	var plan resourceModel
	if resp.Diagnostics.Append(values.GetPlan(ctx, req.Plan, &plan)...); resp.Diagnostics.HasError() {
		return
	}
	digest := types.StringUnknown()
	if fullyKnown(ctx, plan.Context, plan.Dockerfile, plan.BuildArgs, plan.Target, plan.Labels) {
		d, err := plan.digest()
		if err != nil {
			resp.Diagnostics.AddAttributeError(path.Root("context"), "Cannot read the build context", err.Error()+
				". Make the context directory and its files readable by the user running Terraform.")
			return
		}
		digest = types.StringValue(d)
	}
	resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("context_digest"), digest)...)
	if req.State.Raw.IsNull() {
		return
	}
	var state resourceModel
	if resp.Diagnostics.Append(values.GetState(ctx, req.State, &state)...); resp.Diagnostics.HasError() {
		return
	}
	if !digest.Equal(state.ContextDigest) {
		resp.RequiresReplace.Append(path.Root("context_digest"))
	}
	// After apply the name names the image, whether it did before or not.
	resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("tagged"), types.BoolValue(true))...)
}

// fullyKnown reports whether every value, and everything in it (a map's
// elements), is known.
func fullyKnown(ctx context.Context, vals ...attr.Value) bool {
	for _, v := range vals {
		tv, err := v.ToTerraformValue(ctx)
		if err != nil || !tv.IsFullyKnown() {
			return false
		}
	}
	return true
}
