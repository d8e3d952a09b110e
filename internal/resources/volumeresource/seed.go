package volumeresource

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/localdir"
)

// Seeding: what the volume starts with (a local directory), who owns it,
// and when it is seeded again.

// seedModel is the seeding part of a sandbox_volume.
type seedModel struct {
	Source       types.String `tfsdk:"source"`
	Owner        types.String `tfsdk:"owner"`
	Reseed       types.String `tfsdk:"reseed"`
	SourceDigest types.String `tfsdk:"source_digest"`
	SeededDigest types.String `tfsdk:"seeded_digest"`
}

var ownerPattern = regexp.MustCompile(`^[0-9]+:[0-9]+$`)

func seedAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"source": schema.StringAttribute{
			MarkdownDescription: "A directory on the machine running Terraform to copy into the volume when it " +
				"is created, such as `\"${path.module}/repo\"`: its files, less those its `.dockerignore` " +
				"excludes, keep their paths and modes, and are owned by `owner`. They travel through the " +
				"engine's API, so a remote engine (TLS, SSH) is seeded too. The plan digests them " +
				"(`source_digest`). A later change to the source, or to `owner`, never overwrites what the " +
				"sandboxes wrote: the plan warns that the volume is not reseeded, and `reseed` copies the " +
				"source in again (see the workspaces guide).",
			Optional:   true,
			Validators: []validator.String{stringvalidator.LengthAtLeast(1)},
		},
		"owner": schema.StringAttribute{
			MarkdownDescription: "Who owns the volume's root directory and the files seeded from `source`, as " +
				"numeric `\"uid:gid\"`, such as `\"65534:65534\"` for a sandbox whose `user` is nobody. Unset, " +
				"root owns them, and a sandbox that runs as another user cannot write to the volume. Applied " +
				"when the volume is seeded: at create, and when `reseed` changes.",
			Optional: true,
			Validators: []validator.String{stringvalidator.RegexMatches(ownerPattern,
				`must be a numeric uid and gid, such as "65534:65534"`)},
		},
		"reseed": schema.StringAttribute{
			MarkdownDescription: "Any value; changing it copies `source` into the volume again, in place, as " +
				"`owner`: files of the same paths are replaced, every other file the sandboxes wrote stays. " +
				"To start again from the source alone, replace the volume (`terraform apply " +
				"-replace=sandbox_volume.NAME`), which loses its data.",
			Optional: true,
		},
		"source_digest": schema.StringAttribute{
			MarkdownDescription: "Computed at plan time: SHA-256 of what seeding copies (each file's path, type, " +
				"mode and content, not times) and of `owner`; null when there is neither.",
			Computed: true,
		},
		"seeded_digest": schema.StringAttribute{
			MarkdownDescription: "`source_digest` as it was when the volume was last seeded; null when it was " +
				"never seeded. It differs from `source_digest` when the source changed since.",
			Computed:      true,
			PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
		},
	}
}

// seeds reports whether the volume is seeded at all: a source or an owner.
func (s seedModel) seeds() bool {
	return !s.Source.IsNull() || !s.Owner.IsNull()
}

// owner is the seed's owner, root when unset.
func (s seedModel) owner() localdir.Owner {
	uid, gid, _ := strings.Cut(s.Owner.ValueString(), ":")
	u, _ := strconv.Atoi(uid)
	g, _ := strconv.Atoi(gid)
	return localdir.Owner{UID: u, GID: g}
}

// files lists what seeding copies: none without a source.
func (s seedModel) files() ([]localdir.File, error) {
	if s.Source.IsNull() {
		return nil, nil
	}
	files, err := localdir.Walk(s.Source.ValueString())
	if err != nil {
		return nil, fmt.Errorf("%w. Set source to a directory on the machine running Terraform", err)
	}
	return files, nil
}

// digest is what source_digest records, "" without a seed.
func (s seedModel) digest() (string, error) {
	if !s.seeds() {
		return "", nil
	}
	files, err := s.files()
	if err != nil {
		return "", err
	}
	h := sha256.New()
	if err := localdir.Digest(h, s.Source.ValueString(), files); err != nil {
		return "", err
	}
	o := s.owner()
	_, _ = fmt.Fprintf(h, "owner %d:%d\n", o.UID, o.GID) // a hash never fails
	return "sha256:" + hex.EncodeToString(h.Sum(nil)), nil
}

// writeTar writes what seeding copies, the volume's root first, as
// engine.SeedVolume takes it.
func (s seedModel) writeTar(w io.Writer) error {
	files, err := s.files()
	if err != nil {
		return err
	}
	return localdir.WriteTar(w, s.Source.ValueString(), files, s.owner(), engine.SeedDir)
}

// plan digests the source and plans seeded_digest: the source's at create
// and when reseed changes, the state's otherwise, with a warning when the
// two differ.
func (s seedModel) plan(ctx context.Context, state *seedModel, resp *resource.ModifyPlanResponse) {
	digest := types.StringUnknown()
	if !s.Source.IsUnknown() && !s.Owner.IsUnknown() {
		d, err := s.digest()
		if err != nil {
			resp.Diagnostics.AddAttributeError(path.Root("source"), "Cannot read the source", err.Error()+
				". Make source a directory the user running Terraform can read.")
			return
		}
		digest = types.StringNull()
		if d != "" {
			digest = types.StringValue(d)
		}
	}
	seeded := digest
	if state != nil && s.Reseed.Equal(state.Reseed) {
		seeded = state.SeededDigest
		if !digest.IsUnknown() && !digest.Equal(seeded) && !digest.IsNull() {
			resp.Diagnostics.AddAttributeWarning(path.Root("source"), "Volume not reseeded", fmt.Sprintf(
				"The source or owner of this volume changed since it was seeded (source_digest %s, seeded %s). "+
					"The volume keeps what the sandboxes wrote, and is not seeded again. To copy the source in "+
					"again, over files of the same paths, change reseed; to start again from the source alone, "+
					"replace the volume (terraform apply -replace), which loses its data.",
				digest.ValueString(), seedDescription(seeded)))
		}
	}
	resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("source_digest"), digest)...)
	resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("seeded_digest"), seeded)...)
}

func seedDescription(seeded types.String) string {
	if seeded.IsNull() {
		return "never"
	}
	return seeded.ValueString()
}

// reseeds reports whether an update seeds the volume again.
func (s seedModel) reseeds(state seedModel) bool {
	return !s.Reseed.Equal(state.Reseed) && s.seeds()
}

// seedDiagnostics describes a seeding that failed.
func seedDiagnostics(name, endpoint string, err error) diag.Diagnostics {
	var diags diag.Diagnostics
	diags.AddAttributeError(path.Root("source"), "Cannot seed the volume", fmt.Sprintf(
		"Copying the source into the volume %q on the engine at %s failed: %s. %s", name, endpoint,
		engine.Printable(err), engine.NextStep(err, "the engine at "+endpoint)))
	return diags
}
