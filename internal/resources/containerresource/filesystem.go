package containerresource

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-validators/mapvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/boolplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/mapplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/framework/validators"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/framework/values"
)

// The sandbox's filesystems: a read-only root and in-memory mounts.

// defaultReadOnly is read_only's default, part of the schema and of state
// upgrades.
const defaultReadOnly = false

// filesystemModel is how the sandbox's filesystems are mounted.
type filesystemModel struct {
	ReadOnly types.Bool `tfsdk:"read_only"`
	Tmpfs    types.Map  `tfsdk:"tmpfs"`
}

// nullFilesystem knows nothing yet.
func nullFilesystem() filesystemModel {
	return filesystemModel{ReadOnly: types.BoolNull(), Tmpfs: types.MapNull(types.StringType)}
}

func filesystemAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"read_only": schema.BoolAttribute{
			MarkdownDescription: "Mount the root filesystem read-only. Use `tmpfs` for the paths the sandbox " +
				"must write to. The engine cannot write `files` into a read-only root, so the two do not " +
				"combine. Defaults to `" + fmt.Sprint(defaultReadOnly) + "`. Changing it forces replacement.",
			Optional:      true,
			Computed:      true,
			Default:       booldefault.StaticBool(defaultReadOnly),
			PlanModifiers: []planmodifier.Bool{boolplanmodifier.RequiresReplace()},
		},
		"tmpfs": schema.MapAttribute{
			MarkdownDescription: "In-memory filesystems to mount, by absolute path, each with its mount " +
				"options (`\"\"` for the engine's defaults, or for example `\"rw,size=64m,mode=1777\"`; sizes " +
				"in the kernel's units: bytes, `k`, `m`, `g` or `%` of memory). Docker mounts them " +
				"`noexec,nosuid,nodev` unless told otherwise (Podman mounts them exec): add `exec` to let the " +
				"sandbox run programs it writes there (`\"rw,exec,size=256m\"`), or `noexec` to forbid it on " +
				"any engine. Their contents are lost when the sandbox stops. " +
				"Changing it forces replacement.",
			ElementType:   types.StringType,
			Optional:      true,
			PlanModifiers: []planmodifier.Map{mapplanmodifier.RequiresReplace()},
			Validators: []validator.Map{
				mapvalidator.SizeAtLeast(1),
				mapvalidator.KeysAre(validators.AbsolutePath()),
				mapvalidator.ValueStringsAre(validators.String(
					"must be comma-separated tmpfs mount options", tmpfsOptionsProblem)),
			},
		},
	}
}

// applyTo adds the root filesystem's mode and the mounts to spec.
func (f filesystemModel) applyTo(ctx context.Context, spec *engine.ContainerSpec) diag.Diagnostics {
	spec.ReadOnly = f.ReadOnly.ValueBool()
	return f.Tmpfs.ElementsAs(ctx, &spec.Tmpfs, false)
}

// observe records the root filesystem's mode and the mounts, leaving out
// those the engine added on its own (d).
func (f *filesystemModel) observe(h *engine.HostConfig, d engine.Defaults) {
	f.ReadOnly = types.BoolValue(h.ReadonlyRootfs)
	f.Tmpfs = values.KeepIfEqual(f.Tmpfs, values.StringMap(d.AskedTmpfs(h.Tmpfs)))
}

// tmpfsFlags are the tmpfs mount options that take no value.
var tmpfsFlags = []string{
	"rw", "ro", "exec", "noexec", "suid", "nosuid", "dev", "nodev", "sync", "async", "atime", "noatime",
	"relatime", "norelatime", "strictatime", "diratime", "nodiratime", "tmpcopyup", "notmpcopyup",
}

var (
	tmpfsSize   = regexp.MustCompile(`^[0-9]+[kmg]?$|^[0-9]+%$`)
	tmpfsNumber = regexp.MustCompile(`^[0-9]+[kmg]?$`)
	tmpfsMode   = regexp.MustCompile(`^[0-7]{3,4}$`)
	tmpfsID     = regexp.MustCompile(`^[0-9]+$`)
)

// tmpfsOptionsProblem parses tmpfs mount options as the kernel takes them,
// so that a mistake fails the plan instead of the create.
func tmpfsOptionsProblem(options string) string {
	if options == "" {
		return ""
	}
	for _, opt := range strings.Split(options, ",") {
		key, value, hasValue := strings.Cut(opt, "=")
		var ok bool
		switch key {
		case "size":
			ok = tmpfsSize.MatchString(value)
		case "nr_inodes", "nr_blocks":
			ok = tmpfsNumber.MatchString(value)
		case "mode":
			ok = tmpfsMode.MatchString(value)
		case "uid", "gid":
			ok = tmpfsID.MatchString(value)
		default:
			ok = !hasValue && slices.Contains(tmpfsFlags, key)
		}
		if !ok {
			return fmt.Sprintf("has the option %q, which tmpfs does not take: sizes are a number of bytes "+
				"with k, m or g (64m, not 64MB) or a percentage of memory, mode is octal (1777), uid and gid "+
				"are numbers, and the flags are %s", opt, strings.Join(tmpfsFlags, ", "))
		}
	}
	return ""
}
