package volumeresource

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/framework/base"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/framework/timeouts"
)

// create makes the volume and seeds it, and returns its tokens. A volume
// whose seeding fails is removed; kept says that it could not be, and is
// to be recorded all the same, with the seeding's token, whose helpers the
// engine may not have removed either.
func (r *Resource) create(ctx context.Context, m *resourceModel) (t tokens, kept bool, diags diag.Diagnostics) {
	token := engine.NewCreateToken()
	spec, diags := m.spec(ctx, token)
	if diags.HasError() {
		return t, false, diags
	}
	if m.restores() {
		ref, _ := m.snapshot()
		lim, err := limitsOn(ctx, r.Client)
		if err != nil {
			diags.AddError("Cannot restore the snapshot", fmt.Sprintf("%s. Nothing was created; apply again once "+
				"the engine answers.", engine.Brief(err)))
			return t, false, diags
		}
		if diags.Append(checkSnapshot(ctx, ref, lim, false)...); diags.HasError() {
			return t, false, diags
		}
	}
	v, err := r.Client.CreateVolume(ctx, spec)
	var taken *engine.VolumeNameTakenError
	var sizeRefused *engine.VolumeSizeRefusedError
	var noMemory *engine.MemoryVolumeUnsupportedError
	switch {
	case errors.As(err, &taken):
		diags.AddAttributeError(path.Root("name"), "Volume name taken", nameTakenDetail(taken, r.Client))
		return t, false, diags
	case errors.As(err, &noMemory) || errors.As(err, &sizeRefused):
		diags.Append(boundRefused(spec, r.Client.Endpoint(), noMemory, sizeRefused)...)
		return t, false, diags
	case err != nil:
		diags.AddError("Cannot create the volume", fmt.Sprintf("Creating the volume %q on the engine at %s "+
			"failed: %s. %s", spec.Name, r.Client.Endpoint(), engine.Brief(err), engine.NextStep(err, r.Client.Where())))
		// The engine may have made it all the same (its answer lost): what
		// carries this create's token goes.
		undoCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), undoTimeout)
		defer cancel()
		if undoErr := r.Client.RemoveVolume(undoCtx, spec.Name, token); undoErr != nil {
			diags.AddError("Cut-off create not undone", fmt.Sprintf("The engine at %s may have made the volume %q "+
				"before the create failed, and it could not be asked (%s). The volume is recorded, tainted: the "+
				"next apply removes it if it exists, and creates it again.", r.Client.Endpoint(), spec.Name,
				engine.Brief(undoErr)))
			return tokens{create: token}, true, diags
		}
		return t, false, diags
	}
	m.observe(v)
	t, kept = r.fill(ctx, *m, tokens{create: token}, &diags)
	return t, kept, diags
}

// fill restores the new volume from its snapshot, or seeds it, if either
// is asked for. A volume that cannot be filled is removed; kept says that
// it could not be, and is to be recorded all the same, with the seeding's
// token, whose helpers the engine may not have removed either.
func (r *Resource) fill(ctx context.Context, m resourceModel, t tokens, diags *diag.Diagnostics) (tokens, bool) {
	if !m.restores() && (!m.seeds() || m.inMemory()) {
		return t, false
	}
	name := m.Name.ValueString()
	seedToken := engine.NewCreateToken()
	fill, failed := r.seed, seedDiagnostics
	if m.restores() {
		fill, failed = r.restore, restoreDiagnostics
	}
	err := fill(ctx, m, seedToken)
	if err == nil {
		return t, false
	}
	if te := timeouts.ExpiredIn(ctx); te != nil {
		diags.AddAttributeError(path.Root("timeouts").AtName("create"), "Volume not filled in time", fmt.Sprintf(
			"Filling the volume %q on the engine at %s from its snapshot or source %s. Raise timeouts.create "+
				"for a volume of this size.", name, r.Client.Endpoint(), te))
	} else {
		diags.Append(failed(name, r.Client.Endpoint(), err)...)
	}
	// Half-filled: not a volume to record as seeded or restored.
	undoCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), undoTimeout)
	defer cancel()
	if err := r.Client.RemoveVolume(undoCtx, name, t.create); err != nil {
		next := "It is recorded, tainted: the next apply removes it, and what its seeding left, and creates it again."
		if !r.CLI.SavesFailedCreates() {
			next = fmt.Sprintf("%s. Once the engine answers again, remove it by hand, with what filled it:\n\n"+
				"  %s\n  %s", r.CLI.NotSaved("volume"), strings.ReplaceAll(r.Client.ByHand().RemoveHelpers(name, seedToken), "\n", "\n  "),
				r.Client.ByHand().RemoveVolume(name))
		}
		diags.AddError("Half-seeded volume left", fmt.Sprintf("The volume %q, whose seeding or restore "+
			"failed, could not be removed from the engine at %s (%s). %s", name, r.Client.Endpoint(),
			engine.Brief(err), next))
		t.seed = seedToken
		return t, true
	}
	return t, false
}

// boundRefused describes a bound the engine cannot enforce, and so the
// create refused: one of noMemory and sizeRefused is set.
func boundRefused(spec engine.VolumeSpec, endpoint string, noMemory *engine.MemoryVolumeUnsupportedError,
	sizeRefused *engine.VolumeSizeRefusedError) diag.Diagnostics {
	var diags diag.Diagnostics
	if noMemory != nil {
		diags.AddAttributeError(path.Root("medium"), "Memory volume not bounded here", fmt.Sprintf(
			"The engine at %s cannot bound the memory volume %q: %s. Nothing was created. Use medium = "+
				`"disk", or an engine on an x86_64 host.`, endpoint, spec.Name, noMemory.Error()))
		return diags
	}
	diags.AddAttributeError(path.Root("size_mb"), "Volume size not enforceable", fmt.Sprintf(
		"The engine at %s refused to bound the volume %q to %d MiB (%s). Engines bound a disk volume with "+
			"a project quota, which only a data root on XFS mounted with pquota has; the provider never "+
			"creates a volume whose bound is not enforced, and nothing was created. Remove size_mb for an "+
			`unbounded disk volume, use medium = "memory" for a bounded scratch volume that does not `+
			"keep its data, or give the engine an XFS data root with pquota.",
		endpoint, spec.Name, spec.Size/mib, engine.Brief(sizeRefused.Err)))
	return diags
}

// undoTimeout bounds the removal of a volume whose seeding failed, which
// runs even when the apply was interrupted.
const undoTimeout = 30 * time.Second

// seed copies the source into the volume, as its owner, through helpers
// that carry the token.
func (r *Resource) seed(ctx context.Context, m resourceModel, token string) error {
	seeder, err := base.Ability[engine.VolumeSeeder](r.Client, "seeding a volume")
	if err != nil {
		return err
	}
	pr, pw := io.Pipe()
	go func() { _ = pw.CloseWithError(m.writeTar(pw)) }()
	defer func() { _ = pr.Close() }()
	return seeder.SeedVolume(ctx, m.Name.ValueString(), token, pr)
}

func nameTakenDetail(e *engine.VolumeNameTakenError, on engine.Engine) string {
	whose := "It was not made by this provider"
	if e.Managed {
		whose = "It carries this provider's labels, but not this create's token: another configuration's " +
			"sandbox_volume made it, or a state that lost it did (then `terraform import` it)"
	}
	return fmt.Sprintf("A volume named %q already exists on the engine at %s. %s. The provider never "+
		"adopts a volume it cannot prove it made, since its data is someone else's: choose another name, or "+
		"remove that volume first (%s) if its data can go.", e.Name, on.Endpoint(), whose, on.ByHand().RemoveVolume(e.Name))
}

// refresh reads the volume the state recorded. It reports false, with a
// warning, when the volume is gone or another volume holds its name.
func (r *Resource) refresh(ctx context.Context, m *resourceModel, token string) (bool, diag.Diagnostics) {
	var diags diag.Diagnostics
	name := m.Name.ValueString()
	v, err := r.Client.InspectVolume(ctx, name)
	switch {
	case engine.IsNotFound(err):
		diags.AddWarning("Volume removed outside Terraform", fmt.Sprintf("The volume %q is gone from the "+
			"engine at %s: its data is gone with it. The plan creates it again, empty, and sandboxes that "+
			"mount it get the new, empty volume.", name, r.Client.Endpoint()))
		return false, diags
	case err != nil:
		diags.AddError("Cannot read the volume", fmt.Sprintf("Inspecting the volume %q on the engine at %s "+
			"failed: %s. %s", name, r.Client.Endpoint(), engine.Brief(err), engine.NextStep(err, r.Client.Where())))
		return false, diags
	case !engine.VolumeMadeWith(v, token):
		diags.AddWarning("Volume replaced outside Terraform", fmt.Sprintf("The volume %q on the engine at %s "+
			"is not the one this configuration created (the provider's create token on it differs or is "+
			"missing): the data this configuration's sandboxes wrote is gone. The plan creates the volume "+
			"again, which fails while the other volume holds the name; the provider does not remove or adopt "+
			"a volume it did not make.", name, r.Client.Endpoint()))
		return false, diags
	}
	m.observe(v)
	return true, diags
}

// remove removes the volume the state recorded, and only that one, and
// what a failed seeding of it left.
func (r *Resource) remove(ctx context.Context, m resourceModel, t tokens) diag.Diagnostics {
	var diags diag.Diagnostics
	name := m.Name.ValueString()
	if t.seed != "" {
		seeder, err := base.Ability[engine.VolumeSeeder](r.Client, "seeding a volume")
		if err == nil {
			err = seeder.CleanUpSeed(ctx, t.seed)
		}
		if err != nil {
			diags.AddError("Cannot remove what a seeding left", fmt.Sprintf("Removing the helper container "+
				"and image that the failed seeding of the volume %q left on the engine at %s failed: %s. Run "+
				"the destroy again.", name, r.Client.Endpoint(), engine.Brief(err)))
			return diags
		}
	}
	err := r.Client.RemoveVolume(ctx, name, t.create)
	var inUse *engine.VolumeInUseError
	switch {
	case errors.As(err, &inUse):
		diags.AddError("Volume in use", fmt.Sprintf("The volume %q cannot be removed from the engine at %s: "+
			"it is mounted by %s (running or stopped). Remove those containers first, or set "+
			"keep_on_destroy = true to leave the volume and its data.", name, r.Client.Endpoint(),
			strings.Join(inUse.Containers, ", ")))
	case err != nil:
		diags.AddError("Cannot remove the volume", fmt.Sprintf("Removing the volume %q from the engine at %s "+
			"failed: %s. %s", name, r.Client.Endpoint(), engine.Brief(err), engine.NextStep(err, r.Client.Where())))
	}
	return diags
}

// importVolume reads a volume for import: only one that the provider's
// sandbox_volume made.
func (r *Resource) importVolume(ctx context.Context, name string) (resourceModel, tokens, diag.Diagnostics) {
	var diags diag.Diagnostics
	m := importedModel(engine.Volume{Name: name})
	v, err := r.Client.InspectVolume(ctx, name)
	switch {
	case engine.IsNotFound(err):
		diags.AddError("No such volume", fmt.Sprintf("The engine at %s has no volume named %q. Import takes "+
			"a volume's name (docker volume ls).", r.Client.Endpoint(), name))
		return m, tokens{}, diags
	case err != nil:
		diags.AddError("Cannot read the volume", fmt.Sprintf("Inspecting the volume %q on the engine at %s "+
			"failed: %s. %s", name, r.Client.Endpoint(), engine.Brief(err), engine.NextStep(err, r.Client.Where())))
		return m, tokens{}, diags
	}
	token, proven := provenVolume(v)
	if !proven {
		diags.AddError("Volume not made by this provider", fmt.Sprintf("The volume %q on the engine at %s "+
			"was not created by a sandbox_volume (it lacks the provider's labels and create token), and "+
			"the provider never adopts a volume it did not make. Create a new sandbox_volume and copy the "+
			"data into it.", name, r.Client.Endpoint()))
		return m, tokens{}, diags
	}
	return importedModel(v), tokens{create: token}, diags
}

// provenVolume reports whether a sandbox_volume made v (its labels, which
// nothing passes on to a volume, and a create token), and gives the token.
func provenVolume(v engine.Volume) (string, bool) {
	token := v.Labels[engine.LabelCreateToken]
	return token, engine.VolumeMadeWith(v, token) && v.Labels[engine.LabelResourceType] == resourceType
}

// importedModel is the state an import of v gives.
func importedModel(v engine.Volume) resourceModel {
	m := resourceModel{Name: types.StringValue(v.Name), Labels: types.MapNull(types.StringType),
		KeepOnDestroy: types.BoolValue(defaultKeepOnDestroy),
		restoreModel:  restoreModel{Snapshot: types.ObjectNull(snapshotTypes)},
		timeoutsModel: timeoutsModel{Timeouts: timeouts.Null()}}
	if v.Labels != nil {
		m.observe(v)
		m.sizeModel.observe(v)
	}
	return m
}
