// Package containerresource implements the sandbox_container resource: an
// isolated, hardened container, kept as configured through drift. The
// framework's methods (resource.go) make no engine call; the lifecycle
// files make them all, and each attribute group has a file of its own
// (DESIGN.md maps them).
package containerresource

import (
	"context"
	"errors"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/framework/base"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/framework/builds"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/framework/identity"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/framework/values"
)

var (
	_ resource.Resource                   = &Resource{}
	_ resource.ResourceWithConfigure      = &Resource{}
	_ resource.ResourceWithImportState    = &Resource{}
	_ resource.ResourceWithIdentity       = &Resource{}
	_ resource.ResourceWithUpgradeState   = &Resource{}
	_ resource.ResourceWithValidateConfig = &Resource{}
	_ resource.ResourceWithModifyPlan     = &Resource{}
)

// New returns the sandbox_container resource.
func New() resource.Resource {
	return &Resource{}
}

// Resource manages one sandbox container.
type Resource struct {
	base.Resource
	// images are the engine's image operations, for a missing image and
	// the image derived for a read-only sandbox's files: nil on a backend
	// without them (a cluster runs its nodes' images and mounts files).
	images engine.Images
	// copier writes a sandbox's files into it after create: nil on a
	// backend that mounts them as it makes the sandbox (a cluster).
	copier engine.FileCopier
	// sleeper puts sandboxes to sleep and wakes them where a stopped
	// sandbox is not kept (a cluster); nil on an engine that stops them.
	sleeper engine.Sleeper
	// expirer has something beside the engine stop sandboxes at their
	// expiry (a Docker engine's or Podman's warden); nil where the backend
	// enforces it as it makes the sandbox (a cluster).
	expirer engine.Expirer
}

// Configure takes the provider's engine client, and the abilities of it
// that a create asks for.
func (r *Resource) Configure(ctx context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.Resource.Configure(ctx, req, resp)
	r.images, _ = r.Client.(engine.Images)
	r.copier, _ = r.Client.(engine.FileCopier)
	r.sleeper, _ = r.Client.(engine.Sleeper)
	r.expirer, _ = r.Client.(engine.Expirer)
}

// Metadata names the resource.
func (r *Resource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_container"
}

// Schema describes the resource.
func (r *Resource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = resourceSchema(ctx)
}

// IdentitySchema describes the sandbox's identity (identity.go).
func (r *Resource) IdentitySchema(_ context.Context, _ resource.IdentitySchemaRequest, resp *resource.IdentitySchemaResponse) {
	resp.IdentitySchema = identitySchema()
}

// Create creates, starts and checks the sandbox, within the create timeout.
func (r *Resource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	// A create cut off by terraform's end removes what it made before the
	// provider exits.
	defer engine.Hold()()
	var plan resourceModel
	resp.Diagnostics.Append(values.GetPlan(ctx, req.Plan, &plan)...)
	// Write-only values are only in the configuration.
	var secretEnv map[string]string
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("env_wo"), &secretEnv)...)
	if resp.Diagnostics.HasError() {
		return
	}
	timeout, diags := plan.Timeouts.Create(ctx, defaultCreateTimeout)
	if resp.Diagnostics.Append(diags...); resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	var seen mainProcess
	var derived engine.Built
	added, diags := r.create(ctx, &plan, secretEnv, &seen, &derived)
	resp.Diagnostics.Append(diags...)
	_, pending := pendingToken(plan.ID)
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		undone := "Anything half-created was removed."
		if pending {
			undone = "What it half-created could not be removed yet (see the other error)."
		}
		resp.Diagnostics.AddError("Sandbox creation timed out", fmt.Sprintf(
			"Creating the sandbox on %s took longer than its create timeout (%s), pulling "+
				"the image included. %s Raise timeouts.create, or make the image available on the engine "+
				"beforehand.", r.Client.Where(), timeout, undone))
	}
	if resp.Diagnostics.HasError() && (!pending || !r.CLI.SavesFailedCreates()) {
		// A CLI that cannot save a failed create's state would fail to
		// write the whole state (framework/cli): the error says what the
		// create left and how to find it.
		return
	}
	// A pending sandbox is recorded along with the error: Terraform taints
	// it, and the next apply replaces what the cut-off create left.
	plan.settleUnknowns()
	resp.Diagnostics.Append(writeDefaults(ctx, resp.Private, added)...)
	resp.Diagnostics.Append(writeMainProcess(ctx, resp.Private, seen)...)
	resp.Diagnostics.Append(builds.Record(ctx, resp.Private, derived)...)
	resp.Diagnostics.Append(values.SetState(ctx, &resp.State, plan)...)
	resp.Diagnostics.Append(identity.Set(ctx, resp.Identity, r.identityOf(plan.ID.ValueString()))...)
}

// Read refreshes the state from the engine, by ID. A container that is gone
// is removed from the state, so the plan recreates it.
func (r *Resource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state resourceModel
	resp.Diagnostics.Append(values.GetState(ctx, req.State, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	defaults, diags := readDefaults(ctx, req.Private)
	if resp.Diagnostics.Append(diags...); resp.Diagnostics.HasError() {
		return
	}
	seen, diags := readMainProcess(ctx, req.Private)
	if resp.Diagnostics.Append(diags...); resp.Diagnostics.HasError() {
		return
	}
	// A state from before identities gets one, from the ID it holds; an
	// identity once recorded stays (a pending ID's too, until the sandbox
	// is replaced).
	resp.Diagnostics.Append(identity.SetIfMissing(ctx, resp.Identity, r.identityOf(state.ID.ValueString()))...)
	prior, priorSeen := state, seen
	found, diags := r.refresh(ctx, &state, defaults, &seen)
	if resp.Diagnostics.Append(diags...); resp.Diagnostics.HasError() {
		return
	}
	if !found {
		resp.State.RemoveResource(ctx)
		return
	}
	// The framework passes the prior state and private data on, so what
	// the engine shows unchanged, as in most refreshes, is left as it is:
	// building the state again was about a quarter of Read's own CPU.
	if seen != priorSeen {
		resp.Diagnostics.Append(writeMainProcess(ctx, resp.Private, seen)...)
	}
	if !values.Unchanged(prior, state) {
		resp.Diagnostics.Append(values.SetState(ctx, &resp.State, state)...)
	}
}

// Update renames the container, applies changed limits and starts,
// unpauses or stops it; everything else forces replacement.
func (r *Resource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan, state resourceModel
	resp.Diagnostics.Append(values.GetPlan(ctx, req.Plan, &plan)...)
	resp.Diagnostics.Append(values.GetState(ctx, req.State, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	defaults, diags := readDefaults(ctx, req.Private)
	if resp.Diagnostics.Append(diags...); resp.Diagnostics.HasError() {
		return
	}
	seen, diags := readMainProcess(ctx, req.Private)
	if resp.Diagnostics.Append(diags...); resp.Diagnostics.HasError() {
		return
	}
	var secretEnv map[string]string
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("env_wo"), &secretEnv)...)
	prior := seen
	diags = r.update(ctx, &plan, state, defaults, &seen, secretEnv)
	if seen != prior {
		resp.Diagnostics.Append(writeMainProcess(ctx, resp.Private, seen)...)
	}
	if resp.Diagnostics.Append(diags...); resp.Diagnostics.HasError() {
		return
	}
	resp.Diagnostics.Append(values.SetState(ctx, &resp.State, plan)...)
	// A CLI without identities (Terraform 1.11) keeps none between runs.
	resp.Diagnostics.Append(identity.SetIfMissing(ctx, resp.Identity, r.identityOf(plan.ID.ValueString()))...)
}

// Delete stops the container with its grace period, then force-removes it,
// within the delete timeout. A container that is already gone counts as
// deleted.
func (r *Resource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state resourceModel
	resp.Diagnostics.Append(values.GetState(ctx, req.State, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	timeout, diags := state.Timeouts.Delete(ctx, defaultDeleteTimeout)
	if resp.Diagnostics.Append(diags...); resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	diags = r.remove(ctx, state, builds.Recorded(ctx, req.Private, state.ImageID.ValueString()))
	if !errors.Is(ctx.Err(), context.DeadlineExceeded) {
		resp.Diagnostics.Append(diags...)
	} else {
		byHand := r.Client.ByHand().Remove(state.ID.ValueString())
		if token, pending := pendingToken(state.ID); pending {
			byHand = r.Client.ByHand().RemoveLabelled(engine.LabelCreateToken, token)
		}
		resp.Diagnostics.AddError("Sandbox deletion timed out", fmt.Sprintf(
			"Destroying the sandbox took longer than its delete timeout (%s). Raise timeouts.delete, "+
				"or remove the container by hand: %s", timeout, byHand))
	}
}

// ImportState imports a container by ID or name, with every attribute read
// from the engine, network_mode included.
func (r *Resource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	id, diags := r.importID(req)
	if resp.Diagnostics.Append(diags...); resp.Diagnostics.HasError() {
		return
	}
	m, defaults, diags := r.importSandbox(ctx, id)
	if resp.Diagnostics.Append(diags...); resp.Diagnostics.HasError() {
		return
	}
	resp.Diagnostics.Append(writeDefaults(ctx, resp.Private, defaults)...)
	resp.Diagnostics.Append(values.SetState(ctx, &resp.State, m)...)
	resp.Diagnostics.Append(identity.Set(ctx, resp.Identity, r.identityOf(m.ID.ValueString()))...)
}

// UpgradeState upgrades states written by earlier schema versions.
func (r *Resource) UpgradeState(_ context.Context) map[int64]resource.StateUpgrader {
	return stateUpgraders()
}

// ValidateConfig checks, at plan time, what single attributes cannot:
// combinations, each attribute group its own; and that the CLI can send
// write-only attributes when the configuration has some.
func (r *Resource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var m resourceModel
	resp.Diagnostics.Append(values.GetConfig(ctx, req.Config, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	resp.Diagnostics.Append(m.validate(ctx)...)
	resp.Diagnostics.Append(m.NeedsCapableCLI(req.ClientCapabilities.WriteOnlyAttributesAllowed)...)
}

// ModifyPlan records each file's digest, so that a plan shows a file whose
// content changed, and replaces the sandbox when its files change (not
// when only their type does); and
// leaves networks to be observed when the sandbox is started or stopped.
// It reads the raw values where it can: each attribute path the framework
// resolves walks the whole schema, which a plan pays once per sandbox
// (bench/HISTORY.md).
func (r *Resource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() {
		return
	}
	var plan, state, config map[string]tftypes.Value
	if err := req.Config.Raw.As(&config); err != nil {
		resp.Diagnostics.AddError("Cannot read the configuration", err.Error()+". This is a bug in the provider: please report it.")
		return
	}
	if err := req.Plan.Raw.As(&plan); err != nil {
		resp.Diagnostics.AddError("Cannot read the plan", err.Error()+". This is a bug in the provider: please report it.")
		return
	}
	if !req.State.Raw.IsNull() {
		if err := req.State.Raw.As(&state); err != nil {
			resp.Diagnostics.AddError("Cannot read the state", err.Error()+". This is a bug in the provider: please report it.")
			return
		}
	}
	planRunState(ctx, config, plan, resp)
	planExpiry(ctx, config, plan, state, resp)
	planNetworks(ctx, plan, state, resp)
	if r.Client != nil {
		planGuard(plan, state, r.RequireIsolation, r.Client, resp)
	}
	r.planAroundEngine(ctx, plan, state, resp)
	if r.Client != nil {
		warnUnwritable(plan, r.Client.Endpoint(), resp)
	}
	planLoopingReplacement(ctx, req, resp, values.RawString(plan["state"]) != stateStopped)
	if plan["files"].IsNull() && (state == nil || state["files"].IsNull()) {
		if !plan["files_sha256"].IsNull() {
			resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("files_sha256"), types.MapNull(types.StringType))...)
		}
		return
	}
	var files filesModel
	resp.Diagnostics.Append(req.Plan.GetAttribute(ctx, path.Root("files"), &files.Files)...)
	if resp.Diagnostics.HasError() {
		return
	}
	digests, total, diags := files.plan()
	if resp.Diagnostics.Append(diags...); resp.Diagnostics.HasError() {
		return
	}
	if r.planFiles(ctx, total, resp); resp.Diagnostics.HasError() {
		return
	}
	resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("files_sha256"), digests)...)
	if state == nil {
		return
	}
	var prior filesModel
	resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root("files"), &prior.Files)...)
	resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root("files_sha256"), &prior.SHA256)...)
	// A change of type alone (a literal for a typed variable, or a state
	// of schema version 2) is applied in place: the files are the same.
	// Terraform replaces for a path whose value changed: a source file's
	// new content changes only its digest.
	if !sameFiles(prior.Files, files.Files) {
		resp.RequiresReplace.Append(path.Root("files"))
	}
	if !prior.SHA256.Equal(digests) {
		resp.RequiresReplace.Append(path.Root("files_sha256"))
	}
}
