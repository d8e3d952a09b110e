package containerresource

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
)

// The engine work behind Create, Read, Update and Delete, in that order.

// create creates the container with its network mode, privileges and
// limits (pulling a missing image once), writes its files, starts it and
// checks what the engine then shows. Whatever a failure leaves is removed by
// the create's token, or recorded as pending (pending.go). It returns what
// the engine added on its own (defaults.go).
func (r *Resource) create(ctx context.Context, m *resourceModel, secretEnv map[string]string) (engine.Defaults, diag.Diagnostics) {
	var added engine.Defaults
	spec, diags := m.spec(ctx, secretEnv)
	files, fileDiags := m.engineFiles(ctx)
	diags.Append(fileDiags...)
	if diags.HasError() {
		return added, diags
	}
	token := engine.NewCreateToken()
	spec.Labels[engine.LabelCreateToken] = token
	if spec.ReadOnly && len(files) > 0 {
		// A read-only root cannot be written into: the files go into an
		// image derived from the configured one (files.go).
		r.removeStaleDerived(ctx, spec.Name)
		derived, err := r.Client.DeriveImage(ctx, spec.Image, files, derivedImageLabels(spec.Name, token))
		if err != nil {
			diags.AddAttributeError(path.Root("files"), "Cannot build the files into the sandbox's image", fmt.Sprintf(
				"The sandbox's root filesystem is read-only, so its files are built into an image derived from "+
					"%s, and building it on the Docker engine at %s failed: %v", spec.Image, r.Client.Endpoint(), err))
			return added, append(diags, r.undoCreate(ctx, m, token)...)
		}
		spec.Image, files = derived, nil
	}
	id, err := r.Client.CreateContainer(ctx, spec)
	if engine.IsNotFound(err) {
		// The image is missing (the only thing a create can miss here):
		// pull it once, then create again. Asking first would cost every
		// sandbox a call.
		if _, err := r.Client.EnsureImage(ctx, spec.Image); err != nil {
			return added, append(diags, r.imageDiagnostic(spec.Image, err))
		}
		id, err = r.Client.CreateContainer(ctx, spec)
	}
	if err != nil {
		if engine.IsConflict(err) && spec.Name != "" {
			// The engine made nothing: the name is someone else's.
			return added, append(diags, r.nameConflictDiagnostic(ctx, spec.Name, err))
		}
		diags.AddError("Cannot create sandbox",
			fmt.Sprintf("The Docker engine at %s refused to create the container: %s", r.Client.Endpoint(), engine.Brief(err)))
		return added, append(diags, r.undoCreate(ctx, m, token)...)
	}

	if len(files) > 0 {
		if err := r.Client.CopyFiles(ctx, id, files); err != nil {
			diags.AddAttributeError(path.Root("files"), "Cannot write files into sandbox", fmt.Sprintf(
				"The Docker engine at %s created container %s but refused its files: %v",
				r.Client.Endpoint(), engine.ShortID(id), err))
			return added, append(diags, r.undoCreate(ctx, m, token)...)
		}
	}
	if m.Running.ValueBool() {
		if err := r.Client.StartContainer(ctx, id); err != nil {
			diags.AddError("Cannot start sandbox", fmt.Sprintf(
				"The Docker engine at %s created container %s but could not start it: %s",
				r.Client.Endpoint(), engine.ShortID(id), engine.Brief(err)))
			return added, append(diags, r.undoCreate(ctx, m, token)...)
		}
	}
	c, observeDiags := r.observe(ctx, id, *m)
	diags.Append(observeDiags...)
	if diags.HasError() {
		return added, append(diags, r.undoCreate(ctx, m, token)...)
	}
	if c.ContainerJSONBase != nil && c.HostConfig != nil {
		added = engine.AddedDefaults(spec, c.HostConfig)
	}
	m.setObserved(ctx, c, added)
	return added, diags
}

// observe inspects the container and checks that the engine shows what the
// configuration asks for: no network when network_mode is "none", and a
// running container when running is true.
func (r *Resource) observe(ctx context.Context, id string, want resourceModel) (engine.Container, diag.Diagnostics) {
	var diags diag.Diagnostics
	c, err := r.Client.InspectContainer(ctx, id)
	if err != nil {
		return c, append(diags, r.readFailed(id, err))
	}
	if diags.Append(want.checkIsolated(c)...); diags.HasError() {
		return c, diags
	}
	if want.Running.ValueBool() && !engine.IsRunning(c) {
		diags.Append(notRunningDiagnostic(c))
	}
	return c, diags
}

// refresh updates m from the engine and reports whether the container
// exists. When the state asks for isolation, network_mode records what the
// engine really shows, so weaker isolation plans a replacement.
func (r *Resource) refresh(ctx context.Context, m *resourceModel, d engine.Defaults) (bool, diag.Diagnostics) {
	found, diags := r.resolvePending(ctx, m)
	if !found || diags.HasError() {
		return false, diags
	}
	c, err := r.Client.InspectContainer(ctx, m.ID.ValueString())
	if engine.IsNotFound(err) {
		return false, diags
	}
	if err != nil {
		return false, append(diags, r.readFailed(m.ID.ValueString(), err))
	}
	m.setObserved(ctx, c, d)
	return true, m.refreshIsolation(c, m.Name.ValueString())
}

// update renames the container, applies changed limits and starts,
// unpauses or stops it; everything else forces replacement.
func (r *Resource) update(ctx context.Context, plan *resourceModel, state resourceModel, d engine.Defaults) diag.Diagnostics {
	id := state.ID.ValueString()
	if name := plan.Name.ValueString(); !plan.Name.IsUnknown() && name != state.Name.ValueString() {
		if err := r.Client.RenameContainer(ctx, id, name); err != nil {
			if engine.IsConflict(err) {
				return diag.Diagnostics{r.nameConflictDiagnostic(ctx, name, err)}
			}
			return diag.Diagnostics{diag.NewAttributeErrorDiagnostic(path.Root("name"), "Cannot rename sandbox",
				fmt.Sprintf("Renaming container %s to %q on the Docker engine at %s failed: %v",
					engine.ShortID(id), name, r.Client.Endpoint(), err))}
		}
	}

	diags := r.applyLimits(ctx, id, plan.limitsModel, state.limitsModel)
	if diags.Append(r.applyRestart(ctx, id, plan.restartModel, state.restartModel)...); diags.HasError() {
		return diags
	}
	if diags.Append(r.applyRunState(ctx, id, *plan)...); diags.HasError() {
		return diags
	}
	c, observeDiags := r.observe(ctx, id, *plan)
	diags.Append(observeDiags...)
	if !diags.HasError() {
		plan.setObserved(ctx, c, d)
	}
	return diags
}

// applyRunState starts, unpauses or stops the container as the plan asks.
func (r *Resource) applyRunState(ctx context.Context, id string, plan resourceModel) diag.Diagnostics {
	var diags diag.Diagnostics
	c, err := r.Client.InspectContainer(ctx, id)
	if err != nil {
		return append(diags, r.readFailed(id, err))
	}
	if c.State.Paused {
		// The engine neither starts nor stops a paused container.
		if err := r.Client.UnpauseContainer(ctx, id); err != nil {
			diags.AddError("Cannot unpause sandbox", fmt.Sprintf("Unpausing container %s on the Docker engine "+
				"at %s failed: %v", engine.ShortID(id), r.Client.Endpoint(), err))
			return diags
		}
	}
	switch want, running := plan.Running.ValueBool(), c.State.Running; {
	case want && !running:
		err = r.Client.StartContainer(ctx, id)
	case !want && running:
		err = r.Client.StopContainer(ctx, id, int(plan.StopTimeout.ValueInt64()))
	}
	if err != nil {
		diags.AddError("Cannot change whether the sandbox runs", fmt.Sprintf(
			"Starting or stopping container %s on the Docker engine at %s failed: %v", engine.ShortID(id), r.Client.Endpoint(), err))
	}
	return diags
}

// remove stops the container with its grace period, then force-removes it;
// a sandbox that runs only the keep-alive is force-removed at once. A
// container that is already gone counts as removed.
func (r *Resource) remove(ctx context.Context, m resourceModel) diag.Diagnostics {
	var diags diag.Diagnostics
	if token, pending := pendingToken(m.ID); pending {
		if err := r.removeByToken(ctx, token); err != nil {
			diags.Append(r.removeFailed("Cannot remove sandbox", m.ID.ValueString(), err))
		}
		return diags
	}
	id := m.ID.ValueString()
	if m.runsKeepAlive() {
		// Nothing runs that could shut down gracefully.
		if err := r.Client.RemoveContainer(ctx, id); err != nil {
			diags.Append(r.removeFailed("Cannot remove sandbox", id, err))
			return diags
		}
		return r.removeDerivedImage(ctx, m)
	}
	if err := r.Client.StopContainer(ctx, id, int(m.StopTimeout.ValueInt64())); err != nil {
		diags.AddError("Cannot stop sandbox", fmt.Sprintf("Stopping container %s on the Docker engine at %s "+
			"failed: %v", engine.ShortID(id), r.Client.Endpoint(), err))
		return diags
	}
	if err := r.Client.RemoveContainer(ctx, id); err != nil {
		diags.Append(r.removeFailed("Cannot remove sandbox", id, err))
		return diags
	}
	return r.removeDerivedImage(ctx, m)
}
