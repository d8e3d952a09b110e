package volumeresource

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/archive"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/framework/base"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/framework/planned"
)

// Restoring: a new volume filled with exactly a snapshot's content, on any
// backend, whichever took the snapshot.

// restoreModel is the restoring part of a sandbox_volume.
type restoreModel struct {
	Snapshot types.Object `tfsdk:"snapshot"`
}

// snapshotRef is the snapshot a volume is restored from.
type snapshotRef struct {
	File   string
	SHA256 string
}

var (
	snapshotTypes = map[string]attr.Type{"file": types.StringType, "sha256": types.StringType}
	hexDigest     = regexp.MustCompile(`^[0-9a-f]{64}$`)
)

// restoreLimits bound a restored archive's entries, which the restore
// keeps in memory while it checks them, as a snapshot does; its bytes are
// the file's own.
var restoreLimits = archive.Limits{MaxEntries: 1000000}

// limitsOn are restoreLimits with what the backend's unpacker would make
// otherwise than the archive has it: refused before anything is made.
func limitsOn(ctx context.Context, on engine.Engine) (archive.Limits, error) {
	lim := restoreLimits
	if r, ok := on.(engine.RestoreRefuser); ok {
		refusal, err := r.EntryRefusal(ctx)
		if err != nil {
			return lim, fmt.Errorf("asking %s what its unpacking keeps: %w", on.Where(), err)
		}
		lim.Unpacker = refusal
	}
	return lim, nil
}

func restoreAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"snapshot": schema.SingleNestedAttribute{
			MarkdownDescription: "A snapshot to fill the new volume with, such as `{ file = " +
				"sandbox_snapshot.work.file, sha256 = sandbox_snapshot.work.sha256 }`: the volume holds exactly " +
				"the archive's content, with its owners, modes and times, on whichever engine or cluster took " +
				"it. Every entry of the file is checked before anything is created, at plan when the file is " +
				"there (without reading the files' content), and again while it is copied; its SHA-256 is " +
				"checked against `sha256` as it is copied, once: a mismatch is an error and leaves no volume. " +
				"The archive is read as hostile: symbolic links are restored as links and never followed, " +
				"device files and setuid bits never restored. Not with `source`, `owner` or `reseed`. A later " +
				"change restores nothing into the existing volume (the plan warns); replace the volume to " +
				"restore another snapshot (`terraform apply -replace`), which loses what it holds.",
			Optional: true,
			Attributes: map[string]schema.Attribute{
				"file": schema.StringAttribute{
					MarkdownDescription: "The archive, on the machine running Terraform, as `sandbox_snapshot.file`.",
					Required:            true,
					Validators:          []validator.String{stringvalidator.LengthAtLeast(1)},
				},
				"sha256": schema.StringAttribute{
					MarkdownDescription: "The archive's SHA-256 in hex, as `sandbox_snapshot.sha256` (or " +
						"`sha256sum`) gives it.",
					Required: true,
					Validators: []validator.String{stringvalidator.RegexMatches(hexDigest,
						"must be a SHA-256 in lower-case hex, as sandbox_snapshot.sha256 gives it")},
				},
			},
		},
	}
}

// restores reports whether the volume is restored from a snapshot.
func (m restoreModel) restores() bool { return !m.Snapshot.IsNull() }

// snapshot is the snapshot the volume is restored from; known says
// whether the plan knows both its values.
func (m restoreModel) snapshot() (ref snapshotRef, known bool) {
	a := m.Snapshot.Attributes()
	file, _ := a["file"].(types.String)
	sum, _ := a["sha256"].(types.String)
	if m.Snapshot.IsUnknown() || file.IsUnknown() || sum.IsUnknown() {
		return ref, false
	}
	return snapshotRef{File: file.ValueString(), SHA256: sum.ValueString()}, true
}

// validateRestore refuses what a restored volume cannot also have, as far
// as it is known: at validation (where variables are not known yet), and
// again at plan.
func (m resourceModel) validateRestore(diags *diag.Diagnostics) {
	if m.Snapshot.IsNull() || m.Snapshot.IsUnknown() {
		return
	}
	for attr, v := range map[string]types.String{"source": m.Source, "owner": m.Owner, "reseed": m.Reseed} {
		if !v.IsNull() && !v.IsUnknown() {
			diags.AddAttributeError(path.Root(attr), "Snapshot and seed together", fmt.Sprintf(
				"A volume restored from a snapshot holds exactly the snapshot's content, with its owners: "+
					"remove %s, or remove snapshot.", attr))
		}
	}
	if m.inMemory() {
		diags.AddAttributeError(path.Root("snapshot"), "Memory volume cannot be restored",
			`A volume with medium = "memory" is emptied whenever no running sandbox mounts it, so what is `+
				`restored would be lost before any sandbox read it. Remove snapshot, or use medium = "disk".`)
	}
}

// planRestore checks a new volume's snapshot when the plan knows it and
// the file is there, and warns when an existing volume's snapshot changes.
func (m restoreModel) planRestore(ctx context.Context, on engine.Engine, state *restoreModel, diags *diag.Diagnostics) {
	ref, known := m.snapshot()
	if state != nil {
		if !m.Snapshot.Equal(state.Snapshot) && m.restores() {
			diags.AddAttributeWarning(path.Root("snapshot"), "Volume not restored again", "The snapshot "+
				"changed since this volume was created. The volume keeps what it holds, and nothing is "+
				"restored into it. To restore the new snapshot, replace the volume (terraform apply "+
				"-replace), which loses what it holds now.")
		}
		return
	}
	if !m.restores() || !known {
		return
	}
	if _, err := os.Stat(ref.File); err != nil {
		return // made by this apply, or missing: apply says
	}
	// An engine that does not answer now: its refusals are the apply's.
	lim, _ := limitsOn(ctx, on)
	diags.Append(checkSnapshot(ctx, ref, lim, true)...)
}

// checkSnapshot checks every entry of the archive as the restore will
// read it, seeking past the files' content (milliseconds for 1 GiB in
// 10,000 files), so that an archive a snapshot would never write, or one
// this engine would restore otherwise, is refused before anything is made.
// The archive's digest is checked once, as the restore streams it: a
// mismatch then leaves no volume. At plan, an entry this engine would
// restore otherwise is a warning (an error would also stop the plan a
// destroy runs first); at apply, an error.
func checkSnapshot(ctx context.Context, ref snapshotRef, lim archive.Limits, atPlan bool) diag.Diagnostics {
	var diags diag.Diagnostics
	unreadable := func(err error) diag.Diagnostics {
		diags.AddAttributeError(path.Root("snapshot").AtName("file"), "Cannot read the snapshot", fmt.Sprintf(
			"Reading the snapshot %q failed: %v. Nothing was created. Set snapshot.file to a "+
				"sandbox_snapshot's file on the machine running Terraform.", ref.File, err))
		return diags
	}
	f, err := os.Open(ref.File)
	if err != nil {
		return unreadable(err)
	}
	defer func() { _ = f.Close() }()
	_, refused := archive.CheckEntries(ctx, f, engine.SeedDir, lim)
	if refused == nil {
		return diags
	}
	// Refused, or another file: which one, the digest of the whole file says.
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return unreadable(err)
	}
	h := sha256.New()
	if _, err := io.Copy(h, bufio.NewReaderSize(f, readBuffer)); err != nil {
		return unreadable(err)
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != ref.SHA256 {
		diags.Append(digestMismatch(ref, got))
		return diags
	}
	var unpacker *archive.UnpackerError
	if errors.As(refused, &unpacker) {
		d := notHere(ref.File, unpacker)
		if !atPlan {
			return append(diags, d)
		}
		diags.AddAttributeWarning(path.Root("snapshot").AtName("file"), d.Summary(), d.Detail()+
			" The apply refuses it; take the steps it gives before applying.")
		return diags
	}
	diags.AddAttributeError(path.Root("snapshot").AtName("file"), "Snapshot refused", fmt.Sprintf(
		"The snapshot %q is not an archive a sandbox_snapshot writes: %v. Its digest is the one given, so "+
			"it was made or changed by hand before that digest was taken. Nothing was created: the "+
			"provider restores only what could never write outside the volume. Take the snapshot again "+
			"with sandbox_snapshot.", ref.File, refused))
	return diags
}

// readBuffer is how much of an archive a read takes at once.
const readBuffer = 1 << 20

func digestMismatch(ref snapshotRef, got string) diag.Diagnostic {
	return diag.NewAttributeErrorDiagnostic(path.Root("snapshot").AtName("sha256"), "Snapshot digest mismatch",
		fmt.Sprintf("The snapshot %q has the SHA-256 %s, not %s as snapshot.sha256 says: it is not the "+
			"snapshot that was taken, and is not restored. Nothing was created. Set snapshot to a "+
			"sandbox_snapshot's file and sha256, as they are recorded.", ref.File, got, ref.SHA256))
}

// restore fills the new volume with the snapshot, through helpers that
// carry the token: the archive is checked again as it is read (package
// archive), entries written under SeedDir, and its digest compared once
// read, so that a file that changed since checkSnapshot fails the restore.
func (r *Resource) restore(ctx context.Context, m resourceModel, token string) error {
	ref, _ := m.snapshot()
	seeder, err := base.Ability[engine.VolumeSeeder](r.Client, "restoring a volume")
	if err != nil {
		return err
	}
	f, err := os.Open(ref.File)
	if err != nil {
		return err
	}
	defer func() { _ = f.Close() }()
	lim, err := limitsOn(ctx, r.Client)
	if err != nil {
		return err
	}
	pr, pw := archive.Pipe()
	var produced error
	done := make(chan struct{})
	go func() {
		defer close(done)
		s, err := archive.Restore(ctx, pw, bufio.NewReaderSize(f, readBuffer), engine.SeedDir, lim)
		if err == nil && s.SHA256 != ref.SHA256 {
			err = &mismatchError{got: s.SHA256, want: ref.SHA256}
		}
		produced = err
		_ = pw.CloseWithError(err)
	}()
	err = seeder.SeedVolume(ctx, m.Name.ValueString(), token, pr)
	_ = pr.Close()
	<-done
	if produced != nil && !errors.Is(produced, io.ErrClosedPipe) {
		// What the archive held, or a file changed since it was checked,
		// says more than the engine's broken copy.
		return errors.Join(produced, err)
	}
	return err
}

// restoreDiagnostics describes a restore that failed: an archive that a
// snapshot would never write is refused as such.
func restoreDiagnostics(name, endpoint string, err error) diag.Diagnostics {
	var diags diag.Diagnostics
	var unsafe *archive.UnsafeError
	var order *archive.OrderError
	var unpacker *archive.UnpackerError
	var mismatch *mismatchError
	if errors.As(err, &mismatch) {
		diags.AddAttributeError(path.Root("snapshot").AtName("sha256"), "Snapshot digest mismatch", fmt.Sprintf(
			"The snapshot's SHA-256 is %s, not %s as snapshot.sha256 says (or the file changed while it was "+
				"restored): it is not the snapshot that was taken. The new volume %q, which held part of it, is "+
				"removed from the engine at %s. Set snapshot to a sandbox_snapshot's file and sha256, as they "+
				"are recorded.", mismatch.got, mismatch.want, name, endpoint))
		return diags
	}
	if errors.As(err, &unpacker) {
		diags.Append(notHere("", unpacker))
		return diags
	}
	if errors.As(err, &unsafe) || errors.As(err, &order) {
		why := ""
		if unsafe != nil {
			why = unsafe.Error()
		} else {
			why = order.Error()
		}
		diags.AddAttributeError(path.Root("snapshot").AtName("file"), "Snapshot refused", fmt.Sprintf(
			"The snapshot is not an archive a sandbox_snapshot writes: %s. The new volume %q, which held only "+
				"the entries checked before that one, is removed from the engine at %s. Take the snapshot again "+
				"with sandbox_snapshot.", why, name, endpoint))
		return diags
	}
	diags.AddAttributeError(path.Root("snapshot"), "Cannot restore the volume", fmt.Sprintf(
		"Restoring the snapshot into the volume %q on the engine at %s failed: %s. %s", name, endpoint,
		engine.Printable(err), engine.NextStep(err, "the engine at "+endpoint)))
	return diags
}

// mismatchError is a restored archive whose digest, known once it was
// read whole, is not the one given.
type mismatchError struct{ got, want string }

func (e *mismatchError) Error() string {
	return fmt.Sprintf("the snapshot's SHA-256 is %s, not %s", e.got, e.want)
}

// notHere is a snapshot that the engine would restore otherwise than it
// is: refused, before anything is made (at plan when the file is there).
func notHere(file string, e *archive.UnpackerError) diag.Diagnostic {
	which := "The snapshot"
	if file != "" {
		which = fmt.Sprintf("The snapshot %q", file)
	}
	return diag.NewAttributeErrorDiagnostic(path.Root("snapshot").AtName("file"), "Snapshot cannot be restored exactly here",
		fmt.Sprintf("%s holds what this engine would restore otherwise: %s. A restore makes exactly what the "+
			"snapshot holds, or nothing: no volume is left. Change the entry in the volume it was taken from "+
			"(touch it, from a sandbox that mounts it) and take the snapshot again, or restore it where it is "+
			"kept (a cluster keeps a time before 1970).",
			which, e.Error()))
}

// plannedRoot is who will own the volume's root, and its mode, when the
// plan can know: from owner, from a snapshot's first entry, or from what
// the backend makes without an owner. A memory volume's root is a tmpfs
// option, and a cluster's without owner the storage driver's.
func (m resourceModel) plannedRoot(on engine.Engine) (planned.Root, bool) {
	switch {
	case m.inMemory() || m.Owner.IsUnknown() || m.Snapshot.IsUnknown():
		return planned.Root{}, false
	case !m.Owner.IsNull():
		o := m.owner()
		return planned.Root{UID: o.UID, GID: o.GID, Mode: 0o755, From: "owner"}, true
	case m.restores():
		ref, known := m.snapshot()
		if !known {
			return planned.Root{}, false
		}
		f, err := os.Open(ref.File)
		if err != nil {
			return planned.Root{}, false
		}
		defer func() { _ = f.Close() }()
		h, err := archive.RootOf(f)
		if err != nil {
			return planned.Root{}, false
		}
		return planned.Root{UID: h.Uid, GID: h.Gid, Mode: h.Mode, From: "the snapshot"}, true
	}
	roots, ok := on.(engine.NewVolumeRoots)
	if !ok {
		return planned.Root{}, false
	}
	uid, gid, mode := roots.NewVolumeRoot()
	return planned.Root{UID: uid, GID: gid, Mode: mode, From: "no owner"}, true
}
