package containerresource

import (
	"context"
	"encoding/json"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/framework/values"
)

// defaultsKey is the private state key under which a sandbox keeps what
// its engine added on its own when it was created (engine.Defaults), so
// that observing does not take an engine's defaults for the user's
// settings: Podman, for example, gives every container a pids limit and
// ulimits. A change away from them is still drift.
const defaultsKey = "engine_defaults"

// readDefaults returns the engine's defaults recorded for a sandbox; a
// sandbox created before they were recorded, or imported, has none.
func readDefaults(ctx context.Context, p values.PrivateReader) (engine.Defaults, diag.Diagnostics) {
	var d engine.Defaults
	raw, diags := p.GetKey(ctx, defaultsKey)
	if len(raw) == 0 || diags.HasError() {
		return d, diags
	}
	if err := json.Unmarshal(raw, &d); err != nil {
		diags.AddWarning("Unreadable engine defaults in private state", "The engine defaults recorded "+
			"for this sandbox cannot be read ("+err.Error()+"); the engine's defaults may show as changes. "+
			"Replace the sandbox (terraform apply -replace) to record them again.")
	}
	return d, diags
}

func writeDefaults(ctx context.Context, p values.PrivateWriter, d engine.Defaults) diag.Diagnostics {
	raw, err := json.Marshal(d)
	if err != nil {
		var diags diag.Diagnostics
		diags.AddError("Cannot record engine defaults", err.Error()+". This is a bug in the provider: please report it.")
		return diags
	}
	return p.SetKey(ctx, defaultsKey, raw)
}
