package containerresource

import (
	"context"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/setplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/framework/values"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/isolation"
)

// networkModel is the sandbox's network isolation: what the configuration
// asks for, and the networks the engine shows.
type networkModel struct {
	NetworkMode types.String `tfsdk:"network_mode"`
	Networks    types.Set    `tfsdk:"networks"`
}

func networkAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"network_mode": schema.StringAttribute{
			MarkdownDescription: "Network isolation. The only allowed value is `\"" + isolation.NoneMode + "\"`: the " +
				"sandbox gets no network interface but loopback. When omitted, a Docker engine or Podman gives the " +
				"sandbox its default network, and a cluster none (its every pod is isolated; the plan warns); " +
				"the provider's `require_isolation` refuses a sandbox that omits it. Changing it forces " +
				"replacement. When the state says `\"" +
				isolation.NoneMode + "\"` and the engine shows a weaker mode, the container attached to any " +
				"other network or sharing a PID, IPC or UTS namespace, the refreshed value is what the engine " +
				"shows (for example `\"bridge\"` or `\"none sharing pid with the host\"`), so the plan " +
				"replaces the sandbox.",
			Optional:      true,
			PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
			Validators:    []validator.String{stringvalidator.OneOf(isolation.NoneMode)},
		},
		"networks": schema.SetAttribute{
			MarkdownDescription: "Observed: names of the networks the container is attached to, as the engine " +
				"reports them (`[\"" + isolation.NoneMode + "\"]` for an isolated sandbox).",
			ElementType:   types.StringType,
			Computed:      true,
			PlanModifiers: []planmodifier.Set{setplanmodifier.UseStateForUnknown()},
		},
	}
}

// planGuard refuses a sandbox that leaves network_mode unset where the
// provider requires isolation (require_isolation), and warns at create
// where the backend isolates every sandbox whatever network_mode says.
// An unknown network_mode can only become "none" (its validator).
func planGuard(plan, state map[string]tftypes.Value, requireIsolation bool, on engine.Engine,
	resp *resource.ModifyPlanResponse) {
	if !plan["network_mode"].IsNull() {
		return
	}
	at := path.Root("network_mode")
	if requireIsolation {
		unset := "the default network of " + on.Where()
		if _, ok := on.(engine.IsolatingAll); ok {
			unset = "a sandbox whose isolation the state does not record nor a refresh check (on " + on.Where() +
				" every pod is isolated, but only network_mode = \"none\" is checked at every refresh)"
		}
		resp.Diagnostics.AddAttributeError(at, "The provider requires isolation", fmt.Sprintf(
			"This provider configuration sets require_isolation = true, and this sandbox leaves network_mode "+
				"unset, which would give it %s. Set network_mode = %q on the sandbox, or remove "+
				"require_isolation from the provider block to allow sandboxes with a network.", unset,
			isolation.NoneMode))
		return
	}
	if _, ok := on.(engine.IsolatingAll); ok && state == nil {
		resp.Diagnostics.AddAttributeWarning(at, "network_mode is unset on a cluster", fmt.Sprintf(
			"On %s every sandbox is isolated whatever network_mode says (its RuntimeClass and a deny-all "+
				"NetworkPolicy): this one gets no network, as with network_mode = %q, which the state will not "+
				"say, and whose loss a refresh would not count as drift. Set network_mode = %q to say so and to "+
				"have its isolation checked at every refresh (the same configuration on a Docker engine would "+
				"get the engine's default network), or set require_isolation = true in the provider block to "+
				"require it of every sandbox.", on.Where(), isolation.NoneMode, isolation.NoneMode))
	}
}

// isolated reports whether the configuration asks for network isolation.
func (n networkModel) isolated() bool {
	return n.NetworkMode.ValueString() == isolation.NoneMode
}

// observeNetworks records the networks the engine shows.
func (n *networkModel) observeNetworks(c engine.Sandbox) {
	n.Networks = values.StringSet(isolation.Assess(c.Network).Networks)
}

// refreshIsolation records, when the state asks for isolation, the mode the
// verdict gives, so that weaker isolation plans a replacement, and warns
// with the reason and the networks.
func (n *networkModel) refreshIsolation(c engine.Sandbox, name string) diag.Diagnostics {
	var diags diag.Diagnostics
	if n.NetworkMode.IsNull() {
		return diags
	}
	verdict := isolation.Assess(c.Network)
	n.NetworkMode = types.StringValue(verdict.Mode)
	if !verdict.Isolated {
		diags.AddAttributeWarning(path.Root("network_mode"), "Sandbox lost its network isolation",
			fmt.Sprintf("Container %q (%s) was created with network_mode = %q, yet %s. Networks found: %s. "+
				"The next apply replaces it with a new, isolated sandbox.",
				name, engine.ShortID(c.ID), isolation.NoneMode, verdict.Reason, strings.Join(verdict.Networks, ", ")))
	}
	return diags
}

// checkIsolated fails when the configuration asks for isolation and the
// engine did not give it.
func (n networkModel) checkIsolated(c engine.Sandbox) diag.Diagnostics {
	var diags diag.Diagnostics
	if !n.isolated() {
		return diags
	}
	if verdict := isolation.Assess(c.Network); !verdict.Isolated {
		diags.AddAttributeError(path.Root("network_mode"), "Sandbox is not isolated",
			fmt.Sprintf("The engine did not isolate container %s: %s. The provider asked it for no network: look "+
				"in the engine's configuration for what attaches networks or namespaces to new containers (a "+
				"plugin, a default network setting) and remove it, then apply again.", engine.ShortID(c.ID),
				verdict.Reason))
	}
	return diags
}

// importNetwork sets network_mode as a configuration would have: "none"
// only when the verdict says isolated.
func (n *networkModel) importNetwork(c engine.Sandbox) {
	n.NetworkMode = types.StringNull()
	if isolation.Assess(c.Network).Isolated {
		n.NetworkMode = types.StringValue(isolation.NoneMode)
	}
	n.observeNetworks(c)
}

// planNetworks makes networks unknown in a plan that starts or stops an
// existing sandbox (state is nil for a new one): the engine can report other
// networks once it runs (a sandbox stopped by an engine crash shows none
// until it starts), and a value kept from the state would then be an
// inconsistent result.
func planNetworks(ctx context.Context, plan, state map[string]tftypes.Value, resp *resource.ModifyPlanResponse) {
	if state == nil || plan["state"].Equal(state["state"]) {
		return
	}
	resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("networks"), types.SetUnknown(types.StringType))...)
}
