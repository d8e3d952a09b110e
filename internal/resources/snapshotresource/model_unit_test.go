package snapshotresource

import (
	"context"
	"testing"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/framework/values"
)

// The resource reads and writes its whole model with values.GetState and
// SetState, which need a model that matches the schema field for field.
func TestModelMatchesSchema(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	var m resourceModel
	if diags := values.ModelMatches(ctx, resourceSchema(ctx).Type(), &m); diags.HasError() {
		t.Fatal(diags)
	}
}
