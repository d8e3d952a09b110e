package imageresource

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path/filepath"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
)

// Who owns an image name. Terraform tells a provider neither a resource's
// address nor its state's identity, and a replacement's new object is
// planned again at apply from its configuration alone, so a sandbox_image's
// owner is what its configuration says: its name, and its build context
// as an absolute path with its Dockerfile. Each image it builds carries
// that owner (labelOwner), so a sandbox_image moves its name only off an
// image built from the same configuration (its own, or the one it
// replaces); one that another configuration built, one built by hand, and
// one that inherited the provider's labels keep it. Two workspaces of one
// configuration are one owner.

// labelOwner carries, on an image a sandbox_image built, its owner.
const labelOwner = engine.LabelPrefix + "image-owner"

// owner is the resource's owner: a digest of its name, its context's
// absolute path and its Dockerfile.
func (m resourceModel) owner() string {
	dir := m.Context.ValueString()
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	sum := sha256.Sum256([]byte(tagged(m.Name.ValueString()) + "\x00" + dir + "\x00" + m.Dockerfile.ValueString()))
	return hex.EncodeToString(sum[:16])
}

// holder is what an image that holds a name is to a sandbox_image.
type holder int

const (
	holdsNothing holder = iota
	ownImage            // built from this configuration
	othersImage         // built by another configuration's sandbox_image
	foreignImage        // not built by the provider (by hand, or inheriting its labels)
)

// nameHolder says whose image the name tags now, and which image it is.
func (r *Resource) nameHolder(ctx context.Context, name, owner string) (holder, engine.Image, error) {
	img, err := r.images.InspectImage(ctx, name)
	if engine.IsNotFound(err) {
		return holdsNothing, img, nil
	}
	if err != nil {
		return holdsNothing, img, err
	}
	built, err := r.images.BuiltByProvider(ctx, img)
	switch {
	case err != nil:
		return holdsNothing, img, err
	case !built:
		return foreignImage, img, nil
	case img.Labels[labelOwner] == owner:
		return ownImage, img, nil
	}
	return othersImage, img, nil
}

// othersNameDiagnostic says that another sandbox_image's image holds name.
func (r *Resource) othersNameDiagnostic(name string, img engine.Image) diag.Diagnostic {
	return diag.NewAttributeErrorDiagnostic(path.Root("name"), "Name owned by another sandbox_image", fmt.Sprintf(
		"%s names image %s on the Docker engine at %s, which a sandbox_image of another configuration "+
			"built (another build context). Two sandbox_image resources cannot share one name: each apply "+
			"would move the tag from the other's image. Give this one another name, or destroy the other. If "+
			"none manages it any more (one destroyed with keep_on_destroy = true), remove the tag by hand: "+
			"docker -H %s rmi %s",
		name, engine.ShortID(img.ID), r.Client.Endpoint(), r.Client.Endpoint(), name))
}
