package containerresource

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/list"
	listschema "github.com/hashicorp/terraform-plugin-framework/list/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/framework/identity"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/framework/listing"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/framework/values"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/isolation"
)

// The list resource sandbox_container, for `terraform query` (Terraform
// 1.14 and later): the sandboxes the provider can prove it made, whatever
// state holds them or none, each with its identity and, with
// include_resource, the state an import of it gives. The proof is the
// audit data source's and import's: the ownership label and a create token
// the sandbox's image does not carry (labels an image passes on prove
// nothing).

var (
	_ list.ListResource              = &List{}
	_ list.ListResourceWithConfigure = &List{}
)

// NewList returns the sandbox_container list resource.
func NewList() list.ListResource { return &List{} }

// List finds the provider's sandboxes on the engine or cluster. It embeds
// the resource, whose import it shares.
type List struct {
	Resource
}

// listModel is the list block's configuration.
type listModel struct {
	listing.Filters
	Isolated types.Bool `tfsdk:"isolated"`
	Expired  types.Bool `tfsdk:"expired"`
}

// Metadata names the list resource as the resource.
func (l *List) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_container"
}

// ListResourceConfigSchema describes the list block's filters.
func (l *List) ListResourceConfigSchema(_ context.Context, _ list.ListResourceSchemaRequest, resp *list.ListResourceSchemaResponse) {
	resp.Schema = listschema.Schema{
		MarkdownDescription: "The sandboxes this provider made on the engine or cluster, in a state or in none: " +
			"what a killed apply, a lost state file or a pipeline left behind. Only sandboxes the provider can " +
			"prove it made are listed (its ownership label and a create token their image does not carry), so a " +
			"container that inherited the provider's labels from an image is never one. Each comes with its " +
			"identity; with `include_resource = true`, `terraform query -generate-config-out` writes an import " +
			"block and a resource block for each. It holds no secret: `env` is sensitive, which Terraform writes as " +
			"`null`, and write-only values (`env_wo`) cannot be read back; each result warns when a sandbox has " +
			"either, to be filled in before the import is applied.",
		Attributes: listing.FilterAttributes("sandboxes"),
	}
	resp.Schema.Attributes["isolated"] = listschema.BoolAttribute{
		MarkdownDescription: "`true`: only sandboxes still isolated (the verdict `sandbox_container` uses); " +
			"`false`: only those that lost their isolation. Unset: both.",
		Optional: true,
	}
	resp.Schema.Attributes["expired"] = listschema.BoolAttribute{
		MarkdownDescription: "`true`: only sandboxes that reached their expiry (`expires_after`, `expires_at`) and " +
			"were stopped by it, such as those of a CI pipeline killed before its destroy; `false`: only the " +
			"others. Unset: both.",
		Optional: true,
	}
}

// List lists the engine's containers once, filtered by the engine, and
// inspects each one it returns, a few at a time; it gives them in name
// order.
func (l *List) List(ctx context.Context, req list.ListRequest, stream *list.ListResultsStream) {
	var cfg listModel
	if diags := values.GetConfig(ctx, req.Config, &cfg); diags.HasError() {
		stream.Results = list.ListResultsStreamDiagnostics(diags)
		return
	}
	found, diags := l.listed(ctx, cfg)
	if diags.HasError() {
		stream.Results = list.ListResultsStreamDiagnostics(diags)
		return
	}
	stream.Results = listing.Stream(req, found, func(c engine.Sandbox) list.ListResult { return l.result(ctx, req, c) })
}

// listed are the provider's sandboxes the filters keep, by name.
func (l *List) listed(ctx context.Context, cfg listModel) ([]engine.Sandbox, diag.Diagnostics) {
	labels, diags := cfg.EngineLabels(ctx, resourceType)
	if diags.HasError() {
		return nil, diags
	}
	all, diags := listing.Sandboxes(ctx, l.Client, labels, cfg.NamePrefix.ValueString())
	if diags.HasError() {
		return nil, diags
	}
	now := time.Now()
	found := slices.DeleteFunc(all, func(c engine.Sandbox) bool {
		return (!cfg.Isolated.IsNull() && isolation.Assess(c.Network).Isolated != cfg.Isolated.ValueBool()) ||
			(!cfg.Expired.IsNull() && engine.Expired(c, now) != cfg.Expired.ValueBool())
	})
	slices.SortFunc(found, func(a, b engine.Sandbox) int { return strings.Compare(a.Name, b.Name) })
	return found, nil
}

// result is one sandbox found: its identity, and with include_resource the
// state an import gives.
func (l *List) result(ctx context.Context, req list.ListRequest, c engine.Sandbox) list.ListResult {
	res := req.NewListResult(ctx)
	res.DisplayName = strings.TrimPrefix(c.Name, "/")
	res.Diagnostics.Append(identity.Set(ctx, res.Identity, l.identityOf(c.ID))...)
	if !req.IncludeResource {
		return res
	}
	m, _, diags := l.modelOf(ctx, c)
	if res.Diagnostics.Append(diags...); res.Diagnostics.HasError() {
		return res
	}
	if !m.EnvWOVersion.IsNull() || !m.Env.IsNull() {
		res.Diagnostics.AddWarning("Secret values not in the generated configuration", fmt.Sprintf("The "+
			"sandbox %q has env or env_wo values. Terraform writes a sensitive attribute (env) as null in the "+
			"configuration it generates, and no engine gives write-only values (env_wo) back. Fill in env, and "+
			"env_wo with the values it had, before applying the import, or the plan replaces the sandbox "+
			"without them.", res.DisplayName))
	}
	res.Diagnostics.Append(values.SetResource(ctx, res.Resource, m)...)
	return res
}
