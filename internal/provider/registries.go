package provider

import (
	"context"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/docker/cli/cli/config"
	"github.com/docker/cli/cli/config/configfile"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
)

// The provider's registry_auth argument: credentials per registry host,
// which Docker and Podman pulls send and a cluster's pods get as an image
// pull secret (engine.Registries).

// registryModel is one registry_auth entry.
type registryModel struct {
	Address    types.String `tfsdk:"address"`
	Username   types.String `tfsdk:"username"`
	Password   types.String `tfsdk:"password"`
	ConfigFile types.String `tfsdk:"config_file"`
}

// dockerHub are the names Docker Hub goes by in an address; image
// references name it docker.io.
var dockerHub = []string{"docker.io", "index.docker.io", "registry-1.docker.io", "https://index.docker.io/v1/"}

func registryAttribute() schema.Attribute {
	other := func(names ...string) []path.Expression {
		out := make([]path.Expression, 0, len(names))
		for _, n := range names {
			out = append(out, path.MatchRelative().AtParent().AtName(n))
		}
		return out
	}
	return schema.ListNestedAttribute{
		MarkdownDescription: "Credentials for private registries, one entry per registry host. A Docker engine's " +
			"or Podman's pull of a sandbox's image (and of a `sandbox_image`'s base images) sends the entry " +
			"for the image's registry; on a cluster, the provider makes an image pull secret for it beside the " +
			"sandbox's pod, and removes it with the pod. Give each entry either `username` and `password`, or " +
			"`config_file`. The credentials never reach the state, a plan, a log or an error: errors name the " +
			"entry (`registry_auth[\"ghcr.io\"]`). Without an entry for a registry, pulls are anonymous. See the " +
			"registries guide.",
		Optional: true,
		NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
			"address": schema.StringAttribute{
				MarkdownDescription: "The registry's host, and port if it has one, as image references name it: " +
					"`ghcr.io`, `registry.example.com:5000`; `docker.io` for Docker Hub.",
				Required:   true,
				Validators: []validator.String{stringvalidator.LengthAtLeast(1)},
			},
			"username": schema.StringAttribute{
				MarkdownDescription: "The user to pull as. Requires `password`; conflicts with `config_file`.",
				Optional:            true,
				Validators: []validator.String{stringvalidator.AlsoRequires(other("password")...),
					stringvalidator.ConflictsWith(other("config_file")...)},
			},
			"password": schema.StringAttribute{
				MarkdownDescription: "The password or access token of `username`. Sensitive: give it from a " +
					"variable marked sensitive, or an ephemeral value.",
				Optional:  true,
				Sensitive: true,
				Validators: []validator.String{stringvalidator.AlsoRequires(other("username")...),
					stringvalidator.ConflictsWith(other("config_file")...)},
			},
			"config_file": schema.StringAttribute{
				MarkdownDescription: "A Docker config file (`~/.docker/config.json`, as `docker login` writes it) " +
					"that holds this registry's credentials, under `auths`, or through the credential helper it " +
					"names (`credsStore`, `credHelpers`), which the provider runs as the docker CLI does " +
					"(`docker-credential-<name>` on `PATH`). Read when a pull needs it.",
				Optional:   true,
				Validators: []validator.String{stringvalidator.LengthAtLeast(1)},
			},
		}},
	}
}

// registries turns registry_auth into the engine's Registries, checking
// what can be checked before a pull: every entry has credentials, no
// registry is named twice, and every config file reads.
func registries(ctx context.Context, list types.List) (engine.Registries, diag.Diagnostics) {
	var entries []registryModel
	diags := list.ElementsAs(ctx, &entries, false)
	if diags.HasError() || len(entries) == 0 {
		return nil, diags
	}
	byHost := map[string]registryModel{}
	files := map[string]*configfile.ConfigFile{}
	for i, e := range entries {
		at := path.Root("registry_auth").AtListIndex(i)
		if e.Username.IsUnknown() || e.Password.IsUnknown() || e.ConfigFile.IsUnknown() || e.Address.IsUnknown() {
			diags.AddAttributeError(at, "Unknown registry credentials", "registry_auth must be known when "+
				"Terraform plans: the provider checks its entries when it is configured, before the plan. Set it from a "+
				"literal, a variable or an ephemeral value known at plan.")
			continue
		}
		host := registryHost(e.Address.ValueString())
		if strings.ContainsAny(host, "/@ ") || host == "" {
			diags.AddAttributeError(at.AtName("address"), "Not a registry host", fmt.Sprintf(
				"registry_auth's address %q is not a registry's host: give it as image references name the "+
					"registry, host and port only, such as \"ghcr.io\" or \"registry.example.com:5000\".",
				e.Address.ValueString()))
			continue
		}
		if _, dup := byHost[host]; dup {
			diags.AddAttributeError(at.AtName("address"), "Registry named twice", fmt.Sprintf(
				"registry_auth names the registry %s more than once. Keep one entry for it.", host))
			continue
		}
		byHost[host] = e
		switch {
		case !e.ConfigFile.IsNull():
			f, err := readConfigFile(e.ConfigFile.ValueString())
			if err != nil {
				diags.AddAttributeError(at.AtName("config_file"), "Cannot read the Docker config file", fmt.Sprintf(
					"%v. Give config_file as the path of a Docker config file the user running Terraform can "+
						"read (docker login writes ~/.docker/config.json).", err))
				continue
			}
			files[host] = f
		case e.Username.IsNull():
			diags.AddAttributeError(at, "Registry entry without credentials", fmt.Sprintf(
				"registry_auth[%q] has neither username and password nor config_file. Give one of them.", host))
		}
	}
	if diags.HasError() {
		return nil, diags
	}
	return engine.NewRegistries(slices.Sorted(maps.Keys(byHost)), resolver(byHost, files)), diags
}

// resolver gives a host's credentials from its entry: its username and
// password, or its config file's (which may run a credential helper).
func resolver(byHost map[string]registryModel, files map[string]*configfile.ConfigFile) func(string) (engine.RegistryAuth, bool, error) {
	return func(host string) (engine.RegistryAuth, bool, error) {
		e, ok := byHost[host]
		if !ok {
			return engine.RegistryAuth{}, false, nil
		}
		auth := engine.RegistryAuth{Host: host, Setting: fmt.Sprintf("registry_auth[%q]", host)}
		f := files[host]
		if f == nil {
			auth.Username, auth.Password = e.Username.ValueString(), e.Password.ValueString()
			return auth, true, nil
		}
		got, err := f.GetAuthConfig(host)
		if err != nil {
			helper := f.CredentialsStore
			if h, ok := f.CredentialHelpers[host]; ok {
				helper = h
			}
			return auth, false, fmt.Errorf("%s: the credential helper of %s failed for %s: %w. Check that "+
				"docker-credential-%s is on PATH and logged in", auth.Setting, e.ConfigFile.ValueString(), host, err,
				helper)
		}
		if got.Username == "" && got.Password == "" && got.IdentityToken == "" {
			return auth, false, fmt.Errorf("%s: %s holds no credentials for %s. Run docker login %s with "+
				"that config file, or give username and password instead", auth.Setting,
				e.ConfigFile.ValueString(), host, host)
		}
		auth.Username, auth.Password, auth.IdentityToken = got.Username, got.Password, got.IdentityToken
		return auth, true, nil
	}
}

// registryHost is an address as image references name its registry.
func registryHost(address string) string {
	for _, name := range dockerHub {
		if strings.EqualFold(address, name) {
			return "docker.io"
		}
	}
	return strings.TrimSuffix(strings.TrimPrefix(strings.TrimPrefix(address, "https://"), "http://"), "/")
}

// readConfigFile reads a Docker config file.
func readConfigFile(name string) (*configfile.ConfigFile, error) {
	r, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer func() { _ = r.Close() }()
	f, err := config.LoadFromReader(r)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", name, err)
	}
	f.Filename = name
	return f, nil
}
