// Package filedatasource implements the sandbox_file data source: one
// bounded file read from a sandbox or a volume, for a workflow to take an
// agent's result out without an exec.
package filedatasource

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework-validators/datasourcevalidator"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/path"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/framework/base"
)

var (
	_ datasource.DataSource                     = &DataSource{}
	_ datasource.DataSourceWithConfigure        = &DataSource{}
	_ datasource.DataSourceWithConfigValidators = &DataSource{}
)

// New returns the sandbox_file data source.
func New() datasource.DataSource {
	return &DataSource{}
}

// DataSource reads one file.
type DataSource struct {
	base.DataSource
}

// Metadata names the data source.
func (d *DataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_file"
}

// Schema describes the data source.
func (d *DataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = dataSchema()
}

// ConfigValidators require exactly one of container and volume.
func (d *DataSource) ConfigValidators(context.Context) []datasource.ConfigValidator {
	return []datasource.ConfigValidator{
		datasourcevalidator.ExactlyOneOf(path.MatchRoot("container"), path.MatchRoot("volume")),
	}
}

// Read reads the file, through the sandbox, or through a container that
// mounts the volume; it never creates anything.
func (d *DataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var m dataModel
	if resp.Diagnostics.Append(req.Config.Get(ctx, &m)...); resp.Diagnostics.HasError() {
		return
	}
	if resp.Diagnostics.Append(base.Requires[engine.FileReader](d.Client, "data \"sandbox_file\"",
		"The Kubernetes API reads a pod's files only by running a program inside it, which the sandbox's own "+
			"code may have replaced; have the agent write its result where you collect it instead.")...); resp.Diagnostics.HasError() {
		return
	}
	resp.Diagnostics.Append(d.read(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, m)...)
}
