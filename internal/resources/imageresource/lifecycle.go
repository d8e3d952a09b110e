package imageresource

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
)

// The engine work behind Create, Delete and ModifyPlan.

// labelContextDigest records on an image the context digest it was built
// from.
const labelContextDigest = engine.LabelPrefix + "context-digest"

// digest walks the context and digests it with the build's inputs.
func (m resourceModel) digest() (string, error) {
	files, err := walkContext(m.Context.ValueString(), m.Dockerfile.ValueString())
	if err != nil {
		return "", err
	}
	return digest(m.Context.ValueString(), files, m.inputs())
}

// build checks that the context is what was planned and that the name is
// free for this provider to tag, then builds, streaming the context as a
// tar and the output to the log. It returns the build, whose intermediate
// images the resource removes with its image.
func (r *Resource) build(ctx context.Context, m *resourceModel) (engine.Built, diag.Diagnostics) {
	var built engine.Built
	diags := r.needsImages()
	if diags.HasError() {
		return built, diags
	}
	dir, name := m.Context.ValueString(), tagged(m.Name.ValueString())
	files, err := walkContext(dir, m.Dockerfile.ValueString())
	var sum string
	if err == nil {
		sum, err = digest(dir, files, m.inputs())
	}
	if err != nil {
		diags.AddAttributeError(path.Root("context"), "Cannot read the build context", err.Error()+
			". Make the context directory and its files readable by the user running Terraform.")
		return built, diags
	}
	if want := m.ContextDigest.ValueString(); want != "" && sum != want {
		diags.AddAttributeError(path.Root("context"), "Build context changed since the plan", fmt.Sprintf(
			"The files in %s no longer have the digest the plan recorded (%s, now %s): apply builds what was "+
				"planned or nothing. Plan and apply again.", dir, want, sum))
		return built, diags
	}
	owner := m.owner()
	if d := r.checkNameFree(ctx, name, owner); d != nil {
		return built, append(diags, d)
	}
	// What an earlier build of this configuration, cut off, left behind.
	_ = r.images.RemoveLeftBuilds(ctx, labelOwner, owner) // best effort: the build goes on

	labels := m.imageLabels(sum)
	tarball := func() io.ReadCloser {
		tarball, w := io.Pipe()
		go func() { _ = w.CloseWithError(writeTar(w, dir, files)) }()
		return tarball
	}
	built, err = r.images.BuildImage(ctx, engine.BuildSpec{
		Context: tarball, Dockerfile: m.Dockerfile.ValueString(), Tag: name,
		BuildArgs: m.inputs().args, Target: m.Target.ValueString(), Labels: labels,
	}, func(line string) { tflog.Info(ctx, line, map[string]any{"image": name}) })
	if err != nil {
		var buildErr *engine.BuildError
		summary := "Image build failed"
		if !errors.As(err, &buildErr) {
			summary = "Cannot build image"
		}
		next := engine.NextStep(err, r.Client.Where())
		if engine.CredentialsRefused(err, "") {
			next = "A registry refused to give a base image without credentials, or refused the ones sent: add a " +
				"registry_auth entry for it to the provider block, or correct its username and password."
		}
		diags.AddError(summary, fmt.Sprintf("Building %s from %s on the Docker engine at %s failed: %v. %s",
			name, dir, r.Client.Endpoint(), err, next))
		return built, diags
	}
	m.ID, m.ImageID, m.ContextDigest = types.StringValue(built.ID), types.StringValue(built.ID), types.StringValue(sum)
	m.Tagged = types.BoolValue(true)
	return built, diags
}

// imageLabels are the labels a build of m whose context digest is sum
// puts on the image: the configured ones, and the provider's (its
// ownership, the digest, the owner and the build record).
func (m resourceModel) imageLabels(sum string) map[string]string {
	labels := m.inputs().labels
	maps.Copy(labels, engine.OwnershipLabels(resourceType))
	labels[labelContextDigest] = sum
	labels[labelOwner] = m.owner()
	labels[labelBuild] = m.record()
	return labels
}

// checkNameFree refuses a name that tags an image this resource did not
// build: the build would move that tag away from it (owner.go).
func (r *Resource) checkNameFree(ctx context.Context, name, owner string) diag.Diagnostic {
	holder, img, err := r.nameHolder(ctx, name, owner)
	switch {
	case err != nil:
		return diag.NewErrorDiagnostic("Cannot build image", fmt.Sprintf(
			"Inspecting %s on the Docker engine at %s failed: %s. %s", name, r.Client.Endpoint(), engine.Brief(err), engine.NextStep(err, r.Client.Where())))
	case holder == holdsNothing || holder == ownImage:
		return nil
	case holder == othersImage:
		return r.othersNameDiagnostic(name, img)
	}
	inherited := ""
	if engine.ManagedBy(img.Labels) {
		inherited = " (it carries this provider's labels, inherited from an image the provider built: it was " +
			"built FROM one, or committed from a sandbox)"
	}
	return diag.NewAttributeErrorDiagnostic(path.Root("name"), "Name tags another image", fmt.Sprintf(
		"%s already names image %s on the Docker engine at %s, which this provider did not build%s; building "+
			"would move the tag away from it. Choose another name, or remove the tag by hand "+
			"(docker -H %s rmi %s) if that image is no longer wanted.",
		name, engine.ShortID(img.ID), r.Client.Endpoint(), inherited, r.Client.Endpoint(), name))
}

// remove removes the image this resource built (built: its ID and the
// intermediate images recorded for it), and those intermediates, never
// its other parents. When other tags name it too, only this resource's
// tag goes. An image a container still uses
// stays, and the error names the containers; an image this provider's
// labels do not prove it built stays too.
func (r *Resource) remove(ctx context.Context, m resourceModel, built engine.Built) diag.Diagnostics {
	diags := r.needsImages()
	if diags.HasError() {
		return diags
	}
	id, name := m.ImageID.ValueString(), tagged(m.Name.ValueString())
	img, err := r.images.InspectImage(ctx, id)
	if engine.IsNotFound(err) {
		return diags
	}
	if err != nil {
		diags.AddError("Cannot remove image", fmt.Sprintf("Inspecting %s (%s) on the Docker engine at %s failed: %s. %s",
			name, engine.ShortID(id), r.Client.Endpoint(), engine.Brief(err), engine.NextStep(err, r.Client.Where())))
		return diags
	}
	if !engine.ManagedBy(img.Labels) {
		diags.AddWarning("Image left on the engine", fmt.Sprintf(
			"Image %s on the Docker engine at %s does not carry this provider's labels, so it was left there. "+
				"Remove it by hand (docker rmi) if it is not needed.",
			engine.ShortID(id), r.Client.Endpoint()))
		return diags
	}
	ownTag := false
	var others []string
	for _, t := range img.RepoTags {
		if sameTag(t, name) {
			ownTag = true
		} else {
			others = append(others, t)
		}
	}
	if len(others) > 0 {
		// Other tags keep the image: only this resource's tag goes.
		if ownTag {
			err = r.images.RemoveImage(ctx, name)
		}
	} else {
		users, listErr := r.images.ContainersUsingImage(ctx, id)
		if listErr == nil && len(users) > 0 {
			return append(diags, r.inUse(name, id, users))
		}
		err = r.images.RemoveBuilt(ctx, built)
	}
	switch {
	case err == nil || engine.IsNotFound(err):
	case engine.IsConflict(err):
		diags.Append(r.inUse(name, id, nil))
	default:
		diags.AddError("Cannot remove image", fmt.Sprintf("Removing %s (%s) from the Docker engine at %s failed: %s. %s",
			name, engine.ShortID(id), r.Client.Endpoint(), engine.Brief(err), engine.NextStep(err, r.Client.Where())))
	}
	return diags
}

// inUse says that containers (users, when known) still use the image.
func (r *Resource) inUse(name, id string, users []string) diag.Diagnostic {
	who := "a container, or is the parent of another image (built FROM it, or committed from a container of it)"
	if len(users) > 0 {
		who = "the containers " + strings.Join(users, ", ")
	}
	return diag.NewErrorDiagnostic("Image in use", fmt.Sprintf(
		"Image %s (%s) on the Docker engine at %s is used by %s. Destroy or replace them first (a "+
			"sandbox_container whose image is this image's image_id is replaced before it), or set "+
			"keep_on_destroy = true to leave the image.", name, engine.ShortID(id), r.Client.Endpoint(), who))
}

// sameTag reports whether two tags name the same thing, however the
// engine writes them.
func sameTag(a, b string) bool {
	return engine.FamiliarTag(a) == engine.FamiliarTag(b)
}

// refresh checks that the image is still on the engine and whether its
// name still names it, and reports whether the image exists.
func (r *Resource) refresh(ctx context.Context, m *resourceModel) (bool, diag.Diagnostics) {
	diags := r.needsImages()
	if diags.HasError() {
		return false, diags
	}
	id, name := m.ImageID.ValueString(), tagged(m.Name.ValueString())
	// One call when the name still names the image, as it mostly does.
	current, err := r.images.TagImageID(ctx, name)
	if err != nil {
		diags.AddError("Cannot read image", fmt.Sprintf("Inspecting %s on the Docker engine at %s failed: %s. %s",
			name, r.Client.Endpoint(), engine.Brief(err), engine.NextStep(err, r.Client.Where())))
		return false, diags
	}
	m.Tagged = types.BoolValue(current == id)
	if current == id {
		return true, diags
	}
	if _, err := r.images.InspectImage(ctx, id); engine.IsNotFound(err) {
		return false, diags
	} else if err != nil {
		diags.AddError("Cannot read image", fmt.Sprintf("Inspecting image %s (%s) on the Docker engine at %s "+
			"failed: %s. %s", name, engine.ShortID(id), r.Client.Endpoint(), engine.Brief(err), engine.NextStep(err, r.Client.Where())))
		return false, diags
	}
	now := "no longer names any image"
	if current != "" {
		now = "now names image " + engine.ShortID(current)
	}
	diags.AddWarning("Image tag moved", fmt.Sprintf(
		"%s was built as image %s but %s on the Docker engine at %s. Apply puts the tag back on the image "+
			"this resource built.", name, engine.ShortID(id), now, r.Client.Endpoint()))
	return true, diags
}

// retag makes the image's name name it again, unless another
// sandbox_image's image holds the name now (owner.go).
func (r *Resource) retag(ctx context.Context, m resourceModel) diag.Diagnostics {
	diags := r.needsImages()
	if diags.HasError() {
		return diags
	}
	id, name := m.ImageID.ValueString(), tagged(m.Name.ValueString())
	if holder, img, err := r.nameHolder(ctx, name, m.owner()); err == nil && holder == othersImage {
		return append(diags, r.othersNameDiagnostic(name, img))
	}
	if err := r.images.TagImage(ctx, id, name); err != nil {
		diags.AddError("Cannot tag image", fmt.Sprintf("Tagging image %s as %s on the Docker engine at %s failed: %s. %s",
			engine.ShortID(id), name, r.Client.Endpoint(), engine.Brief(err), engine.NextStep(err, r.Client.Where())))
	}
	return diags
}

// provenImage inspects ref and says whether a sandbox_image of this
// provider built it (BuiltByProvider, and this resource type's label):
// labels an image inherited prove nothing.
func (r *Resource) provenImage(ctx context.Context, ref string) (engine.Image, bool, error) {
	img, err := r.images.InspectImage(ctx, ref)
	if err != nil {
		return img, false, err
	}
	if img.Labels[engine.LabelResourceType] != resourceType {
		return img, false, nil
	}
	built, err := r.images.BuiltByProvider(ctx, img)
	return img, built, err
}

// importImage is the state an import of ref (an image ID or name) gives:
// only an image a sandbox_image built, and kept its build record on.
func (r *Resource) importImage(ctx context.Context, ref string) (resourceModel, diag.Diagnostics) {
	diags := r.needsImages()
	if diags.HasError() {
		return resourceModel{}, diags
	}
	img, proven, err := r.provenImage(ctx, ref)
	switch {
	case engine.IsNotFound(err):
		diags.AddError("Cannot import image", fmt.Sprintf("No image %s is on the Docker engine at %s. Give "+
			"the ID of an image a sandbox_image built (docker image ls --no-trunc), or its name.", ref, r.Client.Endpoint()))
		return resourceModel{}, diags
	case err != nil:
		diags.AddError("Cannot import image", fmt.Sprintf("Inspecting %s on the Docker engine at %s failed: %s. %s",
			ref, r.Client.Endpoint(), engine.Brief(err), engine.NextStep(err, r.Client.Where())))
		return resourceModel{}, diags
	case !proven:
		diags.AddError("Cannot import image", fmt.Sprintf("Image %s (%s) on the Docker engine at %s was not "+
			"built by a sandbox_image of this provider: it was built by hand or by another tool, or it inherited "+
			"the provider's labels (built FROM such an image, or committed from a container). The provider "+
			"adopts only images it can prove it built. Build it with a sandbox_image instead, or refer to it "+
			"by name from sandbox_container.image without importing it.", ref, engine.ShortID(img.ID), r.Client.Endpoint()))
		return resourceModel{}, diags
	}
	m, err := importedModel(img)
	if err != nil {
		diags.AddError("Cannot import image", fmt.Sprintf("Image %s (%s) on the Docker engine at %s cannot be "+
			"imported: %v. Apply a sandbox_image configuration to build it again, and remove this image "+
			"(docker -H %s rmi %s) if nothing uses it.", ref, engine.ShortID(img.ID), r.Client.Endpoint(), err,
			r.Client.Endpoint(), engine.ShortID(img.ID)))
		return resourceModel{}, diags
	}
	return m, diags
}
