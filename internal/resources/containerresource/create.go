package containerresource

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
	"github.com/tfsandbox/terraform-provider-sandbox/internal/framework/planned"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/framework/values"
)

// The engine work behind Create. Whatever a failed create leaves is removed
// by the create's token, or recorded as pending (pending.go).

// create creates the container with its network mode, privileges and
// limits (pulling a missing image once), writes its files, starts it and
// checks what the engine then shows. It returns what the engine added on
// its own (defaults.go); derived is the image built for the files of a
// read-only sandbox, if one was.
func (r *Resource) create(ctx context.Context, m *resourceModel, secretEnv map[string]string, seen *mainProcess,
	derived *engine.Built) (engine.Defaults, diag.Diagnostics) {
	var added engine.Defaults
	window := openStartWindow()
	defer window.close()
	spec, diags := m.spec(ctx, secretEnv)
	if diags.Append(m.stampCreated(&spec, time.Now())...); diags.HasError() {
		return added, diags
	}
	files, fileDiags := m.engineFiles()
	if diags.Append(fileDiags...); diags.HasError() {
		return added, diags
	}
	token := engine.NewCreateToken()
	spec.Labels[engine.LabelCreateToken] = token
	if r.mountsFiles() {
		// The backend mounts them as it makes the sandbox: nothing to
		// write into it, nor to derive for a read-only root.
		spec.Files, files = files, nil
	}
	paths := pathsOf(files)
	if spec.ReadOnly && len(files) > 0 {
		// A read-only root cannot be written into: the files go into an
		// image derived from the configured one (files.go).
		if diags.Append(r.deriveFilesImage(ctx, &spec, files, token, derived)...); diags.HasError() {
			return added, append(diags, r.undoCreate(ctx, m, token, *derived)...)
		}
		files = nil
	}
	id, mayHaveMade, createDiags := r.createContainer(ctx, spec)
	if !createDiags.HasError() {
		// Made: its expiry is guarded before anything else is done.
		createDiags.Append(r.guardExpiry(ctx, id, *m, spec.ExpiresAt)...)
	}
	if diags.Append(createDiags...); diags.HasError() {
		if !mayHaveMade {
			return added, diags
		}
		return added, append(diags, r.undoCreate(ctx, m, token, *derived)...)
	}
	if diags.Append(r.checkFilesSeen(ctx, id, m, paths)...); diags.HasError() {
		return added, append(diags, r.undoCreate(ctx, m, token, *derived)...)
	}
	untilSeen, started := r.startAsPlanned(ctx, id, files, *m, writableVolumes(spec), window, m.createSecrets(ctx, secretEnv), seen)
	defer untilSeen()
	if diags.Append(started...); diags.HasError() {
		return added, append(diags, r.undoCreate(ctx, m, token, *derived)...)
	}
	c, observeDiags := r.observe(ctx, id, *m)
	// Then what the engine was asked at create and may have ignored; an
	// update checks the limits it changes itself (applyLimits).
	for _, check := range []func(engine.Sandbox) diag.Diagnostics{m.checkGranted, m.checkApplied} {
		if observeDiags.HasError() {
			break
		}
		observeDiags.Append(check(c)...)
	}
	if diags.Append(observeDiags...); diags.HasError() {
		return added, append(diags, r.undoCreate(ctx, m, token, *derived)...)
	}
	if errors.Is(ctx.Err(), context.Canceled) {
		diags.Append(r.interruptedDiagnostic(id))
		return added, append(diags, r.undoCreate(ctx, m, token, *derived)...)
	}
	if diags.Append(r.sleepMade(ctx, id, *m)...); diags.HasError() {
		return added, append(diags, r.undoCreate(ctx, m, token, *derived)...)
	}
	return m.recordMade(ctx, c, spec), diags
}

// recordMade records the sandbox made from spec as the engine shows it,
// and returns what the engine added on its own.
func (m *resourceModel) recordMade(ctx context.Context, c engine.Sandbox, spec engine.ContainerSpec) engine.Defaults {
	var added engine.Defaults
	if c.HostConfig != nil {
		added = engine.AddedDefaults(spec, c.HostConfig)
	}
	want := m.wants()
	m.setObserved(ctx, c, added)
	m.setState(want)
	m.Expired = types.BoolValue(false)
	return added
}

// sleepMade puts a sandbox made on a backend whose sandboxes sleep (a
// cluster's pod, which runs once made) to sleep when it is to be stopped,
// once the checks of what the backend made have seen it run.
func (r *Resource) sleepMade(ctx context.Context, id string, m resourceModel) diag.Diagnostics {
	if r.sleeper == nil || m.wants() != stateStopped {
		return nil
	}
	if err := r.sleeper.SleepContainer(ctx, id, 0); err != nil {
		return diag.Diagnostics{diag.NewAttributeErrorDiagnostic(path.Root("state"), "Cannot put the sandbox to sleep",
			fmt.Sprintf("Sandbox %s was made on %s, but putting it to sleep (state = \"stopped\") failed: %v. %s",
				engine.ShortID(id), r.Client.Where(), err, engine.NextStep(err, r.Client.Where())))}
	}
	return nil
}

// interruptedDiagnostic says that Terraform was interrupted or is gone while
// the engine finished creating container id: a terraform that was killed
// can no longer record the sandbox, so it is removed rather than left
// outside every state.
func (r *Resource) interruptedDiagnostic(id string) diag.Diagnostic {
	return diag.NewErrorDiagnostic("Sandbox creation interrupted", fmt.Sprintf(
		"Terraform was interrupted while container %s was being created on %s, so "+
			"the container was removed rather than left unrecorded. The next apply creates the sandbox again.",
		engine.ShortID(id), r.Client.Where()))
}

// pathsOf is the files' paths in the sandbox.
func pathsOf(files []engine.File) []string {
	paths := make([]string, 0, len(files))
	for _, f := range files {
		paths = append(paths, f.Path)
	}
	return paths
}

// mountsFiles reports whether the backend mounts a sandbox's files as it
// makes it: it does not copy them into a sandbox (engine.FileCopier). So
// files reach writeAndStart and checkFilesSeen only on a backend that
// copies them.
func (r *Resource) mountsFiles() bool { return r.copier == nil }

// deriveFilesImage builds the image derived from spec's for the files of a
// read-only sandbox, points spec at it, and records its build in derived.
// It first removes the images derived for earlier sandboxes of the same
// name that no container uses any more: a sandbox removed behind
// Terraform's back leaves its image, which the plan cannot remove (it
// changes nothing). An image still in use stays (the engine refuses its
// removal); so do the intermediates of those images, whose record went
// with their sandbox's state.
func (r *Resource) deriveFilesImage(ctx context.Context, spec *engine.ContainerSpec, files []engine.File,
	token string, derived *engine.Built) diag.Diagnostics {
	images, err := base.Ability[engine.Images](r.Client, "building an image")
	if err == nil {
		if stale, err := images.ImagesLabelled(ctx, map[string]string{labelDerivedFor: spec.Name}); err == nil {
			for _, id := range stale {
				_ = r.removeIfDerived(ctx, id) // best effort: the create goes on
			}
		}
		*derived, err = images.DeriveImage(ctx, spec.Image, files, derivedImageLabels(spec.Name, token))
	}
	if err != nil {
		return diag.Diagnostics{diag.NewAttributeErrorDiagnostic(path.Root("files"),
			"Cannot build the files into the sandbox's image", fmt.Sprintf(
				"The sandbox's root filesystem is read-only, so its files are built into an image derived "+
					"from %s, and building it on %s failed: %v. %s", spec.Image, r.Client.Where(), err, engine.NextStep(err, r.Client.Where())))}
	}
	spec.Image = derived.ID
	return nil
}

// createContainer asks the engine for the container, pulling a missing
// image once. On a failure it reports whether the engine may have made
// something all the same (a create cut off, or refused half-way).
func (r *Resource) createContainer(ctx context.Context, spec engine.ContainerSpec) (string, bool, diag.Diagnostics) {
	id, err := r.Client.CreateContainer(ctx, spec)
	if engine.IsNotFound(err) {
		// The image is missing (the only thing a create can miss here):
		// pull it once, then create again. Asking first would cost every
		// sandbox a call. A backend without images pulls its own.
		if r.images == nil {
			return "", false, diag.Diagnostics{r.imageDiagnostic(spec.Image, err)}
		}
		if _, err := r.images.EnsureImage(ctx, spec.Image); err != nil {
			return "", false, diag.Diagnostics{r.imageDiagnostic(spec.Image, err)}
		}
		id, err = r.Client.CreateContainer(ctx, spec)
	}
	switch {
	case err == nil:
		return id, true, nil
	case engine.IsConflict(err) && spec.Name != "":
		// The engine made nothing: the name is someone else's.
		return "", false, diag.Diagnostics{r.nameConflictDiagnostic(r.nameHolder(ctx, spec.Name), spec.Name, err)}
	}
	return "", true, diag.Diagnostics{diag.NewErrorDiagnostic("Cannot create sandbox", fmt.Sprintf(
		"Creating the container on %s failed: %s. %s", r.Client.Where(), engine.Brief(err), engine.NextStep(err, r.Client.Where())))}
}

// startAsPlanned writes the files into the created container, starts it
// unless it is to stay stopped, checks that its command stays up, and
// pauses it when it is to be paused. The start stays under way, for the
// snapshots of this apply, until untilSeen is called (awaitSnapshots).
func (r *Resource) startAsPlanned(ctx context.Context, id string, files []engine.File, m resourceModel, volumes []string,
	w startWindow, secrets values.Secrets, seen *mainProcess) (untilSeen func(), diags diag.Diagnostics) {
	want := m.wants()
	// A cluster's pod starts once made, asleep or not (sleepMade).
	running := want != stateStopped || r.sleeper != nil
	untilSeen = func() {}
	if running {
		var err error
		if untilSeen, err = r.awaitSnapshots(ctx, volumes, "Raise timeouts.create"); err != nil {
			return func() {}, diag.Diagnostics{diag.NewErrorDiagnostic("Cannot start sandbox", err.Error())}
		}
	}
	if diags.Append(r.writeAndStart(ctx, id, files, running)...); diags.HasError() || want == stateStopped {
		return untilSeen, diags
	}
	if !m.runsKeepAlive() {
		var stayDiags diag.Diagnostics
		*seen, stayDiags = r.checkStaysUp(ctx, id, w, secrets, false)
		if diags.Append(stayDiags...); diags.HasError() {
			return untilSeen, diags
		}
	}
	if want == statePaused {
		diags.Append(r.pause(ctx, id)...)
	}
	return untilSeen, diags
}

// writeAndStart writes the files into the created container and starts it
// when it should run.
func (r *Resource) writeAndStart(ctx context.Context, id string, files []engine.File, running bool) diag.Diagnostics {
	if len(files) > 0 {
		if err := r.copier.CopyFiles(ctx, id, files); err != nil {
			return diag.Diagnostics{diag.NewAttributeErrorDiagnostic(path.Root("files"), "Cannot write files into sandbox",
				fmt.Sprintf("Container %s was created on %s, but writing its files failed: %v. %s",
					engine.ShortID(id), r.Client.Where(), err, engine.NextStep(err, r.Client.Where())))}
		}
	}
	if !running {
		return nil
	}
	if err := r.Client.StartContainer(ctx, id); err != nil {
		return diag.Diagnostics{diag.NewErrorDiagnostic("Cannot start sandbox", fmt.Sprintf(
			"Container %s was created on %s, but the engine could not start it: %s. %s",
			engine.ShortID(id), r.Client.Where(), engine.Brief(err), engine.NextStep(err, r.Client.Where())))}
	}
	return nil
}

// writableVolumes are the named volumes the sandbox mounts writable.
func writableVolumes(spec engine.ContainerSpec) []string {
	var v []string
	for _, m := range spec.Mounts {
		if m.Volume != "" && !m.ReadOnly {
			v = append(v, m.Volume)
		}
	}
	return v
}

// awaitSnapshots waits, before the sandbox starts, until no snapshot of
// this apply reads a volume it would write to (framework/planned), within
// ctx, and records the start until untilSeen is called: the snapshot is of
// one moment. The create or update calls it once it has seen the sandbox
// running (observe): a snapshot that held the sandbox still sooner would
// make it read as one that did not stay up.
func (r *Resource) awaitSnapshots(ctx context.Context, volumes []string, fix string) (untilSeen func(), err error) {
	untilSeen, err = planned.Starting(ctx, r.Client.Endpoint(), volumes)
	if err != nil {
		return nil, fmt.Errorf("the sandbox waited to start until the snapshots of this apply that read its volumes "+
			"(%s) had ended, and was stopped first: %v. %s, or take the snapshots in another apply",
			strings.Join(volumes, ", "), err, fix)
	}
	return untilSeen, nil
}

// checkFilesSeen refuses files that the image's symlinks lead under a
// mount that would hide them, asking the engine where each lands in the
// created container (files.go). The plan cannot: the engine shows an
// image's files only through a container.
func (r *Resource) checkFilesSeen(ctx context.Context, id string, m *resourceModel, paths []string) diag.Diagnostics {
	if len(paths) == 0 {
		return nil
	}
	where, err := r.copier.WhereFilesGo(ctx, id, paths)
	if err != nil {
		return diag.Diagnostics{diag.NewAttributeErrorDiagnostic(path.Root("files"), "Cannot check files",
			fmt.Sprintf("Asking %s where the files land in container %s failed: %s. %s",
				r.Client.Where(), engine.ShortID(id), engine.Brief(err), engine.NextStep(err, r.Client.Where())))}
	}
	return m.hiddenThroughSymlinks(ctx, m.filesystemModel, where)
}

// undoCreate removes what a failed create with token may have left (and
// the intermediate images of the image derived for its files), within
// its own deadline even when the request was cancelled. When it cannot, it
// sets m's ID to a pending ID, which Create records as a tainted sandbox.
func (r *Resource) undoCreate(ctx context.Context, m *resourceModel, token string, derived engine.Built) diag.Diagnostics {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cleanupTimeout)
	defer cancel()
	err := r.removeByToken(ctx, token)
	if err == nil {
		if r.images != nil {
			// The derived image is gone: its intermediates, which the
			// engine keeps.
			_ = r.images.RemoveBuilt(ctx, engine.Built{Intermediates: derived.Intermediates})
		}
		return nil
	}
	m.ID = types.StringValue(pendingPrefix + token)
	return diag.Diagnostics{undoFailedDiagnostic(r.Client, r.CLI, token, err)}
}

// nameHolder inspects the container that holds a name, to say whose it is.
// It is only inspected, never adopted, stopped or removed.
func (r *Resource) nameHolder(ctx context.Context, name string) *engine.Sandbox {
	c, err := r.Client.InspectContainer(ctx, name)
	if err != nil {
		return nil
	}
	return &c
}
