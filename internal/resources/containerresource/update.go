package containerresource

import (
	"context"
	"fmt"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/framework/base"
)

// The engine work behind Update: what can change in place (the name, the
// limits, the restart policy, whether the sandbox runs). Everything else
// forces replacement.

// update renames the container, applies changed limits and restart policy,
// and starts, unpauses or stops it, then checks what the engine shows.
func (r *Resource) update(ctx context.Context, plan *resourceModel, state resourceModel, d engine.Defaults, seen *mainProcess,
	secretEnv map[string]string) diag.Diagnostics {
	id := state.ID.ValueString()
	if name := plan.Name.ValueString(); !plan.Name.IsUnknown() && name != state.Name.ValueString() {
		if diags := r.rename(ctx, id, name); diags.HasError() {
			return diags
		}
	}
	diags := r.applyLimits(ctx, id, plan.limitsModel, state.limitsModel)
	if diags.Append(r.applyRestart(ctx, id, plan.restartModel, state.restartModel)...); diags.HasError() {
		return diags
	}
	if diags.Append(r.renew(ctx, id, *plan, state)...); diags.HasError() {
		return diags
	}
	if plan.wants() != stateStopped && !plan.Expired.ValueBool() {
		var spec engine.ContainerSpec
		diags.Append(plan.mountsModel.applyTo(&spec)...)
		untilSeen, err := r.awaitSnapshots(ctx, writableVolumes(spec), "Apply again")
		if err != nil {
			return append(diags, diag.NewErrorDiagnostic("Cannot start sandbox", err.Error()))
		}
		defer untilSeen()
	}
	if diags.Append(r.applyRunState(ctx, id, *plan, seen, secretEnv)...); diags.HasError() {
		return diags
	}
	c, observeDiags := r.observe(ctx, id, *plan)
	diags.Append(observeDiags...)
	if !diags.HasError() {
		wanted := plan.State.ValueString()
		plan.setObserved(ctx, c, d)
		plan.observeExpiry(c, wanted, time.Now())
	}
	return diags
}

// rename gives the container its new name.
func (r *Resource) rename(ctx context.Context, id, name string) diag.Diagnostics {
	renamer, err := base.Ability[engine.Renamer](r.Client, "renaming a sandbox")
	if err == nil {
		err = renamer.RenameContainer(ctx, id, name)
	}
	switch {
	case err == nil:
		return nil
	case engine.IsConflict(err):
		return diag.Diagnostics{r.nameConflictDiagnostic(r.nameHolder(ctx, name), name, err)}
	}
	return diag.Diagnostics{diag.NewAttributeErrorDiagnostic(path.Root("name"), "Cannot rename sandbox",
		fmt.Sprintf("Renaming container %s to %q on %s failed: %v. %s",
			engine.ShortID(id), name, r.Client.Where(), err, engine.NextStep(err, r.Client.Where())))}
}

// applyLimits changes the container's limits when the plan's differ from
// the state's, then checks that the engine shows the new ones.
func (r *Resource) applyLimits(ctx context.Context, id string, plan, state limitsModel) diag.Diagnostics {
	var diags diag.Diagnostics
	want := plan.engineLimits()
	if want == state.engineLimits() {
		return diags
	}
	updater, err := base.Ability[engine.LimitUpdater](r.Client, "changing a running sandbox's limits")
	if err == nil {
		err = updater.UpdateLimits(ctx, id, want)
	}
	if err != nil {
		diags.AddError("Cannot change sandbox limits", fmt.Sprintf(
			"Changing the limits of container %s on %s failed: %s. %s", engine.ShortID(id), r.Client.Where(), engine.Brief(err), engine.NextStep(err, r.Client.Where())))
		return diags
	}
	c, err := r.Client.InspectContainer(ctx, id)
	if err != nil {
		return append(diags, r.readFailed(id, err))
	}
	if got := engine.ObservedLimits(c.HostConfig); got != want {
		diags.AddError("Sandbox limits not applied", fmt.Sprintf(
			"Container %s on %s accepted new limits but shows %+v instead of %+v. Replace the sandbox "+
				"(terraform apply -replace) to have it made with them, and check that the engine's cgroup "+
				"driver applies limits.", engine.ShortID(id), r.Client.Where(), got, want))
	}
	return diags
}

// applyRestart changes the restart policy when the plan's differs from the
// state's.
func (r *Resource) applyRestart(ctx context.Context, id string, plan, state restartModel) diag.Diagnostics {
	var diags diag.Diagnostics
	if plan.Restart.Equal(state.Restart) || plan.Restart.IsUnknown() {
		return diags
	}
	updater, err := base.Ability[engine.RestartUpdater](r.Client, "changing a sandbox's restart policy")
	if err == nil {
		err = updater.UpdateRestartPolicy(ctx, id, plan.Restart.ValueString())
	}
	if err != nil {
		diags.AddAttributeError(path.Root("restart"), "Cannot change restart policy", fmt.Sprintf(
			"The engine at %s refused restart = %q for container %s: %v. %s", r.Client.Endpoint(),
			plan.Restart.ValueString(), engine.ShortID(id), err, engine.NextStep(err, r.Client.Where())))
	}
	return diags
}

// applyRunState brings the container to the planned state: it starts,
// unpauses, pauses or stops it. A start or an unpause waits, as a create's
// start does, until no snapshot of this apply reads a volume the sandbox
// writes to: one may hold it paused for its read right now. A start (a
// wake) is checked as a create's is: its command must stay up.
func (r *Resource) applyRunState(ctx context.Context, id string, plan resourceModel, seen *mainProcess,
	secretEnv map[string]string) diag.Diagnostics {
	var diags diag.Diagnostics
	window := openStartWindow()
	defer window.close()
	want := plan.wants()
	if plan.Expired.ValueBool() && want != stateStopped {
		return diags // expired: it stays stopped until a renewal
	}
	c, err := r.Client.InspectContainer(ctx, id)
	if err != nil {
		return append(diags, r.readFailed(id, err))
	}
	now := observedState(c)
	if now == want {
		return diags
	}
	if now == statePaused {
		// The engine neither starts nor stops a paused container.
		if diags.Append(r.unpause(ctx, id)...); diags.HasError() || want == stateRunning {
			return diags
		}
		now = stateRunning
	}
	switch {
	case want == stateStopped && r.sleeper != nil:
		err = r.sleeper.SleepContainer(ctx, id, int(plan.StopTimeout.ValueInt64()))
	case want == stateStopped && c.State.Running:
		err = r.Client.StopContainer(ctx, id, int(plan.StopTimeout.ValueInt64()))
	case want != stateStopped && now == stateStopped:
		if diags.Append(r.wake(ctx, id, plan, secretEnv)...); diags.HasError() {
			return diags
		}
		if err = r.Client.StartContainer(ctx, id); err == nil && !plan.runsKeepAlive() {
			var stayDiags diag.Diagnostics
			*seen, stayDiags = r.checkStaysUp(ctx, id, window, plan.createSecrets(ctx, secretEnv), true)
			if diags.Append(stayDiags...); diags.HasError() {
				return diags
			}
		}
	}
	if err != nil {
		return append(diags, diag.NewAttributeErrorDiagnostic(path.Root("state"), "Cannot change the sandbox's state",
			fmt.Sprintf("Bringing container %s on %s from %s to %s failed: %v. %s", engine.ShortID(id),
				r.Client.Where(), now, want, err, engine.NextStep(err, r.Client.Where()))))
	}
	if want == statePaused {
		diags.Append(r.pause(ctx, id)...)
	}
	return diags
}

// renew renews a sandbox's expiry that changed: in place where something
// beside the engine enforces it (expirer); else, on a backend whose
// sandboxes sleep (a cluster: a pod's deadline cannot be lengthened), by
// putting it to sleep, so that applyRunState wakes it with the new expiry,
// unless it is to stay asleep.
func (r *Resource) renew(ctx context.Context, id string, plan, state resourceModel) diag.Diagnostics {
	if plan.ExpiresAt.Equal(state.ExpiresAt) {
		return nil
	}
	if r.expirer != nil {
		// A removed expiry (zero) is removed from what enforces it too.
		return r.setExpiry(ctx, id, plan, plan.expiresAt(time.Time{}))
	}
	if r.sleeper == nil || plan.wants() == stateStopped {
		return nil
	}
	if err := r.sleeper.SleepContainer(ctx, id, int(plan.StopTimeout.ValueInt64())); err != nil && !engine.IsNotFound(err) {
		return diag.Diagnostics{diag.NewAttributeErrorDiagnostic(path.Root(expiryAttributeOf(plan)), "Cannot renew the expiry",
			fmt.Sprintf("Renewing the expiry of sandbox %s on %s makes its pod again, and removing the old one failed: "+
				"%v. %s", engine.ShortID(id), r.Client.Where(), err, engine.NextStep(err, r.Client.Where())))}
	}
	return nil
}

// wake makes the sandbox again on a backend whose sandboxes sleep (a
// cluster), from the plan; the caller starts it.
func (r *Resource) wake(ctx context.Context, id string, plan resourceModel, secretEnv map[string]string) diag.Diagnostics {
	if r.sleeper == nil {
		return nil
	}
	spec, diags := plan.spec(ctx, secretEnv)
	files, fileDiags := plan.engineFiles()
	if diags.Append(fileDiags...); diags.HasError() {
		return diags
	}
	spec.Files = files
	spec.ExpiresAt = plan.expiresAt(time.Time{})
	if err := r.sleeper.WakeContainer(ctx, id, spec); err != nil {
		diags.AddAttributeError(path.Root("state"), "Cannot wake sandbox", fmt.Sprintf(
			"Waking sandbox %s on %s failed: %v. %s", engine.ShortID(id), r.Client.Where(), err,
			engine.NextStep(err, r.Client.Where())))
	}
	return diags
}

// pause freezes the container's processes.
func (r *Resource) pause(ctx context.Context, id string) diag.Diagnostics {
	pauser, err := base.Ability[engine.Pauser](r.Client, "pausing a sandbox")
	if err == nil {
		err = pauser.PauseContainer(ctx, id)
	}
	if err != nil {
		return diag.Diagnostics{diag.NewAttributeErrorDiagnostic(path.Root("state"), "Cannot pause sandbox", fmt.Sprintf(
			"Pausing container %s on %s failed: %v. %s Use state = \"stopped\" to put it to sleep instead.",
			engine.ShortID(id), r.Client.Where(), err, engine.NextStep(err, r.Client.Where())))}
	}
	return nil
}

// unpause takes the container out of its pause.
func (r *Resource) unpause(ctx context.Context, id string) diag.Diagnostics {
	unpauser, err := base.Ability[engine.Unpauser](r.Client, "unpausing a sandbox")
	if err == nil {
		err = unpauser.UnpauseContainer(ctx, id)
	}
	if err != nil {
		return diag.Diagnostics{diag.NewAttributeErrorDiagnostic(path.Root("state"), "Cannot unpause sandbox", fmt.Sprintf(
			"Unpausing container %s on %s failed: %v. %s", engine.ShortID(id), r.Client.Where(), err,
			engine.NextStep(err, r.Client.Where())))}
	}
	return nil
}
