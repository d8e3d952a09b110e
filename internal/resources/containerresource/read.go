package containerresource

import (
	"context"
	"fmt"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
)

// The engine work behind Read, and the inspection that Create and Update
// end with.

// refresh updates m from the engine and reports whether the container
// exists. When the state asks for isolation, network_mode records what the
// engine really shows, so weaker isolation plans a replacement. seen is
// what the last look saw of the main process, updated here: a main process
// the engine restarted since is looked at again (stayup.go), and one that
// restarts in a loop reads as not running.
func (r *Resource) refresh(ctx context.Context, m *resourceModel, d engine.Defaults, seen *mainProcess) (bool, diag.Diagnostics) {
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
	looping, exitedAtStart := engine.Restarting(c), false
	switch {
	case looping:
	case seen.Unsettled:
		c, exitedAtStart = r.settle(ctx, m.ID.ValueString(), c, *seen)
	case seen.ExitedAtStart:
		// Still the start that exited (a refresh-only apply recorded it).
		exitedAtStart = !engine.IsRunning(c) && c.State != nil && c.State.StartedAt == seen.StartedAt
	}
	looping = looping || exitedAtStart
	if !looping && engine.Restarts(c) > seen.Restarts && ctx.Err() == nil {
		time.Sleep(settleTime)
		again, err := r.Client.InspectContainer(ctx, m.ID.ValueString())
		if err == nil {
			looping = loops(c, again)
			c = again
		}
	}
	*seen = observedMainProcess(c, looping)
	if exitedAtStart {
		seen.ExitedAtStart, seen.StartedAt = true, c.State.StartedAt
	}
	prior := m.State.ValueString()
	m.setObserved(ctx, c, d)
	if looping {
		m.setState(stateStopped)
	}
	m.observeExpiry(c, prior, time.Now())
	return true, m.refreshIsolation(c, m.Name.ValueString())
}

// resolvePending replaces a pending ID with the ID of the container its
// token names, and reports whether there is one. This is the one place a
// resource lists containers, filtered by the engine by that label.
func (r *Resource) resolvePending(ctx context.Context, m *resourceModel) (bool, diag.Diagnostics) {
	token, pending := pendingToken(m.ID)
	if !pending {
		return true, nil
	}
	ids, err := r.Client.ContainersCreatedWith(ctx, token)
	if err != nil {
		return false, diag.Diagnostics{r.readFailed(m.ID.ValueString(), err)}
	}
	if len(ids) == 0 {
		return false, nil
	}
	m.ID = types.StringValue(ids[0])
	return true, nil
}

// observe inspects the container and checks that the engine shows what the
// configuration asks for: no network when network_mode is "none", and a
// running or paused container when state says so.
func (r *Resource) observe(ctx context.Context, id string, want resourceModel) (engine.Sandbox, diag.Diagnostics) {
	var diags diag.Diagnostics
	c, err := r.Client.InspectContainer(ctx, id)
	if err != nil {
		return c, append(diags, r.readFailed(id, err))
	}
	if diags.Append(want.checkIsolated(c)...); diags.HasError() {
		return c, diags
	}
	switch state := want.wants(); {
	case want.Expired.ValueBool():
		// Stopped by its expiry, and kept so until a renewal.
	case state == stateRunning && !engine.IsRunning(c):
		diags.Append(notRunningDiagnostic(r.Client, c))
	case state == statePaused && observedState(c) != statePaused:
		diags.AddAttributeError(path.Root("state"), "Sandbox is not paused", fmt.Sprintf(
			"Container %s on %s was paused but the engine shows it %q. Apply again, or use state = \"stopped\" "+
				"to put it to sleep.", engine.ShortID(c.ID), r.Client.Where(), observedState(c)))
	}
	return c, diags
}
