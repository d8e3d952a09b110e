// Package provider implements the sandbox provider: its schema, its
// configuration, and the one engine client it hands to every resource.
package provider

import (
	"context"
	"fmt"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/container"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
)

// pingTimeout bounds the reachability check made when the provider is
// configured, so an endpoint that never answers fails instead of hanging.
const pingTimeout = 15 * time.Second

var _ provider.Provider = &sandboxProvider{}

// New returns a constructor for the provider at the given version.
func New(version string) func() provider.Provider {
	return func() provider.Provider {
		return &sandboxProvider{version: version}
	}
}

// sandboxProvider is the sandbox provider.
type sandboxProvider struct {
	version string
}

// providerModel is the provider block.
type providerModel struct {
	Host types.String `tfsdk:"host"`
}

// Metadata names the provider.
func (p *sandboxProvider) Metadata(_ context.Context, _ provider.MetadataRequest, resp *provider.MetadataResponse) {
	resp.TypeName = "sandbox"
	resp.Version = p.version
}

// Schema describes the provider block.
func (p *sandboxProvider) Schema(_ context.Context, _ provider.SchemaRequest, resp *provider.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "Creates isolated code-execution sandboxes as Docker containers and " +
			"keeps their isolation through drift. See the `sandbox_container` resource.",
		Attributes: map[string]schema.Attribute{
			"host": schema.StringAttribute{
				MarkdownDescription: "Address of the Docker engine, for example `unix:///var/run/docker.sock` or " +
					"`tcp://127.0.0.1:2375`. Defaults to the `DOCKER_HOST` environment variable, then to the " +
					"local socket `unix:///var/run/docker.sock`. The provider checks that the engine answers when " +
					"it is configured. TCP is plain HTTP: TLS is not supported yet, and `DOCKER_TLS_VERIFY` or " +
					"`DOCKER_CERT_PATH` with a TCP address is an error rather than an unverified connection.",
				Optional: true,
			},
		},
	}
}

// Configure builds the engine client, checks that the engine answers, and
// hands the client to resources.
func (p *sandboxProvider) Configure(ctx context.Context, req provider.ConfigureRequest, resp *provider.ConfigureResponse) {
	var cfg providerModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &cfg)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if cfg.Host.IsUnknown() {
		resp.Diagnostics.AddAttributeError(path.Root("host"), "Unknown Docker engine address",
			"The provider's host must be known when Terraform plans. Set it to a literal value, a "+
				"variable, or leave it out to use DOCKER_HOST or the local socket.")
		return
	}

	client, err := engine.New(cfg.engineConfig())
	if err != nil {
		resp.Diagnostics.AddAttributeError(path.Root("host"), "Invalid Docker engine address", err.Error())
		return
	}

	pingCtx, cancel := context.WithTimeout(ctx, pingTimeout)
	defer cancel()
	if err := client.Ping(pingCtx); err != nil {
		_ = client.Close()
		resp.Diagnostics.AddError("Cannot reach the Docker engine", unreachableDetail(client.Endpoint(), err))
		return
	}

	resp.ResourceData = client
	resp.DataSourceData = client
}

// engineConfig turns the provider block into the engine client's
// configuration.
func (m providerModel) engineConfig() engine.Config {
	return engine.Config{Host: m.Host.ValueString()}
}

func unreachableDetail(endpoint string, err error) string {
	return fmt.Sprintf("The provider could not reach the Docker engine at %s:\n\n%v\n\n"+
		"Check that:\n"+
		"- the engine is running there (`docker -H %s info` answers; start it with `dockerd` or "+
		"`systemctl start docker`);\n"+
		"- this user may open the socket or address (for the local socket, run as root or as a member "+
		"of the docker group);\n"+
		"- the provider's `host` argument, or DOCKER_HOST when `host` is not set, names the right engine.",
		endpoint, err, endpoint)
}

// Resources lists the provider's resources.
func (p *sandboxProvider) Resources(_ context.Context) []func() resource.Resource {
	return []func() resource.Resource{
		container.NewResource,
	}
}

// DataSources lists the provider's data sources.
func (p *sandboxProvider) DataSources(_ context.Context) []func() datasource.DataSource {
	return nil
}
