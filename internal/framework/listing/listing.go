// Package listing is what the list resources (terraform query) share:
// their label filter, and the stream of their results within the query's
// limit.
package listing

import (
	"context"
	"iter"
	"maps"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/list"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
)

// Labels are the labels a list block filters by, and the provider's label
// of the resource type it lists, for the engine to filter by.
func Labels(ctx context.Context, configured types.Map, resourceType string) (map[string]string, diag.Diagnostics) {
	var labels map[string]string
	if diags := configured.ElementsAs(ctx, &labels, false); diags.HasError() {
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
