package containerresource

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
)

// The engine work behind Delete, and the removal of what a cut-off create
// left.

// remove stops the container with its grace period, then force-removes it;
// a sandbox that runs only the keep-alive is force-removed at once. A
// container that is already gone counts as removed. derived is the build
// of the image derived for its files, as recorded (none for a sandbox
// without one).
func (r *Resource) remove(ctx context.Context, m resourceModel, derived engine.Built) diag.Diagnostics {
	var diags diag.Diagnostics
	if token, pending := pendingToken(m.ID); pending {
		if err := r.removeByToken(ctx, token); err != nil {
			diags.Append(r.removeFailed("Cannot remove sandbox", m.ID.ValueString(), err))
		}
		return diags
	}
	id := m.ID.ValueString()
	// A sandbox that runs only the keep-alive has nothing that could shut
	// down gracefully.
	if !m.runsKeepAlive() {
		if err := r.Client.StopContainer(ctx, id, int(m.StopTimeout.ValueInt64())); err != nil {
			diags.AddError("Cannot stop sandbox", fmt.Sprintf("Stopping container %s on %s "+
				"failed: %v. %s", engine.ShortID(id), r.Client.Where(), err, engine.NextStep(err, r.Client.Where())))
			return diags
		}
	}
	if err := r.Client.RemoveContainer(ctx, id); err != nil {
		diags.Append(r.removeFailed("Cannot remove sandbox", id, err))
		return diags
	}
	return r.removeDerivedImage(ctx, m, derived)
}

// removeDerivedImage removes the image derived for the sandbox's files, if
// it has one, once the sandbox is gone, with the intermediate images its
// build made. Only an image the provider's labels prove it derived is
// removed.
func (r *Resource) removeDerivedImage(ctx context.Context, m resourceModel, derived engine.Built) diag.Diagnostics {
	var diags diag.Diagnostics
	if !m.derivesImage() || m.ImageID.ValueString() == "" || r.images == nil { // a cluster derives none
		return diags
	}
	id := m.ImageID.ValueString()
	proven, err := r.provenDerived(ctx, id)
	if proven {
		err = r.images.RemoveBuilt(ctx, engine.Built{ID: id, Intermediates: derived.Intermediates})
	}
	if err != nil && !engine.IsNotFound(err) {
		diags.AddWarning("Image of the sandbox's files left on the engine", fmt.Sprintf(
			"The sandbox is gone, but the image holding its files (%s) could not be removed from the Docker engine "+
				"at %s: %s. Remove it by hand: docker -H %s rmi %s",
			engine.ShortID(id), r.Client.Endpoint(), engine.Brief(err), r.Client.Endpoint(), id))
	}
	return diags
}

// removeByToken removes every container, and image, that carries the
// create token.
func (r *Resource) removeByToken(ctx context.Context, token string) error {
	ids, err := r.Client.ContainersCreatedWith(ctx, token)
	if err != nil {
		return err
	}
	for _, id := range ids {
		if err := r.Client.RemoveContainer(ctx, id); err != nil {
			return err
		}
	}
	// An image derived for the files of a read-only sandbox (files.go).
	if r.images == nil {
		return nil // a cluster: no image is derived there
	}
	images, err := r.images.ImagesLabelled(ctx, map[string]string{labelDerivedToken: token})
	if err != nil {
		return err
	}
	for _, id := range images {
		if err := r.removeIfDerived(ctx, id); err != nil {
			return err
		}
	}
	return nil
}

// removeIfDerived removes an image that the provider derived for a
// sandbox's files, and no other: a `docker commit` of the sandbox, or an
// image built FROM the derived one, carries the same labels, and stays
// (engine.BuiltByProvider). One that is gone, or that a container still
// uses, is left.
func (r *Resource) removeIfDerived(ctx context.Context, id string) error {
	derived, err := r.provenDerived(ctx, id)
	if !derived {
		return err
	}
	if err := r.images.RemoveImage(ctx, id); err != nil && !engine.IsNotFound(err) && !engine.IsConflict(err) {
		return err
	}
	return nil
}

// provenDerived reports whether the image id is one the provider derived
// for a sandbox's files: its labels say so, and only BuiltByProvider proves
// it. An image that is gone is not.
func (r *Resource) provenDerived(ctx context.Context, id string) (bool, error) {
	img, err := r.images.InspectImage(ctx, id)
	switch {
	case engine.IsNotFound(err):
		return false, nil
	case err != nil:
		return false, err
	case img.Labels[labelDerivedFiles] != "true" || !engine.ManagedBy(img.Labels):
		return false, nil
	}
	return r.images.BuiltByProvider(ctx, img)
}
