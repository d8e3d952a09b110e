package snapshotresource

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/archive"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/framework/timeouts"
)

// volumeDiagnostics describes a volume that could not be read.
func volumeDiagnostics(volume string, on engine.Engine, err error) diag.Diagnostics {
	var diags diag.Diagnostics
	if engine.IsNotFound(err) {
		diags.AddAttributeError(path.Root("volume"), "No such volume", fmt.Sprintf("%s has no volume named "+
			"%q to take a snapshot of. Set volume to a sandbox_volume's name, such as "+
			"sandbox_volume.workspace.name.", on.Where(), volume))
		return diags
	}
	diags.AddAttributeError(path.Root("volume"), "Cannot read the volume", fmt.Sprintf("Inspecting the volume "+
		"%q on %s failed: %s. %s", volume, on.Where(), engine.Brief(err), engine.NextStep(err, on.Where())))
	return diags
}

// takeDiagnostics describes a snapshot that failed: nothing was recorded,
// and no archive left.
func takeDiagnostics(ctx context.Context, volume string, on engine.Engine, m resourceModel, unheld []string,
	err error) diag.Diagnostics {
	var diags diag.Diagnostics
	deadline := timeouts.ExpiredIn(ctx) // nil unless the snapshot's own timeout ended ctx
	var changed *engine.VolumeChangedError
	const none = "No archive was left and nothing was recorded."
	var limit *archive.LimitError
	var unsafe *archive.UnsafeError
	var helper *engine.HelperImageError
	var heldNot *heldNotError
	switch {
	case errors.As(err, &heldNot):
		diags.AddAttributeError(path.Root("volume"), "Sandbox not held still for the snapshot", fmt.Sprintf("The "+
			"volume %q was read while sandboxes that write to it ran: %s can pause them, but their pause failed: "+
			"%s. The archive would not be of one moment. %s Stop those sandboxes (running = false) for the "+
			"snapshot, or apply again.", volume, on.Where(), engine.Printable(heldNot), none))
	case errors.As(err, &helper):
		diags.AddError("Helper image needed on this cluster", fmt.Sprintf("The volume %q on %s was not read. %s. "+
			"Set kubernetes.helper_image as it says, then apply again. %s", volume, on.Where(), helper.Detail, none))
	case errors.As(err, &limit) && limit.What == "bytes":
		diags.AddAttributeError(path.Root("max_size_mb"), "Volume too large for the snapshot", fmt.Sprintf(
			"The files of the volume %q hold more than max_size_mb (%d MiB). %s Raise max_size_mb, or remove "+
				"what the volume need not keep.", volume, m.MaxSizeMB.ValueInt64(), none))
	case errors.As(err, &limit):
		diags.AddAttributeError(path.Root("max_files"), "Volume holds too many files for the snapshot",
			fmt.Sprintf("The volume %q holds more than max_files (%d) entries. %s Raise max_files, or remove "+
				"what the volume need not keep.", volume, m.MaxFiles.ValueInt64(), none))
	case errors.As(err, &unsafe):
		diags.AddAttributeError(path.Root("volume"), "Volume content refused", fmt.Sprintf("The volume %q "+
			"holds what no snapshot may: %s. A sandbox wrote it, and the provider never archives what could "+
			"write outside a volume when restored. %s Remove it from the volume (from a sandbox that mounts "+
			"it) and apply again.", volume, unsafe.Error(), none))
	case errors.As(err, &changed):
		who := "A sandbox that mounts it writable wrote to it meanwhile"
		if len(unheld) > 0 {
			who = fmt.Sprintf("The sandboxes %s, which could not be held still, wrote to it meanwhile",
				strings.Join(unheld, ", "))
		}
		diags.AddAttributeError(path.Root("volume"), "Volume changed during the snapshot", fmt.Sprintf("The "+
			"volume %q changed while it was read (%s). %s. %s Stop those sandboxes (running = false) for the "+
			"snapshot, or apply again when they are idle.", volume, engine.Printable(changed), who, none))
	case deadline != nil:
		diags.AddError("Snapshot timed out", fmt.Sprintf("Taking the snapshot of the volume %q on %s took "+
			"longer than %s (%s). %s Raise %s.", volume, on.Where(), deadline.Attr, timeouts.Short(deadline.After),
			none, deadline.Attr))
	case errors.Is(err, context.Canceled) && ctx.Err() != nil:
		diags.AddError("Snapshot interrupted", fmt.Sprintf("Taking the snapshot of the volume %q on %s was "+
			"interrupted. %s Apply again to take it.", volume, on.Where(), none))
	default:
		diags.AddAttributeError(path.Root("volume"), "Cannot take the snapshot", fmt.Sprintf("Taking the "+
			"snapshot of the volume %q on %s into %q failed: %s. %s %s", volume, on.Where(),
			m.Directory.ValueString(), engine.Brief(err), none, engine.NextStep(err, on.Where())))
	}
	return diags
}
