package snapshotresource

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/archive"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/framework/base"
)

// releaseTimeout bounds letting a held sandbox go, which runs even when
// the snapshot was interrupted.
const releaseTimeout = 30 * time.Second

// refusal is why the backend cannot take a snapshot from the provider's
// platform, or "".
func (r *Resource) refusal(ctx context.Context) string {
	if refuser, ok := r.Client.(engine.SnapshotRefuser); ok {
		return refuser.SnapshotRefusal(ctx)
	}
	return ""
}

// take archives the volume into a new file in the directory and records
// it on m. Nothing is recorded, and no file left, unless the archive is
// whole.
func (r *Resource) take(ctx context.Context, m *resourceModel) diag.Diagnostics {
	var diags diag.Diagnostics
	archiver, err := base.Ability[engine.VolumeArchiver](r.Client, "taking a snapshot of a volume")
	if err != nil {
		diags.AddAttributeError(path.Root("volume"), "Cannot take a snapshot here", err.Error()+
			". Take it with a provider configured for an engine that can.")
		return diags
	}
	volume := m.Volume.ValueString()
	if _, err := r.Client.InspectVolume(ctx, volume); err != nil {
		diags.Append(volumeDiagnostics(volume, r.Client, err)...)
		return diags
	}
	out, err := newPartial(m.Directory.ValueString(), volume)
	if err != nil {
		diags.AddAttributeError(path.Root("directory"), "Cannot write the snapshot", fmt.Sprintf(
			"Making the archive of the volume %q in %q failed: %v. Set directory to a directory the "+
				"user running Terraform can write.", volume, m.Directory.ValueString(), err))
		return diags
	}
	h := &holder{pauser: pauserOf(ctx, r.Client), on: r.Client}
	s, dropped, err := r.archive(ctx, archiver, volume, h, out, m.limits())
	diags.Append(h.diags...)
	if err == nil {
		err = out.commit()
	}
	if err != nil {
		out.abort()
		diags.Append(takeDiagnostics(ctx, volume, r.Client, *m, h.unheld, err)...)
		return diags
	}
	if len(dropped) > 0 {
		diags.AddAttributeWarning(path.Root("volume"), "Special files left out of the snapshot", fmt.Sprintf(
			"The volume %q holds %d device files or FIFOs (%s), which a snapshot never holds: the archive "+
				"leaves them out, and a restore does not make them. Have the sandbox make them again after a "+
				"restore, if it needs them.", volume, len(dropped), firstFew(dropped)))
	}
	m.record(out.final, s)
	return diags
}

// archive streams the volume's archive into out in the kept form. An
// engine whose archive is not in that order, or turns out not to be, is
// read with its content spooled meanwhile.
func (r *Resource) archive(ctx context.Context, archiver engine.VolumeArchiver, volume string, h *holder,
	out *partial, lim archive.Limits) (archive.Summary, []string, error) {
	var s archive.Summary
	var dropped []string
	take := func(copyOut func(tar io.Reader) (archive.Summary, []string, error)) error {
		return archiver.ArchiveVolume(ctx, volume, engine.NewCreateToken(), h.hold(volume), func(tar io.Reader) error {
			var err error
			if s, dropped, err = copyOut(tar); err == nil {
				err = h.verify(ctx, volume) // before the writers held are let go
			}
			return err
		})
	}
	if archiver.ArchivesInOrder() {
		err := take(func(tar io.Reader) (archive.Summary, []string, error) {
			return archive.Stream(ctx, out, tar, engine.SeedDir, lim)
		})
		if !errors.As(err, new(*archive.OrderError)) {
			return s, dropped, err
		}
		if err := out.again(); err != nil {
			return s, nil, err
		}
	}
	spool, err := out.spoolFile()
	if err != nil {
		return s, nil, err
	}
	err = take(func(tar io.Reader) (archive.Summary, []string, error) {
		return archive.Snapshot(ctx, out, tar, engine.SeedDir, lim, spool)
	})
	return s, dropped, err
}

// pauserOf is the backend's pausing, nil on one that cannot pause.
func pauserOf(ctx context.Context, e engine.Engine) engine.Pauser {
	p, _ := e.(engine.Pauser)
	if f, err := e.Facts(ctx); p != nil && err == nil && !f.Pausable {
		return nil // rootless Podman on cgroup v1: the apply warns instead
	}
	return p
}

func names(users []engine.VolumeUser) string {
	var n []string
	for _, u := range users {
		n = append(n, u.Container)
	}
	return strings.Join(n, ", ")
}

// firstFew names up to five paths a sandbox wrote, quoted: a hostile name
// may hold newlines or terminal escapes.
func firstFew(paths []string) string {
	quoted := make([]string, 0, 6)
	for _, p := range paths[:min(len(paths), 5)] {
		quoted = append(quoted, strconv.Quote(p))
	}
	if len(paths) > 5 {
		quoted = append(quoted, "...")
	}
	return strings.Join(quoted, ", ")
}
