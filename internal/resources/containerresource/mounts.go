package containerresource

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-validators/mapvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/boolplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/mapplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/framework/planned"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/framework/validators"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/framework/values"
)

// The sandbox's mounts: named volumes (sandbox_volume) whose data outlives
// the sandbox, and, with an opt-in, host paths (hostpaths.go).

// Defaults of a mount's read_only when it sets none: a volume is writable,
// a host path read-only. observe takes an unset read_only for them.
const (
	defaultVolumeReadOnly   = false
	defaultHostPathReadOnly = true
)

// mountsModel is what is mounted into the sandbox, by target path.
type mountsModel struct {
	Mounts         types.Map  `tfsdk:"mounts"`
	AllowHostPaths types.Bool `tfsdk:"allow_host_paths"`
}

// mountModel is one mount.
type mountModel struct {
	Volume   types.String `tfsdk:"volume"`
	HostPath types.String `tfsdk:"host_path"`
	ReadOnly types.Bool   `tfsdk:"read_only"`
}

// readOnly is whether the mount is read-only, its default included.
func (m mountModel) readOnly() bool {
	if m.ReadOnly.IsNull() || m.ReadOnly.IsUnknown() {
		return !m.HostPath.IsNull() && defaultHostPathReadOnly
	}
	return m.ReadOnly.ValueBool()
}

var mountAttrTypes = map[string]attr.Type{
	"volume": types.StringType, "host_path": types.StringType, "read_only": types.BoolType,
}

// nullMounts knows nothing yet.
func nullMounts() mountsModel {
	return mountsModel{Mounts: types.MapNull(types.ObjectType{AttrTypes: mountAttrTypes}), AllowHostPaths: types.BoolNull()}
}

func mountAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"mounts": schema.MapNestedAttribute{
			MarkdownDescription: "Volumes, and with `allow_host_paths` host paths, to mount into the sandbox, " +
				"by absolute target path, such as `{ \"/workspace\" = { volume = sandbox_volume.work.name } }`. " +
				"What the sandbox writes into a volume is kept through every replacement of the sandbox: a " +
				"rebuilt image, a repaired network breach, a runtime change, `terraform apply -replace`, a new " +
				"sandbox mounting the same volume. A volume is mounted as it is: the image's files at the " +
				"target are not copied into it (unlike `docker run`'s default), and its owner is the one its " +
				"`sandbox_volume.owner` seeded. A target may not be under `" + joinCode(kernelFilesystems) +
				"`, nor be, hold or lie under a `tmpfs` mount or a `files` path. The engines cannot change a " +
				"container's mounts, so changing them forces replacement; the volumes and their data stay.",
			Optional:      true,
			PlanModifiers: []planmodifier.Map{mapplanmodifier.RequiresReplace()},
			Validators: []validator.Map{
				mapvalidator.SizeAtLeast(1),
				mapvalidator.KeysAre(validators.AbsolutePath(), mountTargetValidator()),
			},
			NestedObject: schema.NestedAttributeObject{
				Validators: []validator.Object{validators.ExactlyOneOf("volume", "host_path")},
				Attributes: map[string]schema.Attribute{
					"volume": schema.StringAttribute{
						MarkdownDescription: "The name of the volume to mount, such as `sandbox_volume.work.name` " +
							"(which orders the volume's create before the sandbox's). Exactly one of `volume` and " +
							"`host_path`.",
						Optional:   true,
						Validators: []validator.String{validators.String("must not be empty", nonEmpty)},
					},
					"host_path": schema.StringAttribute{
						MarkdownDescription: hostPathDescription,
						Optional:            true,
						Validators:          []validator.String{validators.AbsolutePath()},
					},
					"read_only": schema.BoolAttribute{
						MarkdownDescription: fmt.Sprintf("Mount it read-only. Defaults to `%t` for a volume and "+
							"`%t` for a host path.", defaultVolumeReadOnly, defaultHostPathReadOnly),
						Optional: true,
					},
				},
			},
		},
		"allow_host_paths": schema.BoolAttribute{
			MarkdownDescription: "Allow `mounts` of host paths. A host path hands part of the engine's host to " +
				"the sandbox; sources that would hand it the host are refused whatever this says (see " +
				"`host_path`). Defaults to `false`. Changing it forces replacement.",
			Optional:      true,
			PlanModifiers: []planmodifier.Bool{boolplanmodifier.RequiresReplace()},
		},
	}
}

func nonEmpty(s string) string {
	if s == "" {
		return "must not be empty"
	}
	return ""
}

// mountTargetValidator refuses targets that would shadow the kernel's
// filesystems or the engine's own files.
func mountTargetValidator() validator.String {
	desc := "must not be under " + strings.Join(kernelFilesystems, ", ") + " or one of " +
		strings.Join(engineMountedFiles, ", ") + ": the engine mounts its own there, and a volume over them " +
		"would hide the kernel's view or the engine's files from the sandbox"
	return validators.String(desc, func(s string) string {
		if slices.Contains(engineMountedFiles, s) || hiddenBy(s, nil) != "" {
			return desc
		}
		return ""
	})
}

// entries are the configured mounts whose objects are known; nil when
// unknown or null.
func (m mountsModel) entries() (map[string]mountModel, diag.Diagnostics) {
	if !values.Known(m.Mounts) {
		return nil, nil
	}
	return values.ObjectsAs[mountModel](m.Mounts)
}

// applyTo adds the mounts to spec, sorted by target so that a mount below
// another comes after it.
func (m mountsModel) applyTo(spec *engine.ContainerSpec) diag.Diagnostics {
	entries, diags := m.entries()
	for _, target := range slices.Sorted(maps.Keys(entries)) {
		e := entries[target]
		spec.Mounts = append(spec.Mounts, engine.Mount{
			Target: target, Volume: e.Volume.ValueString(), HostPath: e.HostPath.ValueString(), ReadOnly: e.readOnly(),
		})
	}
	return diags
}

// observe records the named volumes the engine shows mounted, keeping the
// state's spelling (an unset read_only) where it means the same.
func (m *mountsModel) observe(c engine.Sandbox) {
	held, _ := m.entries()
	observed := engine.ObservedMounts(c)
	if len(observed) == 0 {
		m.Mounts = values.KeepIfEqual(m.Mounts, nullMounts().Mounts)
		return
	}
	elems := map[string]attr.Value{}
	for target, o := range observed {
		volume, hostPath := types.StringNull(), types.StringNull()
		if o.HostPath != "" {
			hostPath = types.StringValue(o.HostPath)
			if m.AllowHostPaths.IsNull() {
				// Imported: the sandbox was made with host paths allowed.
				m.AllowHostPaths = types.BoolValue(true)
			}
		} else {
			volume = types.StringValue(o.Volume)
		}
		seen := mountModel{Volume: volume, HostPath: hostPath, ReadOnly: types.BoolValue(o.ReadOnly)}
		// An unset read_only that means what the engine shows stays unset;
		// an import, which holds nothing, leaves the default unset.
		h, ok := held[target]
		if !ok {
			h = mountModel{Volume: volume, HostPath: hostPath, ReadOnly: types.BoolNull()}
		}
		if (h.ReadOnly.IsNull() || h.ReadOnly.IsUnknown()) && h.HostPath.Equal(hostPath) && h.readOnly() == o.ReadOnly {
			seen.ReadOnly = types.BoolNull()
		}
		elems[target] = types.ObjectValueMust(mountAttrTypes, map[string]attr.Value{
			"volume": seen.Volume, "host_path": seen.HostPath, "read_only": seen.ReadOnly,
		})
	}
	m.Mounts = values.KeepIfEqual(m.Mounts, types.MapValueMust(types.ObjectType{AttrTypes: mountAttrTypes}, elems))
}

// validate refuses a mount that would hide, or be hidden by, a tmpfs mount
// or a file: a file written into a mounted volume would also overwrite what
// the sandbox wrote there at every replacement.
func (m mountsModel) validate(ctx context.Context, fs filesystemModel, files filesModel) diag.Diagnostics {
	entries, diags := m.entries()
	if len(entries) == 0 {
		return diags
	}
	var tmpfs map[string]string
	if values.Known(fs.Tmpfs) {
		diags.Append(fs.Tmpfs.ElementsAs(ctx, &tmpfs, false)...)
	}
	var filePaths []string
	if entries, ok := entriesOf(files.Files.UnderlyingValue()); ok && filesKnown(files.Files) {
		filePaths = slices.Collect(maps.Keys(entries))
	}
	for _, target := range slices.Sorted(maps.Keys(entries)) {
		at := path.Root("mounts").AtMapKey(target)
		for _, t := range slices.Sorted(maps.Keys(tmpfs)) {
			if under(target, t) || under(t, target) {
				diags.AddAttributeError(at, "Mount overlaps a tmpfs mount", fmt.Sprintf("Attribute mounts[%q] "+
					"overlaps the tmpfs mount %s: one would hide the other. Mount them at separate paths.", target, t))
			}
		}
		for _, f := range slices.Sorted(slices.Values(filePaths)) {
			if under(f, target) {
				diags.AddAttributeError(at, "Mount overlaps a file", fmt.Sprintf("Attribute files[%q] is under "+
					"the mount %s: the file would be written into the volume at every create, over what the "+
					"sandbox wrote there. Put the file elsewhere, or put it in the volume once.", f, target))
			}
		}
	}
	return diags
}

// warnUnwritable warns at plan about each volume the sandbox mounts
// writable whose root directory its user will not be able to write, as
// that volume's plan recorded it (package planned): an agent that gets
// "Permission denied" on its own workspace hears it from the plan.
func warnUnwritable(plan map[string]tftypes.Value, endpoint string, resp *resource.ModifyPlanResponse) {
	uid, gid, ok := numericIDs(values.RawString(plan["user"]))
	var mounts map[string]tftypes.Value
	if v := plan["mounts"]; !ok || !v.IsKnown() || v.IsNull() || v.As(&mounts) != nil {
		return
	}
	dac := keepsCapability("DAC_OVERRIDE", values.RawStrings(plan["cap_drop"]), values.RawStrings(plan["cap_add"]))
	for _, target := range slices.Sorted(maps.Keys(mounts)) {
		var m map[string]tftypes.Value
		if !mounts[target].IsKnown() || mounts[target].As(&m) != nil {
			continue
		}
		volume := values.RawString(m["volume"])
		root, known := planned.VolumeRoot(endpoint, volume)
		if volume == "" || values.RawBool(m["read_only"]) || !known || root.WritableBy(uid, gid, dac) {
			continue
		}
		fix := fmt.Sprintf(`set owner = "%d:%d" on the sandbox_volume named %q`, uid, max(gid, 0), volume)
		if root.From == "the snapshot" {
			fix = fmt.Sprintf("run the sandbox as %d:%d, the snapshot's owner, or restore a snapshot of a volume "+
				"whose owner is the sandbox's user", root.UID, root.GID)
		}
		resp.Diagnostics.AddAttributeWarning(path.Root("mounts").AtMapKey(target), "Workspace not writable by the sandbox",
			fmt.Sprintf("The sandbox runs as %s, and the root of the volume %q, mounted writable at %s, will be "+
				"owned by %d:%d with mode %04o (%s): the sandbox cannot make files in it, and its agent gets "+
				"\"Permission denied\" on its own workspace. To let it write there, %s.",
				values.RawString(plan["user"]), volume, target, root.UID, root.GID, root.Mode&0o7777, describeRoot(root), fix))
	}
}

func describeRoot(r planned.Root) string {
	if r.From == "no owner" {
		return "the sandbox_volume sets no owner"
	}
	return "as " + r.From + " says"
}

// numericIDs reads a user given as "UID" or "UID:GID"; a missing GID is -1,
// which matches no group.
func numericIDs(user string) (uid, gid int, ok bool) {
	u, g, hasGroup := strings.Cut(user, ":")
	uid, err := strconv.Atoi(u)
	if err != nil || uid < 0 {
		return 0, 0, false
	}
	gid = -1
	if hasGroup {
		if gid, err = strconv.Atoi(g); err != nil || gid < 0 {
			return 0, 0, false
		}
	}
	return uid, gid, true
}

// keepsCapability reports whether a capability the engine grants by
// default (DAC_OVERRIDE is one) survives cap_drop and cap_add.
func keepsCapability(name string, drop, add []string) bool {
	has := func(list []string, want string) bool {
		return slices.ContainsFunc(engine.CapabilityNames(list), func(c string) bool { return c == want })
	}
	return has(add, name) || has(add, "ALL") || !has(drop, name) && !has(drop, "ALL")
}
