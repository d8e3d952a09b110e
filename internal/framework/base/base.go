// Package base is what every resource, data source, ephemeral resource and action
// of the provider embeds: the engine client the provider built in its own
// Configure (and, for resources, what it knows of the CLI), handed to each
// of them by theirs. A resource's methods reach
// the engine through Client; before the provider is configured (validation
// without a provider block) Client is nil.
package base

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/action"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/ephemeral"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/framework/cli"
)

// ProviderData is what the provider's Configure hands every resource,
// data source, ephemeral resource, list resource and action.
type ProviderData struct {
	Engine engine.Engine
	CLI    cli.CLI // the CLI that configured the provider
	// RequireIsolation is the provider's require_isolation: every
	// sandbox_container must set network_mode = "none".
	RequireIsolation bool
}

// Resource is embedded by every managed resource.
type Resource struct {
	Client engine.Engine
	// CLI is the CLI that runs the provider, for what it cannot do.
	CLI cli.CLI
	// RequireIsolation is the provider's isolation guard.
	RequireIsolation bool
}

// Configure takes the provider's engine client, what it knows of the CLI,
// and its isolation guard.
func (b *Resource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	data := fromProviderData(req.ProviderData, &resp.Diagnostics)
	b.Client, b.CLI, b.RequireIsolation = data.Engine, data.CLI, data.RequireIsolation
}

// DataSource is embedded by every data source.
type DataSource struct {
	Client engine.Engine
}

// Configure takes the provider's engine client.
func (b *DataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	b.Client = fromProviderData(req.ProviderData, &resp.Diagnostics).Engine
}

// EphemeralResource is embedded by every ephemeral resource.
type EphemeralResource struct {
	Client engine.Engine
}

// Configure takes the provider's engine client.
func (b *EphemeralResource) Configure(_ context.Context, req ephemeral.ConfigureRequest, resp *ephemeral.ConfigureResponse) {
	b.Client = fromProviderData(req.ProviderData, &resp.Diagnostics).Engine
}

// Action is embedded by every action.
type Action struct {
	Client engine.Engine
}

// Configure takes the provider's engine client.
func (b *Action) Configure(_ context.Context, req action.ConfigureRequest, resp *action.ConfigureResponse) {
	b.Client = fromProviderData(req.ProviderData, &resp.Diagnostics).Engine
}

// fromProviderData is what the provider hands over: empty before the
// provider is configured.
func fromProviderData(data any, diags *diag.Diagnostics) ProviderData {
	if data == nil {
		return ProviderData{}
	}
	pd, ok := data.(ProviderData)
	if !ok {
		diags.AddError("Unexpected provider data", fmt.Sprintf(
			"Expected base.ProviderData, got %T. This is a bug in the provider: please report it.", data))
	}
	return pd
}

// Requires refuses a resource or data source that needs an ability A
// (an interface of package engine, such as engine.Images) which the
// engine the provider is configured for does not have: only the Docker
// engine and Podman have them today, so the message says to place it
// there; fix says what to do instead. Nil client (validation before the
// provider is configured) passes.
func Requires[A any](client engine.Engine, typeName, fix string) diag.Diagnostics {
	if _, ok := client.(A); ok || client == nil {
		return nil
	}
	return diag.Diagnostics{diag.NewErrorDiagnostic("Needs a Docker engine", fmt.Sprintf(
		"%s works on a Docker engine (or Podman), and the provider is configured for %s. %s",
		typeName, client.Where(), fix))}
}

// Ability is the engine's ability A (an interface of package engine), or
// an error that names what needed it and the engine: the plan refuses or
// replaces what needs an ability the engine lacks, so apply meets the
// error only through a bug in the provider.
func Ability[A any](client engine.Engine, what string) (A, error) {
	a, ok := client.(A)
	if !ok {
		return a, fmt.Errorf("%s is not possible on %s, which the plan should have said; this is a bug in "+
			"the provider: please report it", what, client.Where())
	}
	return a, nil
}

// Refusals are a backend's refusals (engine.Rules) as errors, each on its
// attribute, or on its map entry when it names one.
func Refusals(refusals []engine.Refusal) diag.Diagnostics {
	var diags diag.Diagnostics
	for _, r := range refusals {
		at := path.Root(r.Attribute)
		if r.Key != "" {
			at = at.AtMapKey(r.Key)
		}
		if r.Field != "" {
			at = at.AtName(r.Field)
		}
		diags.AddAttributeError(at, r.Summary, r.Detail)
	}
	return diags
}
