package containerresource

import (
	"errors"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/framework/cli"
)

// Each diagnostic the resource gives in more than one place is built here,
// naming the container, the engine's endpoint and what to do.

// readFailed says that inspecting a container failed.
func (r *Resource) readFailed(id string, err error) diag.Diagnostic {
	return diag.NewErrorDiagnostic("Cannot read sandbox", fmt.Sprintf(
		"Inspecting container %s on %s failed: %v\n\n"+
			"Check that the engine is running and reachable, then plan again.", engine.ShortID(id), r.Client.Where(), err))
}

// removeFailed says that removing a container failed, and how to remove it
// by hand.
func (r *Resource) removeFailed(summary, id string, err error) diag.Diagnostic {
	return diag.NewErrorDiagnostic(summary, fmt.Sprintf(
		"Removing container %s from %s failed: %v\n\n"+
			"Remove it by hand: %s", engine.ShortID(id), r.Client.Where(), err, r.Client.ByHand().Remove(id)))
}

// imageDiagnostic explains an image that cannot be used.
func (r *Resource) imageDiagnostic(ref string, err error) diag.Diagnostic {
	var missing *engine.ImageMissingError
	if !errors.As(err, &missing) {
		return diag.NewAttributeErrorDiagnostic(path.Root("image"), "Cannot check image", fmt.Sprintf(
			"Looking up the image %q on %s failed: %v. %s", ref, r.Client.Where(), err, engine.NextStep(err, r.Client.Where())))
	}
	if errors.Is(missing.PullErr, engine.ErrImageIDNotPullable) {
		return diag.NewAttributeErrorDiagnostic(path.Root("image"), "Image not on the engine", fmt.Sprintf(
			"The image %s is not on %s, and an image ID cannot be pulled: the image was removed or pruned, or "+
				"was made on another engine. If a sandbox_image built it, apply again: its refresh finds the "+
				"image gone and builds it again. Otherwise set image to a name the engine has or can pull.",
			ref, r.Client.Where()))
	}
	if refused := new(engine.RegistryAuthError); errors.As(missing.PullErr, &refused) {
		return diag.NewAttributeErrorDiagnostic(path.Root("image"), "Registry refused the pull", fmt.Sprintf(
			"The image %q is not present on %s, and pulling it failed: %v. Then apply again.", ref, r.Client.Where(), refused))
	}
	return diag.NewAttributeErrorDiagnostic(path.Root("image"), "Image not available", fmt.Sprintf(
		"The image %q is not present on %s, and pulling it failed:\n\n%v\n\n"+
			"Sandboxes start only from images the engine already has or can pull. Build or load the image "+
			"on that engine, then apply again, for example:\n\n"+
			"  docker build -t %s <build-context>\n"+
			"  docker load --input <image.tar>\n"+
			"  docker pull %s    (where a registry is reachable)",
		ref, r.Client.Where(), missing.PullErr, ref, ref))
}

// nameConflictDiagnostic explains that a name is taken, by holder when it
// could be inspected (nil otherwise).
func (r *Resource) nameConflictDiagnostic(holder *engine.Sandbox, name string, err error) diag.Diagnostic {
	who, id := fmt.Sprintf("another container (%v)", err), name
	if holder != nil {
		who, id = fmt.Sprintf("container %s", engine.ShortID(holder.ID)), holder.ID
		if holder.Config != nil && engine.ManagedBy(holder.Config.Labels) {
			who += ", which this provider created but this resource does not track (left, for example, by " +
				"a terraform process that was killed before it could record it)"
		}
	}
	return diag.NewAttributeErrorDiagnostic(path.Root("name"), "Sandbox name already in use", fmt.Sprintf(
		"The name %q is already used by %s on %s.\n\n"+
			"The provider never adopts, stops or removes a container it did not create for this resource. "+
			"Choose another name, or remove that container:\n\n  %s\n\n"+
			"or bring it under Terraform:\n\n  terraform import <address of this sandbox> %s",
		name, who, r.Client.Where(), r.Client.ByHand().Remove(id), id))
}

// undoFailedDiagnostic says that what a failed create left could not be
// removed, that the next apply will (or, under a CLI that cannot record
// it, that it is not recorded and how to find it), and how to remove it by
// hand.
func undoFailedDiagnostic(client engine.Engine, tf cli.CLI, token string, err error) diag.Diagnostic {
	byHand := client.ByHand().RemoveLabelled(engine.LabelCreateToken, token)
	next := fmt.Sprintf("The sandbox is recorded in the state as tainted, so the next apply removes that container, "+
		"found by its label %s=%s, and creates the sandbox again. To remove it by hand instead:\n\n  %s",
		engine.LabelCreateToken, token, byHand)
	if !tf.SavesFailedCreates() {
		next = fmt.Sprintf("%s. Once the engine answers again, remove that container, found by its label %s=%s:\n\n"+
			"  %s\n\nor adopt it: terraform query finds it (list \"sandbox_container\").", tf.NotSaved("sandbox"),
			engine.LabelCreateToken, token, byHand)
	}
	return diag.NewErrorDiagnostic("Cannot remove what the failed create left", fmt.Sprintf(
		"The create did not finish, and the container %s may have made for it could not "+
			"be looked up or removed: %v\n\n%s", client.Where(), err, next))
}

// notRunningDiagnostic explains a sandbox that exited right after it was
// started.
func notRunningDiagnostic(client engine.Engine, c engine.Sandbox) diag.Diagnostic {
	status, code := "unknown", 0
	if c.State != nil {
		status, code = c.State.Status, c.State.ExitCode
	}
	return diag.NewErrorDiagnostic("Sandbox is not running", fmt.Sprintf(
		"Container %s is %q (exit code %d) right after it was started. A sandbox must keep running: leave "+
			"entrypoint and command unset for the keep-alive, or give a command that does not exit. See its "+
			"output with: %s", engine.ShortID(c.ID), status, code, client.ByHand().Logs(c.ID)))
}
