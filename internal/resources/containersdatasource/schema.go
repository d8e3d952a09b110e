package containersdatasource

import (
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
)

// dataSchema is the whole schema: the filters, and the containers found.
func dataSchema() schema.Schema { //nolint:funlen // a schema literal
	return schema.Schema{
		MarkdownDescription: "The containers this provider created on the engine, found by its ownership " +
			"label whether or not any Terraform state holds them, each with the isolation verdict " +
			"`sandbox_container` uses. Use it to audit a host (which sandboxes lost their isolation?) and to " +
			"find sandboxes left outside any state. It lists the engine's containers once, filtered by the " +
			"engine, and inspects only those it returns.",
		Attributes: map[string]schema.Attribute{
			"name_prefix": schema.StringAttribute{
				MarkdownDescription: "Only containers whose name starts with this.",
				Optional:            true,
				Validators:          []validator.String{stringvalidator.LengthAtLeast(1)},
			},
			"labels": schema.MapAttribute{
				MarkdownDescription: "Only containers that carry every one of these labels, with these values.",
				ElementType:         types.StringType,
				Optional:            true,
			},
			"expired": schema.BoolAttribute{
				MarkdownDescription: "Only containers that reached their expiry and were stopped by it (`true`), " +
					"or only the others (`false`): after a CI pipeline was killed before its destroy, its sandboxes " +
					"are listed with `expired = true`.",
				Optional: true,
			},
			"containers": schema.ListNestedAttribute{
				MarkdownDescription: "The containers found, sorted by name.",
				Computed:            true,
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"id":    schema.StringAttribute{MarkdownDescription: "Full ID of the container.", Computed: true},
					"name":  schema.StringAttribute{MarkdownDescription: "Name of the container.", Computed: true},
					"image": schema.StringAttribute{MarkdownDescription: "Image as the container was created from it.", Computed: true},
					"image_id": schema.StringAttribute{
						MarkdownDescription: "ID of the image the container runs.",
						Computed:            true,
					},
					"running": schema.BoolAttribute{MarkdownDescription: "Whether it runs.", Computed: true},
					"expires_at": schema.StringAttribute{
						MarkdownDescription: "When it expires (its backend stops it), in RFC 3339; null for never.",
						Computed:            true,
					},
					"expired": schema.BoolAttribute{
						MarkdownDescription: "Whether it reached its expiry and was stopped by it.",
						Computed:            true,
					},
					"state": schema.StringAttribute{
						MarkdownDescription: "What it is doing, in `sandbox_container.state`'s words: `running`, " +
							"`stopped` (exited, made and not started, restarting in a loop, or asleep on a cluster, " +
							"with no pod) or `paused`.",
						Computed: true,
					},
					"network_mode": schema.StringAttribute{
						MarkdownDescription: "The network mode it effectively has: `\"none\"` when isolated, otherwise " +
							"the engine's mode or the networks it was attached to, or `\"none sharing ...\"` " +
							"with the namespaces it shares (for example `\"none sharing pid with the host\"`).",
						Computed: true,
					},
					"networks": schema.ListAttribute{
						MarkdownDescription: "The networks it is attached to, sorted.",
						ElementType:         types.StringType,
						Computed:            true,
					},
					"isolated": schema.BoolAttribute{
						MarkdownDescription: "Whether it has no network but loopback (network mode `\"none\"` and " +
							"attached to no network) and shares no PID, IPC or UTS namespace with its host or " +
							"another container.",
						Computed: true,
					},
					"reason": schema.StringAttribute{
						MarkdownDescription: "Why it is not isolated, in one sentence; null when it is.",
						Computed:            true,
					},
					"resource_type": schema.StringAttribute{
						MarkdownDescription: "The resource type that created it, from its `" +
							engine.LabelResourceType + "` label.",
						Computed: true,
					},
					"labels": schema.MapAttribute{
						MarkdownDescription: "Its labels, less the provider's own (`" + engine.LabelPrefix + "*`).",
						ElementType:         types.StringType,
						Computed:            true,
					},
					"mounts": schema.ListNestedAttribute{
						MarkdownDescription: "The named volumes and host paths mounted into it, sorted by target " +
							"(anonymous volumes, an image's `VOLUME`s, are not listed).",
						Computed: true,
						NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
							"target": schema.StringAttribute{MarkdownDescription: "Where it is mounted inside.", Computed: true},
							"volume": schema.StringAttribute{
								MarkdownDescription: "The volume's name; null for a host path.",
								Computed:            true,
							},
							"host_path": schema.StringAttribute{
								MarkdownDescription: "The path on the engine's host; null for a volume.",
								Computed:            true,
							},
							"read_only": schema.BoolAttribute{MarkdownDescription: "Whether it is mounted read-only.", Computed: true},
						}},
					},
					"shared_volumes": schema.ListAttribute{
						MarkdownDescription: "The volumes it mounts that another container (listed here or not, " +
							"running or not) also mounts, where one of the two can write: a channel between " +
							"sandboxes that their network isolation does not close. Sorted; empty when none. See " +
							"the isolation guide.",
						ElementType: types.StringType,
						Computed:    true,
					},
					"host_paths": schema.ListAttribute{
						MarkdownDescription: "The host paths mounted into it, sorted; empty when none.",
						ElementType:         types.StringType,
						Computed:            true,
					},
				}},
			},
		},
	}
}
