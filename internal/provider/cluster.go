package provider

import (
	"context"
	"errors"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/objectvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine/kube"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/framework/base"
)

// The provider's kubernetes argument: sandboxes as pods on a cluster
// (package kube) instead of containers on a Docker engine.

// clusterModel is the kubernetes argument.
type clusterModel struct {
	ConfigPath    types.String `tfsdk:"config_path"`
	ConfigContext types.String `tfsdk:"config_context"`
	Namespace     types.String `tfsdk:"namespace"`
	RuntimeClass  types.String `tfsdk:"runtime_class"`
	HelperImage   types.String `tfsdk:"helper_image"`
	PullSecrets   types.List   `tfsdk:"image_pull_secrets"`
	SandboxAPI    types.String `tfsdk:"sandbox_api"`
}

// dockerSettings are the arguments that pick and reach a Docker engine,
// which a cluster excludes.
var dockerSettings = []string{"host", "context", "cert_path", "ca_pem", "cert_pem", "key_pem", "ssh_opts", "engine_socket"}

func clusterAttribute() schema.Attribute { //nolint:funlen // a schema literal
	conflicts := make([]path.Expression, 0, len(dockerSettings))
	for _, name := range dockerSettings {
		conflicts = append(conflicts, path.MatchRoot(name))
	}
	nonEmpty := []validator.String{stringvalidator.LengthAtLeast(1)}
	return schema.SingleNestedAttribute{
		MarkdownDescription: "Run sandboxes as pods on a Kubernetes cluster instead of a Docker engine. Each " +
			"sandbox is a pod in `namespace`, in the RuntimeClass `runtime_class`, which must give its pods no " +
			"network (for example gVisor with `--network=none`), beside a deny-all NetworkPolicy and, for " +
			"`env_wo`, a Secret, both owned by the pod. The provider's isolation verdict for a pod and what a " +
			"cluster must provide are in the Kubernetes guide. Conflicts with `" + dockerSettings[0] + "` and the " +
			"other Docker settings. An empty object (`kubernetes = {}`) uses the kubeconfig's defaults.",
		Optional:   true,
		Validators: []validator.Object{objectvalidator.ConflictsWith(conflicts...)},
		Attributes: map[string]schema.Attribute{
			"config_path": schema.StringAttribute{
				MarkdownDescription: "Path of a kubeconfig file. Defaults to `KUBECONFIG` (a list of files, " +
					"merged), then `~/.kube/config`, then, when the provider runs in a pod, that pod's service " +
					"account. A kubeconfig that sets `insecure-skip-tls-verify` is refused: the cluster's " +
					"certificate is always verified.",
				Optional: true, Validators: nonEmpty,
			},
			"config_context": schema.StringAttribute{
				MarkdownDescription: "The kubeconfig context to use. Defaults to its current context.",
				Optional:            true, Validators: nonEmpty,
			},
			"namespace": schema.StringAttribute{
				MarkdownDescription: "The namespace sandboxes are made in. Defaults to the context's namespace, " +
					"then `default`.",
				Optional: true, Validators: nonEmpty,
			},
			"runtime_class": schema.StringAttribute{
				MarkdownDescription: "The RuntimeClass every sandbox runs in, whose handler gives its pods no " +
					"network: gVisor run with `--network=none`, or a runtime whose network plugin gives a pod an " +
					"interface that leads nowhere. The provider checks that it exists when it is configured and " +
					"that every sandbox's pod still runs in it. A sandbox's `runtime` may be left unset, or name " +
					"this class or its handler (`runsc`). Defaults to `\"" + kube.DefaultRuntimeClass + "\"`.",
				Optional: true, Validators: nonEmpty,
			},
			"helper_image": schema.StringAttribute{
				MarkdownDescription: "The image of the short-lived pods that fill a `sandbox_volume` (from " +
					"`source` or a `snapshot`) and read one for a `sandbox_snapshot`: any image with a busybox " +
					"or GNU `tar` and `sleep`, which the nodes have or can pull. Such a pod runs as root with " +
					"only the capabilities the copy needs, no network and no service account token, and is " +
					"removed when the copy ends. Pin it by digest (`busybox@sha256:...`) where the registry is " +
					"not yours. Unset, it is `\"" + kube.DefaultHelperImage + "\"` (busybox pinned by digest), " +
					"used only where a node already has it: a plan that would need a helper with it, when no " +
					"node has it, is refused naming this setting, so that the provider never has a node pull " +
					"from a public registry unasked. Set it (to that image, to let the nodes pull it, or to a " +
					"copy of it in your own registry) to use it anyway.",
				Optional: true, Validators: nonEmpty,
			},
			"image_pull_secrets": schema.ListAttribute{
				MarkdownDescription: "Image pull secrets, in `namespace`, that every sandbox's pod names, for " +
					"registries whose credentials the cluster already holds. For a registry that the provider's " +
					"`registry_auth` names, the provider makes the pod's pull secret itself, and removes it with " +
					"the pod.",
				ElementType: types.StringType,
				Optional:    true,
				Validators:  []validator.List{listvalidator.ValueStringsAre(stringvalidator.LengthAtLeast(1))},
			},
			"sandbox_api": schema.StringAttribute{
				MarkdownDescription: "What a new sandbox is made as: `\"" + kube.APIPods + "\"` (the default), a " +
					"bare pod the provider keeps; or `\"" + kube.APIAgentSandbox + "\"`, an agent-sandbox " +
					"(kubernetes-sigs/agent-sandbox) `Sandbox`, whose controller keeps its pod, suspends it while " +
					"it sleeps and ends it at its expiry, with the same pod, deny-all NetworkPolicy and Secrets, " +
					"owned by the Sandbox. Chosen, never detected: a cluster that starts serving agent-sandbox " +
					"does not change what a configuration makes. A sandbox keeps what it was made as when this " +
					"changes (its ID says which); `\"" + kube.APIAgentSandbox + "\"` on a cluster that does not " +
					"serve the API is an error when the provider is configured. See the Kubernetes guide.",
				Optional:   true,
				Validators: []validator.String{stringvalidator.OneOf(kube.APIPods, kube.APIAgentSandbox)},
			},
		},
	}
}

// configureCluster builds the cluster client, checks that the cluster
// answers and has the RuntimeClass, and hands the client to resources.
func (p *sandboxProvider) configureCluster(ctx context.Context, cfg providerModel, data base.ProviderData,
	regs engine.Registries, resp *provider.ConfigureResponse) {
	var m clusterModel
	resp.Diagnostics.Append(cfg.Kubernetes.As(ctx, &m, basetypes.ObjectAsOptions{})...)
	if resp.Diagnostics.HasError() {
		return
	}
	for name, v := range map[string]types.String{"config_path": m.ConfigPath, "config_context": m.ConfigContext,
		"namespace": m.Namespace, "runtime_class": m.RuntimeClass, "helper_image": m.HelperImage,
		"sandbox_api": m.SandboxAPI} {
		if v.IsUnknown() {
			resp.Diagnostics.AddAttributeError(path.Root("kubernetes").AtName(name), "Unknown cluster setting",
				fmt.Sprintf("The provider's kubernetes.%s must be known when Terraform plans: the provider reads "+
					"the cluster to plan. Set it from a literal, a variable or a data source known before apply.", name))
		}
	}
	if resp.Diagnostics.HasError() {
		return
	}
	var pullSecrets []string
	if m.PullSecrets.IsUnknown() {
		resp.Diagnostics.AddAttributeError(path.Root("kubernetes").AtName("image_pull_secrets"), "Unknown cluster setting",
			"The provider's kubernetes.image_pull_secrets must be known when Terraform plans. Set it from a "+
				"literal, a variable or a data source known before apply.")
		return
	}
	resp.Diagnostics.Append(m.PullSecrets.ElementsAs(ctx, &pullSecrets, false)...)
	client, err := kube.New(kube.Config{
		ConfigPath: m.ConfigPath.ValueString(), Context: m.ConfigContext.ValueString(),
		Namespace: m.Namespace.ValueString(), RuntimeClass: m.RuntimeClass.ValueString(),
		HelperImage: m.HelperImage.ValueString(), PullSecrets: pullSecrets, Version: p.version,
		SandboxAPI: m.SandboxAPI.ValueString(),
	})
	if none := new(kube.NoKubeconfigError); errors.As(err, &none) {
		resp.Diagnostics.AddAttributeError(path.Root("kubernetes").AtName("config_path"), "No kubeconfig for the cluster",
			fmt.Sprintf("This provider block has a kubernetes argument, so it runs sandboxes on a cluster, and %v. "+
				"Set kubernetes.config_path to the cluster's kubeconfig (or KUBECONFIG), or, on a machine that "+
				"has no cluster, remove the provider block's kubernetes argument (and with it the configuration "+
				"of the sandboxes that use it).", err))
		return
	}
	if err != nil {
		resp.Diagnostics.AddAttributeError(path.Root("kubernetes"), "Invalid cluster connection settings", fmt.Sprintf(
			"%v\n\nCorrect kubernetes.config_path and kubernetes.config_context (or KUBECONFIG), so that they "+
				"name a kubeconfig and a context in it that reach the cluster.", err))
		return
	}
	pingCtx, cancel := context.WithTimeout(ctx, pingTimeout)
	defer cancel()
	if err := client.Ping(pingCtx); err != nil {
		resp.Diagnostics.AddAttributeError(path.Root("kubernetes"), "Cannot use the Kubernetes cluster", fmt.Sprintf(
			"%v\n\nCheck that the kubeconfig names the right cluster and context (kubectl --context <context> "+
				"cluster-info answers), and that this user may read the RuntimeClass and manage pods, network "+
				"policies and secrets in namespace %s.", err, client.Namespace()))
		return
	}
	client.UseRegistries(regs)
	data.Engine = client
	handOver(resp, data)
}
