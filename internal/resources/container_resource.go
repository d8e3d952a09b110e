// Package resources holds the provider's resources, one file each.
package resources

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/isolation"
)

// cleanupTimeout bounds the removal of a container whose creation failed
// half-way; it runs even when the request was cancelled.
const cleanupTimeout = 30 * time.Second

var (
	_ resource.Resource                   = &ContainerResource{}
	_ resource.ResourceWithConfigure      = &ContainerResource{}
	_ resource.ResourceWithImportState    = &ContainerResource{}
	_ resource.ResourceWithUpgradeState   = &ContainerResource{}
	_ resource.ResourceWithValidateConfig = &ContainerResource{}
	_ resource.ResourceWithModifyPlan     = &ContainerResource{}
)

// NewContainerResource returns the sandbox_container resource.
func NewContainerResource() resource.Resource {
	return &ContainerResource{}
}

// ContainerResource manages one sandbox container.
type ContainerResource struct {
	client *engine.Client
}

// Metadata names the resource.
func (r *ContainerResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_container"
}

// Schema describes the resource.
func (r *ContainerResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = containerSchema(ctx)
}

// Configure takes the provider's engine client.
func (r *ContainerResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	if req.ProviderData == nil {
		return
	}
	client, ok := req.ProviderData.(*engine.Client)
	if !ok {
		resp.Diagnostics.AddError("Unexpected provider data",
			fmt.Sprintf("Expected *engine.Client, got %T. This is a bug in the provider.", req.ProviderData))
		return
	}
	r.client = client
}

// UpgradeState upgrades states written by earlier schema versions.
func (r *ContainerResource) UpgradeState(_ context.Context) map[int64]resource.StateUpgrader {
	return containerStateUpgraders()
}

// ValidateConfig checks what single attributes cannot: combinations.
func (r *ContainerResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var m containerModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	resp.Diagnostics.Append(validateCombinations(ctx, m)...)
}

// ModifyPlan records each file's digest, so that a plan shows a file whose
// content changed, and replaces the sandbox when its files change.
func (r *ContainerResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() {
		return
	}
	var files types.Map
	resp.Diagnostics.Append(req.Plan.GetAttribute(ctx, path.Root("files"), &files)...)
	if resp.Diagnostics.HasError() {
		return
	}
	planned, diags := planFiles(ctx, files)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("files"), planned)...)
	if req.State.Raw.IsNull() {
		return
	}
	var prior types.Map
	resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root("files"), &prior)...)
	if !prior.Equal(planned) {
		resp.RequiresReplace.Append(path.Root("files"))
	}
}

// Create makes the image available, creates the container with its network
// mode, privileges and limits, writes its files, starts it and checks what
// the engine then shows. A container left behind by a failure is removed.
func (r *ContainerResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan containerModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	// Write-only values are only in the configuration.
	var secretEnv map[string]string
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("env_wo"), &secretEnv)...)
	if resp.Diagnostics.HasError() {
		return
	}
	timeout, diags := plan.Timeouts.Create(ctx, defaultCreateTimeout)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	resp.Diagnostics.Append(r.create(ctx, &plan, secretEnv)...)
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		resp.Diagnostics.AddError("Sandbox creation timed out", fmt.Sprintf(
			"Creating the sandbox took longer than its create timeout (%s), pulling the image included. "+
				"Anything half-created was removed. Raise timeouts.create, or make the image available "+
				"on the engine beforehand.", timeout))
	}
	if resp.Diagnostics.HasError() {
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, plan)...)
}

func (r *ContainerResource) create(ctx context.Context, m *containerModel, secretEnv map[string]string) diag.Diagnostics {
	spec, diags := m.spec(ctx, secretEnv)
	if diags.HasError() {
		return diags
	}
	files, fileDiags := engineFiles(ctx, m.Files)
	diags.Append(fileDiags...)
	if diags.HasError() {
		return diags
	}
	if _, err := r.client.EnsureImage(ctx, spec.Image); err != nil {
		return append(diags, r.imageDiagnostic(spec.Image, err))
	}

	id, err := r.client.CreateContainer(ctx, spec)
	if err != nil {
		if engine.IsConflict(err) && spec.Name != "" {
			return append(diags, r.nameConflictDiagnostic(ctx, spec.Name, err))
		}
		diags.AddError("Cannot create sandbox",
			fmt.Sprintf("The Docker engine at %s refused to create the container: %v", r.client.Endpoint(), err))
		return diags
	}

	if len(files) > 0 {
		if err := r.client.CopyFiles(ctx, id, files); err != nil {
			diags.AddAttributeError(path.Root("files"), "Cannot write files into sandbox", fmt.Sprintf(
				"The Docker engine created container %s but refused its files: %v", shortID(id), err))
			return append(diags, r.removeAfterFailure(ctx, id)...)
		}
	}

	if m.Running.ValueBool() {
		if err := r.client.StartContainer(ctx, id); err != nil {
			diags.AddError("Cannot start sandbox", fmt.Sprintf(
				"The Docker engine created container %s but could not start it: %v", shortID(id), err))
			return append(diags, r.removeAfterFailure(ctx, id)...)
		}
	}
	c, observeDiags := r.observe(ctx, id, *m)
	diags.Append(observeDiags...)
	if diags.HasError() {
		return append(diags, r.removeAfterFailure(ctx, id)...)
	}
	m.setObserved(c)
	return diags
}

// Read refreshes the state from the engine, by ID. A container that is gone
// is removed from the state, so the plan recreates it. When the state asks
// for isolation, network_mode records what the engine really shows, so weaker
// isolation plans a replacement.
func (r *ContainerResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state containerModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	found, diags := r.refresh(ctx, &state)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	if !found {
		resp.State.RemoveResource(ctx)
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, state)...)
}

// refresh updates m from the engine and reports whether the container exists.
func (r *ContainerResource) refresh(ctx context.Context, m *containerModel) (bool, diag.Diagnostics) {
	var diags diag.Diagnostics
	c, err := r.client.InspectContainer(ctx, m.ID.ValueString())
	if engine.IsNotFound(err) {
		return false, diags
	}
	if err != nil {
		diags.AddError("Cannot read sandbox", fmt.Sprintf(
			"Inspecting container %s on the Docker engine at %s failed: %v",
			m.ID.ValueString(), r.client.Endpoint(), err))
		return false, diags
	}

	m.setObserved(c)
	if m.NetworkMode.IsNull() {
		return true, diags
	}
	verdict := isolation.Assess(c)
	m.NetworkMode = types.StringValue(verdict.Mode)
	if !verdict.Isolated {
		diags.AddAttributeWarning(path.Root("network_mode"), "Sandbox lost its network isolation",
			fmt.Sprintf("Container %q (%s) was created with network_mode = %q, yet %s. Networks found: %s. "+
				"The next apply replaces it with a new, isolated sandbox.",
				m.Name.ValueString(), shortID(c.ID), isolation.NoneMode, verdict.Reason,
				strings.Join(verdict.Networks, ", ")))
	}
	return true, diags
}

// Update renames the container, applies changed limits and starts,
// unpauses or stops it; everything else forces replacement.
func (r *ContainerResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan, state containerModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	resp.Diagnostics.Append(r.update(ctx, &plan, state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, plan)...)
}

func (r *ContainerResource) update(ctx context.Context, plan *containerModel, state containerModel) diag.Diagnostics {
	id := state.ID.ValueString()
	if name := plan.Name.ValueString(); !plan.Name.IsUnknown() && name != state.Name.ValueString() {
		if err := r.client.RenameContainer(ctx, id, name); err != nil {
			if engine.IsConflict(err) {
				return diag.Diagnostics{r.nameConflictDiagnostic(ctx, name, err)}
			}
			return diag.Diagnostics{diag.NewAttributeErrorDiagnostic(path.Root("name"), "Cannot rename sandbox",
				fmt.Sprintf("Renaming container %s to %q failed: %v", shortID(id), name, err))}
		}
	}

	diags := r.applyLimits(ctx, id, *plan, state)
	if diags.HasError() {
		return diags
	}
	diags.Append(r.applyRunState(ctx, id, *plan)...)
	if diags.HasError() {
		return diags
	}
	c, observeDiags := r.observe(ctx, id, *plan)
	diags.Append(observeDiags...)
	if !diags.HasError() {
		plan.setObserved(c)
	}
	return diags
}

// applyLimits changes the container's limits when the plan's differ from the
// state's, then checks that the engine shows the new ones.
func (r *ContainerResource) applyLimits(ctx context.Context, id string, plan, state containerModel) diag.Diagnostics {
	var diags diag.Diagnostics
	want := plan.limits()
	if want == state.limits() {
		return diags
	}
	if err := r.client.UpdateLimits(ctx, id, want); err != nil {
		diags.AddError("Cannot change sandbox limits", fmt.Sprintf(
			"The Docker engine refused the new limits for container %s: %v", shortID(id), err))
		return diags
	}
	c, err := r.client.InspectContainer(ctx, id)
	if err != nil {
		diags.AddError("Cannot read sandbox", fmt.Sprintf("Inspecting container %s failed: %v", shortID(id), err))
		return diags
	}
	if got := engineLimits(c.HostConfig); got != want {
		diags.AddError("Sandbox limits not applied", fmt.Sprintf(
			"The Docker engine accepted new limits for container %s but shows %+v instead of %+v.",
			shortID(id), got, want))
	}
	return diags
}

// applyRunState starts, unpauses or stops the container as the plan asks.
func (r *ContainerResource) applyRunState(ctx context.Context, id string, plan containerModel) diag.Diagnostics {
	var diags diag.Diagnostics
	c, err := r.client.InspectContainer(ctx, id)
	if err != nil {
		diags.AddError("Cannot read sandbox", fmt.Sprintf("Inspecting container %s failed: %v", shortID(id), err))
		return diags
	}
	paused, running := c.State.Paused, c.State.Running
	grace := int(plan.StopTimeout.ValueInt64())

	if paused {
		// The engine neither starts nor stops a paused container.
		if err := r.client.UnpauseContainer(ctx, id); err != nil {
			diags.AddError("Cannot unpause sandbox", fmt.Sprintf("Unpausing container %s failed: %v", shortID(id), err))
			return diags
		}
	}
	switch want := plan.Running.ValueBool(); {
	case want && !running:
		err = r.client.StartContainer(ctx, id)
	case !want && running:
		err = r.client.StopContainer(ctx, id, grace)
	}
	if err != nil {
		diags.AddError("Cannot change whether the sandbox runs",
			fmt.Sprintf("Starting or stopping container %s failed: %v", shortID(id), err))
	}
	return diags
}

// observe inspects the container and checks that the engine shows what the
// configuration asks for: no network when network_mode is "none", and a
// running container when running is true.
func (r *ContainerResource) observe(ctx context.Context, id string, want containerModel) (container.InspectResponse, diag.Diagnostics) {
	var diags diag.Diagnostics
	c, err := r.client.InspectContainer(ctx, id)
	if err != nil {
		diags.AddError("Cannot read sandbox", fmt.Sprintf("Inspecting container %s failed: %v", shortID(id), err))
		return c, diags
	}
	if want.isolated() {
		if verdict := isolation.Assess(c); !verdict.Isolated {
			diags.AddAttributeError(path.Root("network_mode"), "Sandbox is not isolated",
				fmt.Sprintf("The engine did not isolate container %s: %s.", shortID(id), verdict.Reason))
			return c, diags
		}
	}
	if want.Running.ValueBool() && !isRunning(c) {
		diags.AddError("Sandbox is not running", exitedDetail(c))
	}
	return c, diags
}

// Delete stops the container with its grace period, then force-removes it.
// A container that is already gone counts as deleted.
func (r *ContainerResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state containerModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	timeout, diags := state.Timeouts.Delete(ctx, defaultDeleteTimeout)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	resp.Diagnostics.Append(r.remove(ctx, state)...)
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		resp.Diagnostics.AddError("Sandbox deletion timed out", fmt.Sprintf(
			"Destroying the sandbox took longer than its delete timeout (%s). Raise timeouts.delete, "+
				"or remove the container by hand: docker rm -f %s", timeout, state.ID.ValueString()))
	}
}

func (r *ContainerResource) remove(ctx context.Context, m containerModel) diag.Diagnostics {
	var diags diag.Diagnostics
	id := m.ID.ValueString()
	if err := r.client.StopContainer(ctx, id, int(m.StopTimeout.ValueInt64())); err != nil {
		diags.AddError("Cannot stop sandbox", fmt.Sprintf("Stopping container %s failed: %v", shortID(id), err))
		return diags
	}
	if err := r.client.RemoveContainer(ctx, id); err != nil {
		diags.AddError("Cannot remove sandbox", fmt.Sprintf("Removing container %s failed: %v", shortID(id), err))
	}
	return diags
}

// ImportState imports a container by ID or name, with every attribute read
// from the engine, network_mode included.
func (r *ContainerResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	c, err := r.client.InspectContainer(ctx, req.ID)
	if err != nil {
		detail := fmt.Sprintf("Inspecting %q on the Docker engine at %s failed: %v", req.ID, r.client.Endpoint(), err)
		if engine.IsNotFound(err) {
			detail = fmt.Sprintf("No container with ID or name %q exists on the Docker engine at %s.",
				req.ID, r.client.Endpoint())
		}
		resp.Diagnostics.AddError("Cannot import sandbox", detail)
		return
	}
	img, err := r.client.InspectImage(ctx, c.Image)
	if err != nil && !engine.IsNotFound(err) {
		resp.Diagnostics.AddError("Cannot import sandbox", err.Error())
		return
	}
	var m containerModel
	m.setFromEngine(c, img)
	resp.Diagnostics.Append(resp.State.Set(ctx, m)...)
}

// removeAfterFailure removes a container whose creation failed, even when
// the request was cancelled, so that nothing leaks.
func (r *ContainerResource) removeAfterFailure(ctx context.Context, id string) diag.Diagnostics {
	var diags diag.Diagnostics
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cleanupTimeout)
	defer cancel()
	if err := r.client.RemoveContainer(ctx, id); err != nil {
		diags.AddError("Cannot remove failed sandbox", fmt.Sprintf(
			"Removing container %s after its creation failed also failed: %v\n\nRemove it by hand: docker rm -f %s",
			shortID(id), err, id))
	}
	return diags
}

func (r *ContainerResource) imageDiagnostic(ref string, err error) diag.Diagnostic {
	var missing *engine.ImageMissingError
	if !errors.As(err, &missing) {
		return diag.NewAttributeErrorDiagnostic(path.Root("image"), "Cannot check image", err.Error())
	}
	return diag.NewAttributeErrorDiagnostic(path.Root("image"), "Image not available", fmt.Sprintf(
		"The image %q is not present on the Docker engine at %s, and pulling it failed:\n\n%v\n\n"+
			"Sandboxes start only from images the engine already has or can pull. Build or load the image "+
			"on that engine, then apply again, for example:\n\n"+
			"  docker build -t %s <build-context>\n"+
			"  docker load --input <image.tar>\n"+
			"  docker pull %s    (where a registry is reachable)",
		ref, r.client.Endpoint(), missing.PullErr, ref, ref))
}

// nameConflictDiagnostic explains that a name is taken. The container that
// holds it is only inspected, never adopted, stopped or removed.
func (r *ContainerResource) nameConflictDiagnostic(ctx context.Context, name string, err error) diag.Diagnostic {
	holder := fmt.Sprintf("another container (%v)", err)
	if c, inspectErr := r.client.InspectContainer(ctx, name); inspectErr == nil {
		holder = fmt.Sprintf("container %s", shortID(c.ID))
		if c.Config != nil && c.Config.Labels[labelManagedBy] == managedByValue {
			holder += ", which this provider created but this resource does not track"
		}
	}
	return diag.NewAttributeErrorDiagnostic(path.Root("name"), "Sandbox name already in use", fmt.Sprintf(
		"The name %q is already used by %s on the Docker engine at %s.\n\n"+
			"The provider never adopts, stops or removes a container it did not create for this resource. "+
			"Choose another name, remove that container yourself, or bring it under Terraform with "+
			"`terraform import`.", name, holder, r.client.Endpoint()))
}

func exitedDetail(c container.InspectResponse) string {
	status, code := "unknown", 0
	if c.ContainerJSONBase != nil && c.State != nil {
		status, code = c.State.Status, c.State.ExitCode
	}
	return fmt.Sprintf("Container %s is %q (exit code %d) right after it was started. A sandbox must keep "+
		"running: leave entrypoint and command unset for the keep-alive, or give a command that does not "+
		"exit. See its output with: docker logs %s", shortID(c.ID), status, code, c.ID)
}

func shortID(id string) string {
	if len(id) > 12 {
		return id[:12]
	}
	return id
}
