package main

import (
	"context"
	"sync/atomic"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/docker/docker/client"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/tfsandbox/terraform-provider-sandbox/bench/internal/floorcalls"
	sandbox "github.com/tfsandbox/terraform-provider-sandbox/internal/provider"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/resources/containerresource"
)

// frameworkServer serves the provider's and sandbox_container's schemas,
// with their validators, plan modifiers and defaults, through
// terraform-plugin-framework, and does nothing else: no Configure, no
// ModifyPlan, no ValidateConfig. Against the protocol-only server it shows
// what the framework adds; against the provider, what the provider's own
// work adds. With api (the engine layer), its CRUD also makes bench/floor's
// engine calls, and the state records the container's ID.
func frameworkServer(api *client.Client) tfprotov6.ProviderServer {
	return providerserver.NewProtocol6(&noopProvider{real: sandbox.New("bench")(), api: api})()
}

type noopProvider struct {
	real provider.Provider
	api  *client.Client
}

func (p *noopProvider) Metadata(ctx context.Context, req provider.MetadataRequest, resp *provider.MetadataResponse) {
	p.real.Metadata(ctx, req, resp)
}

func (p *noopProvider) Schema(ctx context.Context, req provider.SchemaRequest, resp *provider.SchemaResponse) {
	p.real.Schema(ctx, req, resp)
}

func (p *noopProvider) Configure(context.Context, provider.ConfigureRequest, *provider.ConfigureResponse) {
}

func (p *noopProvider) Resources(context.Context) []func() resource.Resource {
	return []func() resource.Resource{func() resource.Resource {
		return &noopResource{real: containerresource.New(), api: p.api}
	}}
}

func (p *noopProvider) DataSources(context.Context) []func() datasource.DataSource { return nil }

type noopResource struct {
	real resource.Resource
	api  *client.Client // nil: no engine calls
}

// tokens numbers the engine layer's creates, for the create-token label.
var tokens atomic.Int64

func (r *noopResource) Metadata(ctx context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	r.real.Metadata(ctx, req, resp)
}

func (r *noopResource) Schema(ctx context.Context, req resource.SchemaRequest, resp *resource.SchemaResponse) {
	r.real.Schema(ctx, req, resp)
}

// Create records the plan, its unknowns null and id = name; the engine
// layer first creates and starts the container and records its ID, and
// records nothing when the engine made none.
func (r *noopResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var name types.String
	if resp.Diagnostics.Append(req.Plan.GetAttribute(ctx, path.Root("name"), &name)...); resp.Diagnostics.HasError() {
		return
	}
	id := name
	if r.api != nil {
		var image types.String
		if resp.Diagnostics.Append(req.Plan.GetAttribute(ctx, path.Root("image"), &image)...); resp.Diagnostics.HasError() {
			return
		}
		created, err := floorcalls.CreateAndStart(ctx, r.api, image.ValueString(), name.ValueString(), int(tokens.Add(1)))
		if err != nil {
			resp.Diagnostics.AddError("Engine layer: create and start failed", err.Error())
		}
		if created == "" {
			return
		}
		id = types.StringValue(created)
	}
	resp.State.Raw = nullUnknowns(req.Plan.Raw)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), id)...)
}

// Read leaves the state as it is; the engine layer inspects the container
// first, and forgets it when it is gone.
func (r *noopResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	if r.api == nil {
		return
	}
	var id types.String
	if resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root("id"), &id)...); resp.Diagnostics.HasError() {
		return
	}
	switch _, err := floorcalls.Inspect(ctx, r.api, id.ValueString()); {
	case cerrdefs.IsNotFound(err):
		resp.State.RemoveResource(ctx)
	case err != nil:
		resp.Diagnostics.AddError("Engine layer: inspect failed", err.Error())
	}
}

func (r *noopResource) Update(_ context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	resp.State.Raw = nullUnknowns(req.Plan.Raw)
}

// Delete forgets; the engine layer first force-removes the container.
func (r *noopResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	if r.api == nil {
		return
	}
	var id types.String
	if resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root("id"), &id)...); resp.Diagnostics.HasError() {
		return
	}
	if err := floorcalls.Remove(ctx, r.api, id.ValueString()); err != nil && !cerrdefs.IsNotFound(err) {
		resp.Diagnostics.AddError("Engine layer: remove failed", err.Error())
	}
}

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
