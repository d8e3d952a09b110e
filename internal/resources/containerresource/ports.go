package containerresource

import (
	"context"
	"slices"
	"strconv"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/setvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/setplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/framework/validators"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/framework/values"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/isolation"
)

// Port defaults, applied when the configuration leaves them out.
const (
	defaultPortHostIP   = "127.0.0.1"
	defaultPortProtocol = "tcp"
	maxPort             = 65535
)

var (
	portProtocols = []string{"tcp", "udp", "sctp"}
	portAttrTypes = map[string]attr.Type{
		"internal": types.Int64Type, "external": types.Int64Type,
		"host_ip": types.StringType, "protocol": types.StringType,
	}
)

// portsModel publishes container ports, for sandboxes with a network.
type portsModel struct {
	Ports types.Set `tfsdk:"ports"`
}

type portModel struct {
	Internal types.Int64  `tfsdk:"internal"`
	External types.Int64  `tfsdk:"external"`
	HostIP   types.String `tfsdk:"host_ip"`
	Protocol types.String `tfsdk:"protocol"`
}

// nullPorts publishes nothing.
func nullPorts() portsModel {
	return portsModel{Ports: types.SetNull(types.ObjectType{AttrTypes: portAttrTypes})}
}

func portAttributes() map[string]schema.Attribute {
	between := "(1 to " + strconv.Itoa(maxPort) + ")"
	return map[string]schema.Attribute{"ports": schema.SetNestedAttribute{
		MarkdownDescription: "Container ports published on the engine's host. Not allowed with " +
			"`network_mode = \"" + isolation.NoneMode + "\"`: an isolated sandbox has nothing to publish. Ports " +
			"bind to `" + defaultPortHostIP + "` unless `host_ip` says otherwise. Changing it forces replacement.",
		Optional:      true,
		PlanModifiers: []planmodifier.Set{setplanmodifier.RequiresReplace()},
		Validators:    []validator.Set{setvalidator.SizeAtLeast(1)},
		NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
			"internal": schema.Int64Attribute{
				MarkdownDescription: "Port in the container " + between + ".",
				Required:            true,
				Validators:          []validator.Int64{int64validator.Between(1, maxPort)},
			},
			"external": schema.Int64Attribute{
				MarkdownDescription: "Port on the host " + between + ". When omitted the engine picks a free one " +
					"(see `docker port`).",
				Optional:   true,
				Validators: []validator.Int64{int64validator.Between(1, maxPort)},
			},
			"host_ip": schema.StringAttribute{
				MarkdownDescription: "Host address to bind, as an IP address (a host name such as `localhost` is " +
					"refused: the engine would publish on every interface). When omitted, `" + defaultPortHostIP +
					"`: reachable from the engine's host only. Use `0.0.0.0` to publish on every interface.",
				Optional:   true,
				Validators: []validator.String{validators.IPAddress()},
			},
			"protocol": schema.StringAttribute{
				MarkdownDescription: "One of `" + joinCode(portProtocols) + "`. When omitted, `" +
					defaultPortProtocol + "`.",
				Optional:   true,
				Validators: []validator.String{stringvalidator.OneOf(portProtocols...)},
			},
		}},
	}}
}

// binding is the port as the engine takes it, defaults applied.
func (p portModel) binding() engine.PortBinding {
	b := engine.PortBinding{
		Port:     int(p.Internal.ValueInt64()),
		Protocol: p.Protocol.ValueString(),
		HostIP:   p.HostIP.ValueString(),
		HostPort: int(p.External.ValueInt64()),
	}
	if p.Protocol.IsNull() {
		b.Protocol = defaultPortProtocol
	}
	if p.HostIP.IsNull() {
		b.HostIP = defaultPortHostIP
	}
	return b
}

// bindings are the ports as the engine takes them.
func (p portsModel) bindings(ctx context.Context) ([]engine.PortBinding, diag.Diagnostics) {
	var ports []portModel
	diags := p.Ports.ElementsAs(ctx, &ports, false)
	out := make([]engine.PortBinding, 0, len(ports))
	for _, port := range ports {
		out = append(out, port.binding())
	}
	return out, diags
}

// applyTo adds the ports to spec.
func (p portsModel) applyTo(ctx context.Context, spec *engine.ContainerSpec) diag.Diagnostics {
	var diags diag.Diagnostics
	spec.Ports, diags = p.bindings(ctx)
	return diags
}

// observe keeps the ports held when the engine binds the same ones, defaults
// applied; otherwise it records the engine's bindings.
func (p *portsModel) observe(ctx context.Context, h *engine.HostConfig) {
	observed := engine.ObservedPorts(h)
	var held []engine.PortBinding
	if values.Known(p.Ports) {
		// Ports that cannot be read (never the case for a state the
		// framework wrote) count as none, so the engine's are recorded.
		held, _ = p.bindings(ctx)
	}
	observed = withoutAssignedPorts(held, observed)
	if samePorts(held, observed) {
		return
	}
	p.Ports = portsValue(observed)
}

// portsValue is the ports attribute for bindings.
func portsValue(bindings []engine.PortBinding) types.Set {
	objType := types.ObjectType{AttrTypes: portAttrTypes}
	if len(bindings) == 0 {
		return types.SetNull(objType)
	}
	vals := make([]attr.Value, 0, len(bindings))
	for _, b := range bindings {
		external := types.Int64Null()
		if b.HostPort != 0 {
			external = types.Int64Value(int64(b.HostPort))
		}
		vals = append(vals, types.ObjectValueMust(portAttrTypes, map[string]attr.Value{
			"internal": types.Int64Value(int64(b.Port)), "external": external,
			"host_ip": types.StringValue(b.HostIP), "protocol": types.StringValue(b.Protocol),
		}))
	}
	return types.SetValueMust(objType, vals)
}

// withoutAssignedPorts forgets the host port an engine picked where the
// configuration left it to the engine: Podman reports the port it chose
// where Docker reports none.
func withoutAssignedPorts(held, observed []engine.PortBinding) []engine.PortBinding {
	out := slices.Clone(observed)
	for i, b := range out {
		picked := b
		picked.HostPort = 0
		if b.HostPort != 0 && slices.Contains(held, picked) {
			out[i] = picked
		}
	}
	return out
}

func samePorts(a, b []engine.PortBinding) bool {
	if len(a) != len(b) {
		return false
	}
	for _, p := range a {
		if !slices.Contains(b, p) {
			return false
		}
	}
	return true
}

// validate rejects ports on an isolated sandbox.
func (p portsModel) validate(isolated bool) diag.Diagnostics {
	var diags diag.Diagnostics
	if !p.Ports.IsNull() && isolated {
		diags.AddAttributeError(path.Root("ports"), "Ports need a network",
			"A sandbox with network_mode = \""+isolation.NoneMode+"\" has no network to publish ports on. "+
				"Remove ports, or remove network_mode to give the sandbox the engine's default network.")
	}
	return diags
}
