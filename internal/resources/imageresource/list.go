package imageresource

import (
	"context"
	"errors"
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

// The list resource sandbox_image, for `terraform query`: the images a
// sandbox_image built whose name still tags them, by import's proof
// (BuiltByProvider: a child image or a commit, which inherit the labels,
// never qualifies), each with its identity and, with include_resource,
// the state an import gives. Images of the provider that cannot be adopted
// (earlier builds whose name moved on, images from before build records)
// are named in one warning, with the command that removes them.

var (
	_ list.ListResource              = &List{}
	_ list.ListResourceWithConfigure = &List{}
)

// NewList returns the sandbox_image list resource.
func NewList() list.ListResource { return &List{} }

// List finds the provider's images. It embeds the resource, whose import
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
	resp.TypeName = req.ProviderTypeName + "_image"
}

// ListResourceConfigSchema describes the list block's filters.
func (l *List) ListResourceConfigSchema(_ context.Context, _ list.ListResourceSchemaRequest, resp *list.ListResourceSchemaResponse) {
	resp.Schema = listschema.Schema{
		MarkdownDescription: "The images `sandbox_image` built on the engine, in a state or in none, that their " +
			"name still tags. Only images the provider can prove it built are listed: an image built `FROM` one, " +
			"or committed from a sandbox, inherits its labels and is never one. With `include_resource = true`, " +
			"`terraform query -generate-config-out` writes an import block and a resource block for each, from " +
			"the configuration the image records (its `name`, `context`, `dockerfile`, `target`, `build_args` " +
			"and `labels`); the plan after the import is empty while the context's files are unchanged. Earlier " +
			"builds whose name has moved on, and images built by a version of the provider that kept no such " +
			"record, are named in a warning with the command that removes them. On a cluster nothing is listed: " +
			"`sandbox_image` builds on Docker and Podman only.",
		Attributes: listing.FilterAttributes("images"),
	}
}

// found is an image of the provider: adoptable with its model, or not
// with the reason.
type found struct {
	img   engine.Image
	model resourceModel
	why   string // empty when adoptable
}

// List lists the engine's images once, filtered by the engine, and
// inspects each it returns, in name order.
func (l *List) List(ctx context.Context, req list.ListRequest, stream *list.ListResultsStream) {
	if l.images == nil {
		stream.Results = list.ListResultsStreamDiagnostics(diag.Diagnostics{diag.NewWarningDiagnostic(
			"No images on a cluster", fmt.Sprintf("%s builds no images: sandbox_image builds on Docker and "+
				"Podman only, so there is nothing to list. Query a provider configured for a Docker engine or "+
				"Podman to list images.", l.Client.Where()))})
		return
	}
	var cfg listModel
	if diags := values.GetConfig(ctx, req.Config, &cfg); diags.HasError() {
		stream.Results = list.ListResultsStreamDiagnostics(diags)
		return
	}
	all, diags := l.listed(ctx, cfg)
	if diags.HasError() {
		stream.Results = list.ListResultsStreamDiagnostics(diags)
		return
	}
	adoptable := slices.DeleteFunc(slices.Clone(all), func(f found) bool { return f.why != "" })
	results := listing.Stream(req, adoptable, func(f found) list.ListResult {
		res := req.NewListResult(ctx)
		res.DisplayName = f.model.Name.ValueString() // one image each: the one it tags
		res.Diagnostics.Append(identity.Set(ctx, res.Identity, map[string]string{identity.ID: f.img.ID})...)
		if req.IncludeResource {
			res.Diagnostics.Append(values.SetResource(ctx, res.Resource, f.model)...)
		}
		return res
	})
	stream.Results = func(push func(list.ListResult) bool) {
		for res := range results {
			if !push(res) {
				return
			}
		}
		if w := l.leftOut(all); w != nil {
			push(list.ListResult{Diagnostics: diag.Diagnostics{w}})
		}
	}
}

// listed are the provider's images the filters keep, by name, then ID.
func (l *List) listed(ctx context.Context, cfg listModel) ([]found, diag.Diagnostics) {
	labels, diags := cfg.EngineLabels(ctx, resourceType)
	if diags.HasError() {
		return nil, diags
	}
	ids, err := l.images.ImagesLabelled(ctx, labels)
	if err != nil {
		return nil, diag.Diagnostics{diag.NewErrorDiagnostic("Cannot list images", fmt.Sprintf(
			"Listing the images on the Docker engine at %s failed: %s. %s", l.Client.Endpoint(), engine.Brief(err), engine.NextStep(err, l.Client.Where())))}
	}
	var out []found
	for _, id := range ids {
		img, proven, err := l.provenImage(ctx, id)
		switch {
		case engine.IsNotFound(err):
			continue
		case err != nil:
			return nil, diag.Diagnostics{diag.NewErrorDiagnostic("Cannot read images", fmt.Sprintf(
				"Inspecting the image %s on the Docker engine at %s failed: %s. %s", engine.ShortID(id),
				l.Client.Endpoint(), engine.Brief(err), engine.NextStep(err, l.Client.Where())))}
		case !proven:
			continue
		}
		f := found{img: img}
		f.model, err = importedModel(img)
		name := f.model.Name.ValueString()
		switch {
		case errors.Is(err, errNoRecord):
			f.why, name = "built by an earlier version of the provider, which kept no record to import it by", strings.Join(img.RepoTags, ", ")
		case err != nil:
			f.why = err.Error()
		case !f.model.Tagged.ValueBool():
			f.why = "an earlier build of " + tagged(name) + ", which now names another image or none"
		}
		if !strings.HasPrefix(name, cfg.NamePrefix.ValueString()) {
			continue
		}
		out = append(out, f)
	}
	slices.SortFunc(out, func(a, b found) int {
		return strings.Compare(a.model.Name.ValueString()+a.img.ID, b.model.Name.ValueString()+b.img.ID)
	})
	return out, nil
}

// leftOut is the warning that names the provider's images the list could
// not offer for import, or nil.
func (l *List) leftOut(all []found) diag.Diagnostic {
	var lines, ids []string
	for _, f := range all {
		if f.why != "" {
			lines = append(lines, fmt.Sprintf("  %s: %s", engine.ShortID(f.img.ID), f.why))
			ids = append(ids, engine.ShortID(f.img.ID))
		}
	}
	if len(lines) == 0 {
		return nil
	}
	return diag.NewWarningDiagnostic("Images of this provider that cannot be imported", fmt.Sprintf(
		"These images on the Docker engine at %s were built by a sandbox_image, but are not listed for import:\n%s\n"+
			"Where a state still holds one (as image_id), apply that configuration instead: it puts the name "+
			"back on it. Once no sandbox runs the others, remove them with: docker -H %s rmi %s", l.Client.Endpoint(), strings.Join(lines, "\n"),
		l.Client.Endpoint(), strings.Join(ids, " ")))
}
