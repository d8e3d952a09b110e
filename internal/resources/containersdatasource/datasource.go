// Package containersdatasource implements the sandbox_containers data
// source: the containers this provider created on the engine, with their
// isolation.
package containersdatasource

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/framework/base"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/framework/listing"
)

var (
	_ datasource.DataSource              = &DataSource{}
	_ datasource.DataSourceWithConfigure = &DataSource{}
)

// New returns the sandbox_containers data source.
func New() datasource.DataSource {
	return &DataSource{}
}

// DataSource lists the provider's containers on the engine.
type DataSource struct {
	base.DataSource
}

// Metadata names the data source.
func (d *DataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_containers"
}

// Schema describes the data source.
func (d *DataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = dataSchema()
}

// Read lists the provider's containers once, filtered by the engine, and
// inspects each one it returns; one removed in between is left out.
func (d *DataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var m dataModel
	if resp.Diagnostics.Append(req.Config.Get(ctx, &m)...); resp.Diagnostics.HasError() {
		return
	}
	var labels map[string]string
	resp.Diagnostics.Append(m.Labels.ElementsAs(ctx, &labels, false)...)
	if resp.Diagnostics.HasError() {
		return
	}
	found, diags := listing.Sandboxes(ctx, d.Client, labels, m.NamePrefix.ValueString())
	if resp.Diagnostics.Append(diags...); resp.Diagnostics.HasError() {
		return
	}
	slices.SortFunc(found, func(a, b engine.Sandbox) int { return strings.Compare(a.Name, b.Name) })
	users, diags := d.volumeUsers(ctx, found)
	if resp.Diagnostics.Append(diags...); resp.Diagnostics.HasError() {
		return
	}
	entries := make([]attr.Value, 0, len(found))
	now := time.Now()
	for _, c := range found {
		if !m.Expired.IsNull() && engine.Expired(c, now) != m.Expired.ValueBool() {
			continue
		}
		entries = append(entries, entry(c, users, now))
	}
	m.Containers = types.ListValueMust(types.ObjectType{AttrTypes: entryAttrTypes}, entries)
	resp.Diagnostics.Append(resp.State.Set(ctx, m)...)
}
