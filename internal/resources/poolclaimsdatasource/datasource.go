// Package poolclaimsdatasource implements the sandbox_pool_claims data
// source: the sandboxes that claims hold from a sandbox_pool, each with its
// isolation verdict, judged as the pool's own sandboxes are.
package poolclaimsdatasource

import (
	"context"
	"fmt"
	"sort"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/framework/base"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/isolation"
)

var (
	_ datasource.DataSource              = &DataSource{}
	_ datasource.DataSourceWithConfigure = &DataSource{}
)

// New returns the sandbox_pool_claims data source.
func New() datasource.DataSource {
	return &DataSource{}
}

// DataSource lists a pool's claimed sandboxes.
type DataSource struct {
	base.DataSource
}

type dataModel struct {
	Pool      types.String `tfsdk:"pool"`
	Isolated  types.Bool   `tfsdk:"isolated"`
	Sandboxes types.List   `tfsdk:"sandboxes"`
}

// sandboxTypes are the attributes of one claimed sandbox.
var sandboxTypes = map[string]attr.Type{
	"claim": types.StringType, "pod": types.StringType, "ready": types.BoolType,
	"isolated": types.BoolType, "network_mode": types.StringType, "reason": types.StringType,
}

// Metadata names the data source.
func (d *DataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_pool_claims"
}

// Schema describes the data source.
func (d *DataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "The sandboxes that claims (`SandboxClaim`) hold from a `sandbox_pool`, each judged as " +
			"the provider judges a sandbox: its pod's network, RuntimeClass, service-account token and the pool's " +
			"deny-all policy. A claim may add labels and annotations to its pod, so a claimed sandbox can lose " +
			"isolation the pool's template keeps; this lists which.",
		Attributes: map[string]schema.Attribute{
			"pool": schema.StringAttribute{
				MarkdownDescription: "ID of the pool (`sandbox_pool.<name>.id`).",
				Required:            true,
			},
			"isolated": schema.BoolAttribute{
				MarkdownDescription: "Whether every claimed sandbox is isolated (`true` when there is none).",
				Computed:            true,
			},
			"sandboxes": schema.ListNestedAttribute{
				MarkdownDescription: "The claimed sandboxes, by claim name.",
				Computed:            true,
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"claim": schema.StringAttribute{MarkdownDescription: "Name of the `SandboxClaim`.", Computed: true},
					"pod":   schema.StringAttribute{MarkdownDescription: "Name of the sandbox's pod.", Computed: true},
					"ready": schema.BoolAttribute{MarkdownDescription: "Whether its pod runs and is ready.", Computed: true},
					"isolated": schema.BoolAttribute{
						MarkdownDescription: "Whether it has no network but loopback and shares nothing with its node.",
						Computed:            true,
					},
					"network_mode": schema.StringAttribute{
						MarkdownDescription: "`\"" + isolation.NoneMode + "\"` when isolated, else what was found " +
							"(as `sandbox_container`'s `network_mode` reads).",
						Computed: true,
					},
					"reason": schema.StringAttribute{
						MarkdownDescription: "Why it is not isolated; empty when it is.", Computed: true},
				}},
			},
		},
	}
}

// Read lists the pool's claimed sandboxes; it never changes anything.
func (d *DataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var m dataModel
	if resp.Diagnostics.Append(req.Config.Get(ctx, &m)...); resp.Diagnostics.HasError() {
		return
	}
	pools, err := base.Ability[engine.Pools](d.Client, "data \"sandbox_pool_claims\"")
	if err != nil {
		resp.Diagnostics.AddError("Needs a cluster that runs agent-sandbox", fmt.Sprintf("data \"sandbox_pool_claims\" "+
			"reads a sandbox_pool, on a Kubernetes cluster that runs agent-sandbox, and the provider is configured "+
			"for %s. Give it the pool's provider.", d.Client.Where()))
		return
	}
	p, err := pools.InspectPool(ctx, m.Pool.ValueString())
	if err != nil {
		resp.Diagnostics.AddAttributeError(path.Root("pool"), "Cannot read the pool", fmt.Sprintf("Reading the pool %s on %s "+
			"failed: %s. %s", m.Pool.ValueString(), d.Client.Where(), engine.Brief(err),
			engine.NextStep(err, d.Client.Where())))
		return
	}
	claimed := p.Claimed()
	sort.Slice(claimed, func(i, j int) bool { return claimed[i].Claim < claimed[j].Claim })
	all := true
	var list []attr.Value
	for _, s := range claimed {
		v := isolation.Assess(s.Network)
		all = all && v.Isolated
		obj, diags := types.ObjectValue(sandboxTypes, map[string]attr.Value{
			"claim": types.StringValue(s.Claim), "pod": types.StringValue(s.Name), "ready": types.BoolValue(s.Ready),
			"isolated": types.BoolValue(v.Isolated), "network_mode": types.StringValue(v.Mode),
			"reason": types.StringValue(v.Reason),
		})
		resp.Diagnostics.Append(diags...)
		list = append(list, obj)
	}
	sandboxes, diags := types.ListValue(types.ObjectType{AttrTypes: sandboxTypes}, list)
	resp.Diagnostics.Append(diags...)
	m.Isolated, m.Sandboxes = types.BoolValue(all), sandboxes
	resp.Diagnostics.Append(resp.State.Set(ctx, m)...)
}
