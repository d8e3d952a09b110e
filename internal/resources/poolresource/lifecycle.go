package poolresource

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/framework/base"
)

// Every engine call of the pool: each has its own deadline in the backend;
// warmTimeout bounds the wait for the pool to be warm.
const (
	warmTimeout = 5 * time.Minute
	warmPoll    = 500 * time.Millisecond
	undoTimeout = engine.SlowCallTimeout
)

// pools is the backend's pools, or an error the plan should have given.
func (r *Resource) pools() (engine.Pools, diag.Diagnostics) {
	p, err := base.Ability[engine.Pools](r.Client, "a sandbox_pool")
	if err != nil {
		return nil, diag.Diagnostics{diag.NewErrorDiagnostic("Cannot keep a pool here", err.Error())}
	}
	return p, nil
}

// create makes the pool and waits until it is warm; the ID is "" when
// nothing is left on the cluster.
func (r *Resource) create(ctx context.Context, m *resourceModel, secretEnv map[string]string) (string, diag.Diagnostics) {
	pools, diags := r.pools()
	if diags.HasError() {
		return "", diags
	}
	spec, diags := m.spec(ctx, secretEnv)
	if diags.HasError() {
		return "", diags
	}
	id, err := pools.CreatePool(ctx, spec)
	var refused *engine.RefusedError
	switch {
	case errors.As(err, &refused):
		for _, f := range refused.Refusals {
			diags.AddError(f.Summary, f.Detail)
		}
		return "", diags
	case err != nil && engine.IsConflict(err):
		diags.AddAttributeError(path.Root("name"), "Pool name taken", fmt.Sprintf("A SandboxTemplate named %q "+
			"is already in %s, and the provider does not adopt what it did not make. Choose another name, or "+
			"remove that template (and its SandboxWarmPool) if it is a leftover.", spec.Name, r.Client.Where()))
		return "", diags
	case err != nil:
		diags.AddError("Cannot create the pool", fmt.Sprintf("Creating the pool %q on %s failed: %s. %s", spec.Name,
			r.Client.Where(), engine.Brief(err), engine.NextStep(err, r.Client.Where())))
		if id == "" {
			return "", diags
		}
		// Made in part, and not removed: Create removes it again.
	}
	m.ID = types.StringValue(id)
	if err == nil {
		diags.Append(r.awaitWarm(ctx, m, pools)...)
	}
	return id, diags
}

// read refreshes the model; found is false when the pool is gone.
func (r *Resource) read(ctx context.Context, m *resourceModel) (bool, diag.Diagnostics) {
	pools, diags := r.pools()
	if diags.HasError() {
		return false, diags
	}
	p, err := pools.InspectPool(ctx, m.ID.ValueString())
	if engine.IsNotFound(err) {
		return false, nil
	}
	if err != nil {
		diags.AddError("Cannot read the pool", fmt.Sprintf("Reading the pool %s on %s failed: %s. %s", m.ID.ValueString(),
			r.Client.Where(), engine.Brief(err), engine.NextStep(err, r.Client.Where())))
		return false, diags
	}
	m.observe(p)
	return true, nil
}

// scale sets the pool's replicas and waits until it is warm.
func (r *Resource) scale(ctx context.Context, m *resourceModel) diag.Diagnostics {
	pools, diags := r.pools()
	if diags.HasError() {
		return diags
	}
	if err := pools.ScalePool(ctx, m.ID.ValueString(), int(m.Replicas.ValueInt64())); err != nil {
		diags.AddAttributeError(path.Root("replicas"), "Cannot scale the pool", fmt.Sprintf("Setting the pool %s "+
			"to %d replicas on %s failed: %s. %s", m.ID.ValueString(), m.Replicas.ValueInt64(), r.Client.Where(),
			engine.Brief(err), engine.NextStep(err, r.Client.Where())))
		return diags
	}
	return r.awaitWarm(ctx, m, pools)
}

// awaitWarm waits until the pool has as many ready warm sandboxes as it
// is asked for, then records what it shows; at the deadline it says what
// the pool's sandboxes are waiting on.
func (r *Resource) awaitWarm(ctx context.Context, m *resourceModel, pools engine.Pools) diag.Diagnostics {
	var diags diag.Diagnostics
	want := int(m.Replicas.ValueInt64())
	deadline := time.Now().Add(warmTimeout)
	for {
		p, err := pools.InspectPool(ctx, m.ID.ValueString())
		if err == nil && p.Replicas == want && p.Ready >= want && verdict(p).Isolated {
			m.observe(p)
			return diags
		}
		if err == nil && !verdict(p).Isolated {
			m.observe(p)
			diags.AddAttributeError(path.Root("network_mode"), "The pool is not isolated", fmt.Sprintf(
				"The pool %s on %s was made, and is not isolated: %s. It is removed again (or, where that fails, "+
					"recorded tainted, for the next apply to replace). Check the cluster's RuntimeClass and network policies.", m.ID.ValueString(),
				r.Client.Where(), verdict(p).Reason))
			return diags
		}
		if ctx.Err() != nil || time.Now().After(deadline) {
			diags.Append(notWarm(ctx, m, r.Client.Where(), p, err))
			return diags
		}
		select {
		case <-ctx.Done():
		case <-time.After(warmPoll):
		}
	}
}

// remove removes the pool; one that claims still hold is refused, naming
// the claims and how to end them.
func (r *Resource) remove(ctx context.Context, m resourceModel) diag.Diagnostics {
	pools, diags := r.pools()
	if diags.HasError() {
		return diags
	}
	err := pools.RemovePool(ctx, m.ID.ValueString())
	var claimed *engine.ClaimedError
	switch {
	case errors.As(err, &claimed) && claimed.Kept != "":
		diags.AddWarning("Pool removed, its network policy kept for claimed sandboxes", fmt.Sprintf("The pool %s "+
			"on %s is removed, but claims took sandboxes from it as it went (%s). They run under its deny-all "+
			"NetworkPolicy (and its Secrets, if it had any), which are kept so that they stay isolated. When "+
			"those claims end, remove what was kept: %s", claimed.Pool, r.Client.Where(), strings.Join(claimed.Claims, ", "), claimed.Kept))
	case errors.As(err, &claimed):
		diags.AddError("Sandboxes claimed from the pool still run", fmt.Sprintf("The pool %s on %s hands its "+
			"sandboxes to claims, and %d still hold one (%s). Removing the pool would remove the deny-all "+
			"NetworkPolicy and the Secret they run under, so it is kept. End those claims (%s), or wait until "+
			"they end, then apply again.", claimed.Pool, r.Client.Where(), len(claimed.Claims),
			strings.Join(claimed.Claims, ", "), claimed.Command))
	case err != nil:
		diags.AddError("Cannot remove the pool", fmt.Sprintf("Removing the pool %s on %s failed: %s. %s",
			m.ID.ValueString(), r.Client.Where(), engine.Brief(err), engine.NextStep(err, r.Client.Where())))
	}
	return diags
}

// undo removes a pool whose create failed after it was made, even when the
// create was interrupted, and returns "" when it is gone; else its ID, to
// be recorded where the CLI can record a failed create, or "" with an
// error that says how to remove it by hand.
func (r *Resource) undo(ctx context.Context, id string, diags *diag.Diagnostics) string {
	pools, more := r.pools()
	if diags.Append(more...); more.HasError() {
		return id
	}
	undoCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), undoTimeout)
	defer cancel()
	err := pools.RemovePool(undoCtx, id)
	switch {
	case err == nil:
		return ""
	case r.CLI.SavesFailedCreates():
		return id
	}
	diags.AddError("Pool left on the cluster", fmt.Sprintf("The pool %s could not be removed after its create "+
		"failed (%s), and %s. Remove it by hand: kubectl delete sandboxtemplates.%s -n %s %s",
		id, engine.Brief(err), r.CLI.NotSaved("pool"), "extensions.agents.x-k8s.io", namespaceOf(id), nameOf(id)))
	return ""
}

// namespaceOf and nameOf are the parts of a pool's ID.
func namespaceOf(id string) string { ns, _, _ := strings.Cut(id, "/"); return ns }

func nameOf(id string) string {
	parts := strings.Split(id, "/")
	if len(parts) < 2 {
		return id
	}
	return parts[1]
}

// notWarm is the error of a pool that did not become warm in time, or
// whose wait was interrupted, with what it showed last.
func notWarm(ctx context.Context, m *resourceModel, where string, p engine.Pool, err error) diag.Diagnostic {
	seen := fmt.Sprintf("%d of %d were ready", p.Ready, m.Replicas.ValueInt64())
	if err != nil {
		seen = "it could not be read: " + engine.Brief(err)
	}
	when := fmt.Sprintf("after %s", warmTimeout)
	if ctx.Err() != nil {
		when = "when the apply was interrupted"
	}
	return diag.NewAttributeErrorDiagnostic(path.Root("replicas"), "The pool did not become warm", fmt.Sprintf(
		"The pool %s on %s was made, and %s %s. It is removed again (or, where that fails, recorded tainted, for "+
			"the next apply to replace). Check that the cluster's nodes can pull %q and run its RuntimeClass "+
			"(kubectl describe pods -l %s), and that agent-sandbox's controller runs with --extensions; then "+
			"apply again.", m.ID.ValueString(), where, when, seen, m.Image.ValueString(),
		engine.LabelResourceType+"="+resourceType))
}
