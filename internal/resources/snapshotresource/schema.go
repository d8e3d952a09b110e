package snapshotresource

import (
	"context"
	"fmt"
	"math"
	"regexp"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64default"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/mapplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/framework/timeouts"
)

// Defaults and bounds.
const (
	schemaVersion        = 0
	defaultMaxSizeMB     = 1024
	defaultMaxFiles      = 100000
	maxMaxFiles          = 1000000
	defaultKeepOnDestroy = false
	defaultCreateTimeout = 20 * time.Minute
	defaultDeleteTimeout = time.Minute
	mib                  = 1 << 20
	// maxMaxSizeMB is the most max_size_mb whose bytes an int64 holds.
	maxMaxSizeMB = math.MaxInt64 / mib
)

// volumeName is a volume's name on every backend, which the archive's
// file name starts with.
var volumeName = regexp.MustCompile(`^[a-zA-Z0-9][a-zA-Z0-9_.-]*$`)

// volumeValidator checks a volume's name, in the resource and the action.
func volumeValidator() validator.String {
	return stringvalidator.RegexMatches(volumeName,
		"must be a volume's name: letters, digits, _, . and -, starting with a letter or digit")
}

// resourceSchema is the whole schema.
func resourceSchema(ctx context.Context) schema.Schema { //nolint:funlen // a schema literal
	s := schema.Schema{
		Version: schemaVersion,
		MarkdownDescription: "A snapshot of a `sandbox_volume`'s content: an archive file, on the machine running " +
			"Terraform, with a digest of what it holds (`sha256`). A `sandbox_volume` restores it with " +
			"`snapshot = { file = ..., sha256 = ... }` on any engine or cluster the provider reaches, whichever " +
			"took it. The volume's content is read as hostile (a sandbox wrote it): paths out of the volume, " +
			"links out of it, device files, setuid bits and the like never reach the archive, and nothing is " +
			"ever unpacked on the machine running Terraform or on the engine's host. See the workspaces guide, " +
			"\"Snapshots and resuming elsewhere\".",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				MarkdownDescription: "The archive's path, as `file`.",
				Computed:            true,
				PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"volume": schema.StringAttribute{
				MarkdownDescription: "The name of the volume to archive, such as `sandbox_volume.workspace.name`. " +
					"Changing it takes a new snapshot (replacement).",
				Required:      true,
				Validators:    []validator.String{volumeValidator()},
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
			},
			"directory": schema.StringAttribute{
				MarkdownDescription: "The directory on the machine running Terraform that the archive is written " +
					"to, such as `\"${path.root}/snapshots\"`; made (mode 0700) when missing. The archive is " +
					"named after the volume and a random part, so that snapshots never overwrite one another, " +
					"and its mode is 0600. Changing it takes a new snapshot (replacement).",
				Required:      true,
				Validators:    []validator.String{stringvalidator.LengthAtLeast(1)},
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
			},
			"triggers": schema.MapAttribute{
				MarkdownDescription: "Any values; a change takes a new snapshot of the volume (replacement), as " +
					"`terraform_data`'s `triggers_replace` does, such as `{ after = sandbox_exec.build.id }`.",
				ElementType:   types.StringType,
				Optional:      true,
				PlanModifiers: []planmodifier.Map{mapplanmodifier.RequiresReplace()},
			},
			"max_size_mb": schema.Int64Attribute{
				MarkdownDescription: fmt.Sprintf("The most the volume's files may hold together, in MiB, "+
					"from 1 to %d (default `%d`): a volume that holds more is refused, and no archive is left. A sandbox "+
					"can fill its volume; this keeps it from filling the disk of the machine running "+
					"Terraform. Changing it updates the state only: it bounds the next snapshot taken.",
					int64(maxMaxSizeMB), defaultMaxSizeMB),
				Optional:   true,
				Computed:   true,
				Default:    int64default.StaticInt64(defaultMaxSizeMB),
				Validators: []validator.Int64{int64validator.Between(1, maxMaxSizeMB)},
			},
			"max_files": schema.Int64Attribute{
				MarkdownDescription: fmt.Sprintf("The most entries (files, directories, links) the volume may "+
					"hold, from 1 to %d (default `%d`): a volume that holds more is refused. While it takes a "+
					"snapshot, the provider keeps about 350 bytes per entry in memory, plus the entry's path "+
					"(at most 4 KiB): some 35 MiB for 100,000 entries with short paths, at most 440 MiB. "+
					"Changing it updates the state only.", maxMaxFiles, defaultMaxFiles),
				Optional:   true,
				Computed:   true,
				Default:    int64default.StaticInt64(defaultMaxFiles),
				Validators: []validator.Int64{int64validator.Between(1, maxMaxFiles)},
			},
			"keep_on_destroy": schema.BoolAttribute{
				MarkdownDescription: "Whether destroying leaves the archive on disk. When false (the default), " +
					"destroy removes it, and only it: an archive that changed since it was taken is left, " +
					"with a warning. Changing it updates the state only.",
				Optional: true,
				Computed: true,
				Default:  booldefault.StaticBool(defaultKeepOnDestroy),
			},
			"file": schema.StringAttribute{
				MarkdownDescription: "The archive's path: `directory`, then the volume's name and a random " +
					"part, such as `snapshots/workspace-3f9c2a1b5d7e.tar`. An uncompressed tar.",
				Computed:      true,
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"sha256": schema.StringAttribute{
				MarkdownDescription: "The SHA-256 of the archive file, in hex, as `sha256sum` prints it. The " +
					"archive holds the volume's entries in one fixed order, each with only its path, type, " +
					"permissions, numeric owner, modification time (to the second) and bytes: the same " +
					"content gives the same digest whenever, and on whichever engine, it is taken. A refresh " +
					"reads the archive again, and one that is gone or whose digest differs is never trusted: " +
					"the plan takes the snapshot again.",
				Computed:      true,
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"size_bytes": schema.Int64Attribute{
				MarkdownDescription: "The archive's size, in bytes.",
				Computed:            true,
				PlanModifiers:       []planmodifier.Int64{int64planmodifier.UseStateForUnknown()},
			},
			"files": schema.Int64Attribute{
				MarkdownDescription: "How many entries the archive holds: the volume's root directory, and " +
					"every directory, file and link in it.",
				Computed:      true,
				PlanModifiers: []planmodifier.Int64{int64planmodifier.UseStateForUnknown()},
			},
		},
	}
	for k, v := range timeouts.Attributes(ctx, "How long taking the snapshot may take", defaultCreateTimeout,
		"How long removing the archive may take", defaultDeleteTimeout) {
		s.Attributes[k] = v
	}
	return s
}
