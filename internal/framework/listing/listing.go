// Package listing is what the list resources (terraform query) share:
// their name and label filters, the stream of their results within the
// query's limit, and the listing of sandboxes they share with the
// sandbox_containers data source.
package listing

import (
	"context"
	"fmt"
	"iter"
	"maps"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/list"
	listschema "github.com/hashicorp/terraform-plugin-framework/list/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
)

// Filters are the filters every list block has: a name prefix and labels.
// A list resource's configuration model embeds them.
type Filters struct {
	NamePrefix types.String `tfsdk:"name_prefix"`
	Labels     types.Map    `tfsdk:"labels"`
}

// FilterAttributes are the schema of Filters, for a list of things
// ("sandboxes").
func FilterAttributes(things string) map[string]listschema.Attribute {
	return map[string]listschema.Attribute{
		"name_prefix": listschema.StringAttribute{
			MarkdownDescription: "Only " + things + " whose name starts with this.",
			Optional:            true,
		},
		"labels": listschema.MapAttribute{
			MarkdownDescription: "Only " + things + " that carry every one of these labels, with these values.",
			ElementType:         types.StringType,
			Optional:            true,
		},
	}
}

// EngineLabels are the labels the list block filters by, and the
// provider's label of the resource type it lists, for the engine to
// filter by.
func (f Filters) EngineLabels(ctx context.Context, resourceType string) (map[string]string, diag.Diagnostics) {
	var labels map[string]string
	if diags := f.Labels.ElementsAs(ctx, &labels, false); diags.HasError() {
		return nil, diags
	}
	// A null map reads as nil.
	labels = maps.Clone(labels)
	if labels == nil {
		labels = map[string]string{}
	}
	labels[engine.LabelResourceType] = resourceType
	return labels, nil
}

// Stream gives the result of each item in order, at most the query's
// limit of them, and stops when Terraform has enough.
func Stream[T any](req list.ListRequest, items []T, result func(T) list.ListResult) iter.Seq[list.ListResult] {
	return func(push func(list.ListResult) bool) {
		for i, item := range items {
			if req.Limit > 0 && int64(i) >= req.Limit {
				return
			}
			if !push(result(item)) {
				return
			}
		}
	}
}

// Sandboxes lists the provider's containers once, filtered by the engine
// by their labels and name, and inspects each one it returns, a few at a
// time (engine.InspectAll), leaving out those gone meanwhile.
func Sandboxes(ctx context.Context, backend engine.Engine, labels map[string]string, namePrefix string) ([]engine.Sandbox, diag.Diagnostics) {
	ids, err := backend.ManagedContainers(ctx, labels, namePrefix)
	if err != nil {
		return nil, diag.Diagnostics{diag.NewErrorDiagnostic("Cannot list sandboxes", fmt.Sprintf(
			"Listing the containers on %s failed: %s. %s", backend.Where(), engine.Brief(err),
			engine.NextStep(err, backend.Where())))}
	}
	found, err := engine.InspectAll(ctx, backend.InspectContainer, ids)
	if err != nil {
		return nil, diag.Diagnostics{diag.NewErrorDiagnostic("Cannot read sandboxes", fmt.Sprintf(
			"Inspecting the containers on %s failed: %s. %s", backend.Where(), engine.Brief(err),
			engine.NextStep(err, backend.Where())))}
	}
	return found, renewed(ctx, backend, found)
}

// renewed gives the sandboxes found the expiries that something beside the
// backend holds (engine.ExpiryLister: a Docker engine's or Podman's
// warden, which keeps renewals their labels cannot).
func renewed(ctx context.Context, backend engine.Engine, found []engine.Sandbox) diag.Diagnostics {
	lister, ok := backend.(engine.ExpiryLister)
	if !ok || len(found) == 0 {
		return nil
	}
	held, err := lister.Expiries(ctx)
	if err != nil {
		return diag.Diagnostics{diag.NewErrorDiagnostic("Cannot read sandboxes' expiries", fmt.Sprintf(
			"Reading the expiries the provider's expiry warden holds on %s failed: %s. %s", backend.Where(),
			engine.Brief(err), engine.NextStep(err, backend.Where())))}
	}
	for i := range found {
		if at, ok := held[found[i].ID]; ok {
			found[i].ExpiresAt = at
		}
	}
	return nil
}
