// Package builds records, in a resource's private state, the intermediate
// images that the build of its image made (engine.Built): the engine
// keeps them when the image is removed, since no removal prunes an image's
// untagged parents (which may be images the provider did not make), so the
// resource removes them with its image, and only them.
package builds

import (
	"context"
	"encoding/json"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/framework/values"
)

// key is the private state's key of the intermediates.
const key = "build_intermediates"

// Record records the intermediate images of built, replacing any recorded
// before (none for a resource whose image was not built).
func Record(ctx context.Context, w values.PrivateWriter, built engine.Built) diag.Diagnostics {
	if len(built.Intermediates) == 0 {
		return w.SetKey(ctx, key, nil)
	}
	raw, err := json.Marshal(built.Intermediates)
	if err != nil {
		return diag.Diagnostics{diag.NewErrorDiagnostic("Cannot record the build's intermediate images",
			err.Error()+". This is a bug in the provider: please report it.")}
	}
	return w.SetKey(ctx, key, raw)
}

// Recorded is the build of the image id, with the intermediate images
// recorded for it: none for an image imported, or built before they were
// recorded, or a record that cannot be read (the engine keeps them: they
// are left, never guessed).
func Recorded(ctx context.Context, r values.PrivateReader, id string) engine.Built {
	built := engine.Built{ID: id}
	raw, diags := r.GetKey(ctx, key)
	if diags.HasError() || len(raw) == 0 || json.Unmarshal(raw, &built.Intermediates) != nil {
		built.Intermediates = nil
	}
	return built
}
