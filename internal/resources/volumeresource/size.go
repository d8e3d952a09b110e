package volumeresource

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/localdir"
)

// The volume's bound: how much it may hold, and where it keeps it.

// Media a volume keeps its data on.
const (
	mediumDisk   = "disk"
	mediumMemory = "memory"
)

// mib is a MiB in bytes.
const mib = 1 << 20

// sizeModel is the bound part of a sandbox_volume.
type sizeModel struct {
	SizeMB types.Int64  `tfsdk:"size_mb"`
	Medium types.String `tfsdk:"medium"`
}

func sizeAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"size_mb": schema.Int64Attribute{
			MarkdownDescription: "The most the volume may hold, in MiB; a process that writes more gets " +
				"`ENOSPC` (\"No space left on device\"). Unset, a disk volume may grow until the engine's disk " +
				"is full. On `disk`, the engine bounds it with a project quota, which only a data root on XFS " +
				"mounted with `pquota` has: elsewhere the engine refuses it and so does the apply, naming this " +
				"attribute. Required for `memory`. On a Kubernetes cluster it is required, and is the size the " +
				"persistent volume claim asks its StorageClass for: the storage driver bounds it, as block " +
				"volumes do, or not, as a host-path provisioner does not. Changing it forces replacement, and a " +
				"replaced volume starts empty. See the workspaces guide for what each engine can bound.",
			Optional:      true,
			Validators:    []validator.Int64{int64validator.AtLeast(1)},
			PlanModifiers: []planmodifier.Int64{int64planmodifier.RequiresReplace()},
		},
		"medium": schema.StringAttribute{
			MarkdownDescription: "Where the volume keeps its data: `\"disk\"` (the default), which keeps it " +
				"until the volume is destroyed, or `\"memory\"`, a tmpfs of `size_mb`, counted in the engine's " +
				"memory, that is **emptied whenever no running sandbox mounts it**: when its only sandbox is " +
				"replaced or stops, and when the engine restarts. A memory volume is bounded scratch space for " +
				"sandboxes that run together, not a workspace: it takes no `source` or `reseed`, and `owner` " +
				"owns its root (changing `owner` then forces replacement). Changing it forces replacement.",
			Optional:      true,
			Computed:      true,
			Default:       stringdefault.StaticString(mediumDisk),
			Validators:    []validator.String{stringvalidator.OneOf(mediumDisk, mediumMemory)},
			PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
		},
	}
}

// inMemory reports whether the volume is a tmpfs.
func (s sizeModel) inMemory() bool { return s.Medium.ValueString() == mediumMemory }

// applyTo sets spec's bound.
func (s sizeModel) applyTo(spec *engine.VolumeSpec, owner localdir.Owner) {
	spec.Size = s.SizeMB.ValueInt64() * mib
	spec.InMemory = s.inMemory()
	spec.Owner = owner
}

// observe records the bound the volume's options show, for import.
func (s *sizeModel) observe(v engine.Volume) {
	size, memory := engine.VolumeBound(v)
	s.Medium = types.StringValue(mediumDisk)
	if memory {
		s.Medium = types.StringValue(mediumMemory)
	}
	s.SizeMB = types.Int64Null()
	if size > 0 {
		s.SizeMB = types.Int64Value((size + mib - 1) / mib)
	}
}

// validate refuses what a memory volume cannot do.
func (m resourceModel) validateSize(resp *resource.ValidateConfigResponse) {
	if !m.inMemory() {
		return
	}
	if m.SizeMB.IsNull() {
		resp.Diagnostics.AddAttributeError(path.Root("size_mb"), "Memory volume without a size",
			`A volume with medium = "memory" needs size_mb: a tmpfs without a size may take half the engine's `+
				`memory. Set size_mb, such as size_mb = 256.`)
	}
	for attr, v := range map[string]types.String{"source": m.Source, "reseed": m.Reseed} {
		if !v.IsNull() {
			resp.Diagnostics.AddAttributeError(path.Root(attr), "Memory volume cannot be seeded", fmt.Sprintf(
				`A volume with medium = "memory" is emptied whenever no running sandbox mounts it, so a seed `+
					`would be lost before any sandbox read it. Remove %s, or use medium = "disk".`, attr))
		}
	}
}

// planSize: a memory volume has no seed to digest, and its owner is a mount
// option, which a change replaces.
func (m resourceModel) planSize(ctx context.Context, state *resourceModel, resp *resource.ModifyPlanResponse) {
	resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("source_digest"), types.StringNull())...)
	resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("seeded_digest"), types.StringNull())...)
	if state != nil && !m.Owner.Equal(state.Owner) {
		resp.RequiresReplace = append(resp.RequiresReplace, path.Root("owner"))
	}
}
