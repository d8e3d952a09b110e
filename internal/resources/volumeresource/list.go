package volumeresource

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/list"
	listschema "github.com/hashicorp/terraform-plugin-framework/list/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/framework/identity"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/framework/listing"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/framework/values"
)

// The list resource sandbox_volume, for `terraform query`: the volumes a
// sandbox_volume made, by the import's proof (the provider's labels and a
// create token, which nothing passes on to a volume; on a cluster, labels
// the provider itself wrote), each with its identity and, with
// include_resource, the state an import of it gives.

var (
	_ list.ListResource              = &List{}
	_ list.ListResourceWithConfigure = &List{}
)

// NewList returns the sandbox_volume list resource.
func NewList() list.ListResource { return &List{} }

// List finds the provider's volumes. It embeds the resource, whose import
// it shares.
type List struct {
	Resource
}

// listModel is the list block's configuration.
type listModel struct {
	listing.Filters
}

// Metadata names the list resource as the resource.
func (l *List) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_volume"
}

// ListResourceConfigSchema describes the list block's filters.
func (l *List) ListResourceConfigSchema(_ context.Context, _ list.ListResourceSchemaRequest, resp *list.ListResourceSchemaResponse) {
	resp.Schema = listschema.Schema{
		MarkdownDescription: "The volumes `sandbox_volume` made on the engine or cluster, in a state or in none: " +
			"workspaces a lost state or a pipeline left behind. Only volumes the provider can prove it made are " +
			"listed (its labels and a create token; on a cluster, labels the provider itself wrote), as import " +
			"takes only those. Each comes with its identity; with `include_resource = true`, " +
			"`terraform query -generate-config-out` writes an import block and a resource block for each. A " +
			"volume's `source`, `owner` and `snapshot` are not read back: the generated block has none, and an " +
			"import never copies anything into the volume.",
		Attributes: listing.FilterAttributes("volumes"),
	}
}

// List lists the engine's volumes once, filtered by the engine, in name
// order.
func (l *List) List(ctx context.Context, req list.ListRequest, stream *list.ListResultsStream) {
	found, diags := l.listed(ctx, req)
	if diags.HasError() {
		stream.Results = list.ListResultsStreamDiagnostics(diags)
		return
	}
	stream.Results = listing.Stream(req, found, func(v engine.Volume) list.ListResult {
		res := req.NewListResult(ctx)
		res.DisplayName = v.Name
		res.Diagnostics.Append(identity.Set(ctx, res.Identity, l.identityOf(v.Name))...)
		if req.IncludeResource {
			res.Diagnostics.Append(values.SetResource(ctx, res.Resource, importedModel(v))...)
		}
		return res
	})
}

// listed are the proven volumes the filters keep, by name.
func (l *List) listed(ctx context.Context, req list.ListRequest) ([]engine.Volume, diag.Diagnostics) {
	var cfg listModel
	if diags := values.GetConfig(ctx, req.Config, &cfg); diags.HasError() {
		return nil, diags
	}
	labels, diags := cfg.EngineLabels(ctx, resourceType)
	if diags.HasError() {
		return nil, diags
	}
	all, err := l.Client.ManagedVolumes(ctx, labels, cfg.NamePrefix.ValueString())
	if err != nil {
		return nil, diag.Diagnostics{diag.NewErrorDiagnostic("Cannot list volumes", fmt.Sprintf(
			"Listing the volumes on %s failed: %s. %s", l.Client.Where(), engine.Brief(err), engine.NextStep(err, l.Client.Where())))}
	}
	found := slices.DeleteFunc(all, func(v engine.Volume) bool { _, proven := provenVolume(v); return !proven })
	slices.SortFunc(found, func(a, b engine.Volume) int { return strings.Compare(a.Name, b.Name) })
	return found, nil
}
