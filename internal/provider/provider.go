// Package provider implements the sandbox provider: its schema, its
// configuration, and the one engine client it hands to every resource.
package provider

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/action"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/ephemeral"
	"github.com/hashicorp/terraform-plugin-framework/list"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine/docker"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/framework/base"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/framework/cli"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/resources/containerresource"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/resources/containersdatasource"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/resources/execresource"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/resources/filedatasource"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/resources/imageresource"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/resources/poolclaimsdatasource"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/resources/poolresource"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/resources/snapshotresource"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/resources/volumeresource"
)

// pingTimeout bounds the reachability check made when the provider is
// configured, so an endpoint that never answers fails instead of hanging.
const pingTimeout = 15 * time.Second

var (
	_ provider.Provider                       = &sandboxProvider{}
	_ provider.ProviderWithEphemeralResources = &sandboxProvider{}
	_ provider.ProviderWithListResources      = &sandboxProvider{}
	_ provider.ProviderWithActions            = &sandboxProvider{}
)

// New returns a constructor for the provider at the given version.
func New(version string) func() provider.Provider {
	return func() provider.Provider {
		return &sandboxProvider{version: version}
	}
}

// Close ends what the provider's backends keep for the whole process (the
// SSH tunnels to remote Docker engines), for its exit.
func Close() { docker.CloseTunnels() }

// sandboxProvider is the sandbox provider.
type sandboxProvider struct {
	version string
}

// providerModel is the provider block.
type providerModel struct {
	Host     types.String `tfsdk:"host"`
	CertPath types.String `tfsdk:"cert_path"`
	CAPEM    types.String `tfsdk:"ca_pem"`
	CertPEM  types.String `tfsdk:"cert_pem"`
	KeyPEM   types.String `tfsdk:"key_pem"`
	SSHOpts  types.List   `tfsdk:"ssh_opts"`
	Context  types.String `tfsdk:"context"`
	// EngineSocket is where the expiry warden finds the engine's socket.
	EngineSocket types.String `tfsdk:"engine_socket"`
	// Kubernetes puts the sandboxes on a cluster instead (cluster.go).
	Kubernetes types.Object `tfsdk:"kubernetes"`
	// RequireIsolation is the provider-wide isolation guard.
	RequireIsolation types.Bool `tfsdk:"require_isolation"`
	// RegistryAuth are private registries' credentials (registries.go).
	RegistryAuth types.List `tfsdk:"registry_auth"`
}

// Metadata names the provider.
func (p *sandboxProvider) Metadata(_ context.Context, _ provider.MetadataRequest, resp *provider.MetadataResponse) {
	resp.TypeName = "sandbox"
	resp.Version = p.version
}

// Schema describes the provider block.
func (p *sandboxProvider) Schema(_ context.Context, _ provider.SchemaRequest, resp *provider.SchemaResponse) { //nolint:funlen // a schema literal
	resp.Schema = schema.Schema{
		MarkdownDescription: "Creates isolated code-execution sandboxes as Docker containers, or as pods on a " +
			"Kubernetes cluster (`kubernetes`), and keeps their isolation through drift. See the " +
			"`sandbox_container` resource.",
		Attributes: map[string]schema.Attribute{
			"host": schema.StringAttribute{
				MarkdownDescription: "Address of the engine (Docker, or Podman's Docker-compatible API): " +
					"`unix:///path/to/engine.sock`, `tcp://HOST:PORT` or `ssh://[USER@]HOST[:PORT][/REMOTE/SOCKET]`. " +
					"Defaults to the docker CLI's choice: `DOCKER_CONTEXT`, `DOCKER_HOST`, the current docker " +
					"context, then `unix:///var/run/docker.sock` (see `context`). " +
					"An `ssh://` host is reached through one OpenSSH client process that forwards the remote " +
					"engine's socket (default `/var/run/docker.sock`; name another in the URL's path, for example " +
					"`ssh://builder@build-1/run/podman/podman.sock`), using your `~/.ssh/config`, `known_hosts`, " +
					"identities and `ssh-agent`. The provider checks that the engine answers when it is " +
					"configured, and fails within about 15 seconds when it does not.",
				Optional: true,
			},
			"context": schema.StringAttribute{
				MarkdownDescription: "Name of a docker CLI context (`docker context ls`) whose Docker endpoint and " +
					"TLS material to use, read from the docker CLI's context store (`DOCKER_CONFIG`, or " +
					"`~/.docker`). Conflicts with `host`. Without `host` and `context`, the provider follows the " +
					"docker CLI: `DOCKER_CONTEXT`, then `DOCKER_HOST`, then the CLI's current context " +
					"(`docker context use`), then the local socket. A context that skips TLS verification is " +
					"refused.",
				Optional: true,
				Validators: []validator.String{
					stringvalidator.LengthAtLeast(1),
					stringvalidator.ConflictsWith(path.MatchRoot("host")),
				},
			},
			"cert_path": schema.StringAttribute{
				MarkdownDescription: "Directory holding `ca.pem` (the CA that signed the engine's certificate), " +
					"`cert.pem` and `key.pem` (this client's certificate and key), the layout of " +
					"`DOCKER_CERT_PATH`, for a `tcp://` host. Defaults to `DOCKER_CERT_PATH`, or to `~/.docker` " +
					"when `DOCKER_TLS_VERIFY` is set. The engine's certificate is always verified: without " +
					"`ca.pem`, against the system's CAs. Conflicts with `ca_pem`, `cert_pem` and `key_pem`.",
				Optional: true,
				Validators: []validator.String{
					stringvalidator.LengthAtLeast(1),
					stringvalidator.ConflictsWith(path.MatchRoot("ca_pem"), path.MatchRoot("cert_pem"),
						path.MatchRoot("key_pem")),
				},
			},
			"ca_pem": schema.StringAttribute{
				MarkdownDescription: "PEM of the CA that signed the engine's certificate, for a `tcp://` host " +
					"(instead of `cert_path`). Without it the system's CAs verify the engine.",
				Optional:   true,
				Sensitive:  true,
				Validators: []validator.String{stringvalidator.LengthAtLeast(1)},
			},
			"cert_pem": schema.StringAttribute{
				MarkdownDescription: "PEM of this client's certificate, which an engine started with " +
					"`--tlsverify` requires (instead of `cert_path`). Requires `key_pem`.",
				Optional:  true,
				Sensitive: true,
				Validators: []validator.String{
					stringvalidator.LengthAtLeast(1),
					stringvalidator.AlsoRequires(path.MatchRoot("key_pem")),
				},
			},
			"key_pem": schema.StringAttribute{
				MarkdownDescription: "PEM of the private key of `cert_pem`. Requires `cert_pem`.",
				Optional:            true,
				Sensitive:           true,
				Validators: []validator.String{
					stringvalidator.LengthAtLeast(1),
					stringvalidator.AlsoRequires(path.MatchRoot("cert_pem")),
				},
			},
			"ssh_opts": schema.ListAttribute{
				MarkdownDescription: "Extra arguments for the `ssh` client of an `ssh://` host, placed before the " +
					"provider's own options so that they take precedence, for example " +
					"`[\"-i\", \"/path/to/key\", \"-o\", \"UserKnownHostsFile=/path/to/known_hosts\"]`. The " +
					"provider runs ssh with `BatchMode=yes` and never weakens host key checking: an unknown or " +
					"changed host key is an error that says how to trust the host.",
				ElementType: types.StringType,
				Optional:    true,
				Validators:  []validator.List{listvalidator.SizeAtLeast(1)},
			},
			"engine_socket": schema.StringAttribute{
				MarkdownDescription: "The path of the engine's API socket on the engine's own host, which the " +
					"provider's expiry warden mounts to stop sandboxes at their `expires_after` or `expires_at` " +
					"(the sleep and expiry guide says how). Only needed where the provider cannot tell it: by " +
					"default, the path of a `unix://` host, the remote socket of an `ssh://` host, and for a " +
					"`tcp://` host `/var/run/docker.sock` (Docker) or `/run/podman/podman.sock` (Podman). The " +
					"`SANDBOX_ENGINE_SOCKET` environment variable gives it when this is unset. A wrong path is " +
					"an error at the first apply that gives a sandbox an expiry, naming this setting.",
				Optional:   true,
				Validators: []validator.String{stringvalidator.RegexMatches(regexp.MustCompile(`^/`), "must be an absolute path")},
			},
			"kubernetes":    clusterAttribute(),
			"registry_auth": registryAttribute(),
			"require_isolation": schema.BoolAttribute{
				MarkdownDescription: "When `true`, every `sandbox_container` of this provider configuration must " +
					"be isolated: one that leaves `network_mode` unset is refused at plan, naming this setting, " +
					"on a Docker engine, Podman and a cluster alike. A platform team sets it once, in the provider " +
					"block its teams' configurations use, so that a sandbox that forgets `network_mode = " +
					"\"none\"` never gets a network. Unset or `false`, an unset `network_mode` gives the engine's " +
					"default network on a Docker engine or Podman, and no network on a cluster (whose every " +
					"sandbox is isolated; the plan warns that `network_mode` is unset there). The isolation " +
					"guide has the whole table.",
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
	if checkKnown(cfg, resp); resp.Diagnostics.HasError() {
		return
	}
	regs, diags := registries(ctx, cfg.RegistryAuth)
	if resp.Diagnostics.Append(diags...); resp.Diagnostics.HasError() {
		return
	}
	data := base.ProviderData{CLI: cli.New(req.TerraformVersion), RequireIsolation: cfg.RequireIsolation.ValueBool()}
	if !cfg.Kubernetes.IsNull() {
		p.configureCluster(ctx, cfg, data, regs, resp)
		return
	}
	engineCfg, diags := cfg.engineConfig(ctx)
	engineCfg.Version = p.version
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}

	client, err := docker.New(engineCfg)
	if err != nil {
		resp.Diagnostics.AddAttributeError(path.Root("host"), "Invalid engine connection settings", fmt.Sprintf(
			"%v\n\nCorrect the provider block's connection settings (host, context, cert_path, ca_pem, cert_pem, "+
				"key_pem, ssh_opts), or the DOCKER_HOST, DOCKER_CONTEXT, DOCKER_CERT_PATH and DOCKER_TLS_VERIFY "+
				"variables they default to.", err))
		return
	}

	pingCtx, cancel := context.WithTimeout(ctx, pingTimeout)
	defer cancel()
	if err := client.Ping(pingCtx); err != nil {
		_ = client.Close()
		resp.Diagnostics.AddError("Cannot reach the Docker engine", unreachableDetail(client.Endpoint(), err))
		return
	}

	// The engine answered, so it has said whether it is Docker or Podman.
	client.UseRegistries(regs)
	data.Engine = client.Backend(pingCtx)
	handOver(resp, data)
}

// checkKnown refuses provider settings that are unknown at plan.
func checkKnown(cfg providerModel, resp *provider.ConfigureResponse) {
	for name, value := range cfg.settings() {
		if value.IsUnknown() {
			resp.Diagnostics.AddAttributeError(path.Root(name), "Unknown engine setting",
				fmt.Sprintf("The provider's %s must be known when Terraform plans: the provider connects to "+
					"the engine to plan. Set it from a literal, a variable or a data source that is known "+
					"before apply, or leave it out to use the Docker environment variables.", name))
		}
	}
	if cfg.RequireIsolation.IsUnknown() {
		resp.Diagnostics.AddAttributeError(path.Root("require_isolation"), "Unknown isolation guard",
			"The provider's require_isolation must be known when Terraform plans: the plan refuses a sandbox "+
				"it does not allow. Set it from a literal or a variable.")
	}
	if cfg.RegistryAuth.IsUnknown() {
		resp.Diagnostics.AddAttributeError(path.Root("registry_auth"), "Unknown registry credentials",
			"The provider's registry_auth must be known when Terraform plans. Set it from literals, variables "+
				"or ephemeral values known at plan.")
	}
}

// handOver gives every resource, data source, ephemeral resource, list
// resource and action the configured engine and what is known of the CLI.
func handOver(resp *provider.ConfigureResponse, data base.ProviderData) {
	resp.ResourceData = data
	resp.DataSourceData = data
	resp.EphemeralResourceData = data
	resp.ListResourceData = data
	resp.ActionData = data
}

// settings are the provider block's attributes by name.
func (m providerModel) settings() map[string]attr.Value {
	return map[string]attr.Value{"host": m.Host, "cert_path": m.CertPath, "ca_pem": m.CAPEM,
		"cert_pem": m.CertPEM, "key_pem": m.KeyPEM, "ssh_opts": m.SSHOpts, "context": m.Context,
		"engine_socket": m.EngineSocket, "kubernetes": m.Kubernetes}
}

// engineConfig turns the provider block into the engine client's
// configuration.
func (m providerModel) engineConfig(ctx context.Context) (docker.Config, diag.Diagnostics) {
	cfg := docker.Config{
		Host:     m.Host.ValueString(),
		CertPath: m.CertPath.ValueString(),
		CAPEM:    m.CAPEM.ValueString(),
		CertPEM:  m.CertPEM.ValueString(),
		KeyPEM:   m.KeyPEM.ValueString(),
		Context:  m.Context.ValueString(),

		EngineSocket: m.EngineSocket.ValueString(),
	}
	diags := m.SSHOpts.ElementsAs(ctx, &cfg.SSHOpts, false)
	return cfg, diags
}

func unreachableDetail(endpoint string, err error) string {
	var conn *docker.ConnectionError
	if docker.IsSSH(err) || (errors.As(err, &conn) && conn.Advice != "") {
		// The connection said what failed and what to do.
		return fmt.Sprintf("The provider could not reach the Docker engine at %s:\n\n%v", endpoint, err)
	}
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
		containerresource.New,
		imageresource.New,
		execresource.New,
		volumeresource.New,
		poolresource.New,
		snapshotresource.New,
	}
}

// ListResources lists the provider's list resources, for terraform query.
func (p *sandboxProvider) ListResources(_ context.Context) []func() list.ListResource {
	return []func() list.ListResource{containerresource.NewList, volumeresource.NewList, imageresource.NewList}
}

// Actions lists the provider's actions.
func (p *sandboxProvider) Actions(_ context.Context) []func() action.Action {
	return []func() action.Action{execresource.NewAction, snapshotresource.NewAction}
}

// EphemeralResources lists the provider's ephemeral resources.
func (p *sandboxProvider) EphemeralResources(_ context.Context) []func() ephemeral.EphemeralResource {
	return []func() ephemeral.EphemeralResource{execresource.NewEphemeral}
}

// DataSources lists the provider's data sources.
func (p *sandboxProvider) DataSources(_ context.Context) []func() datasource.DataSource {
	return []func() datasource.DataSource{
		containersdatasource.New,
		poolclaimsdatasource.New,
		filedatasource.New,
	}
}
