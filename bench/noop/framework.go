package main

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	sandbox "github.com/tfsandbox/terraform-provider-sandbox/internal/provider"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/resources/containerresource"
)

// frameworkServer serves the provider's and sandbox_container's schemas,
// with their validators, plan modifiers and defaults, through
// terraform-plugin-framework, and does nothing else: no engine, no
// Configure, no ModifyPlan, no ValidateConfig. Against the protocol-only
// server it shows what the framework adds; against the provider, what the
// provider's own work adds.
func frameworkServer() tfprotov6.ProviderServer {
	return providerserver.NewProtocol6(&noopProvider{real: sandbox.New("bench")()})()
}

type noopProvider struct{ real provider.Provider }

func (p *noopProvider) Metadata(ctx context.Context, req provider.MetadataRequest, resp *provider.MetadataResponse) {
	p.real.Metadata(ctx, req, resp)
}

func (p *noopProvider) Schema(ctx context.Context, req provider.SchemaRequest, resp *provider.SchemaResponse) {
	p.real.Schema(ctx, req, resp)
}

func (p *noopProvider) Configure(context.Context, provider.ConfigureRequest, *provider.ConfigureResponse) {
}

func (p *noopProvider) Resources(context.Context) []func() resource.Resource {
	return []func() resource.Resource{func() resource.Resource { return &noopResource{real: containerresource.New()} }}
}

func (p *noopProvider) DataSources(context.Context) []func() datasource.DataSource { return nil }

type noopResource struct{ real resource.Resource }

func (r *noopResource) Metadata(ctx context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	r.real.Metadata(ctx, req, resp)
}

func (r *noopResource) Schema(ctx context.Context, req resource.SchemaRequest, resp *resource.SchemaResponse) {
	r.real.Schema(ctx, req, resp)
}

// Create records the plan, its unknowns null and id = name.
func (r *noopResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	resp.State.Raw = nullUnknowns(req.Plan.Raw)
	var name types.String
	resp.Diagnostics.Append(req.Plan.GetAttribute(ctx, path.Root("name"), &name)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), name)...)
}

// Read leaves the state as it is.
func (r *noopResource) Read(context.Context, resource.ReadRequest, *resource.ReadResponse) {}

func (r *noopResource) Update(_ context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	resp.State.Raw = nullUnknowns(req.Plan.Raw)
}

func (r *noopResource) Delete(context.Context, resource.DeleteRequest, *resource.DeleteResponse) {}

// nullUnknowns makes every unknown value in v null, as a provider that
// computes nothing records it; both layers apply with it.
func nullUnknowns(v tftypes.Value) tftypes.Value {
	out, _ := tftypes.Transform(v, func(_ *tftypes.AttributePath, v tftypes.Value) (tftypes.Value, error) {
		if !v.IsKnown() {
			return tftypes.NewValue(v.Type(), nil), nil
		}
		return v, nil
	})
	return out
}
