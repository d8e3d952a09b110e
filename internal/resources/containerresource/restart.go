package containerresource

import (
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
)

// defaultRestart brings sandboxes back after the engine restarts (a host
// reboot, an engine upgrade) without bringing back one that was stopped on
// purpose (state = "stopped", or docker stop).
const defaultRestart = "unless-stopped"

// restartPolicies are the engine's restart policies.
var restartPolicies = []string{"no", "on-failure", "unless-stopped", "always"}

// restartModel is what the engine does when the sandbox's process ends or
// the engine restarts.
type restartModel struct {
	Restart types.String `tfsdk:"restart"`
}

func restartAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"restart": schema.StringAttribute{
			MarkdownDescription: "What the engine does when the sandbox's process exits or the engine restarts: " +
				"`" + joinCode(restartPolicies) + "`. Defaults to `" + defaultRestart + "`: a sandbox comes back by " +
				"itself after an engine restart or a host reboot, and one that was stopped on purpose " +
				"(`state = \"stopped\"`) stays stopped. `docker run` defaults to `no`. Changing it is applied to " +
				"the sandbox in place (on Podman, whose Docker-compatible API cannot, it replaces the sandbox).",
			Optional:   true,
			Computed:   true,
			Default:    stringdefault.StaticString(defaultRestart),
			Validators: []validator.String{stringvalidator.OneOf(restartPolicies...)},
		},
	}
}

// applyTo adds the restart policy to spec.
func (r restartModel) applyTo(spec *engine.ContainerSpec) {
	spec.Restart = r.Restart.ValueString()
}

// observe records the engine's restart policy.
func (r *restartModel) observe(h *engine.HostConfig) {
	r.Restart = types.StringValue(engine.ObservedRestart(h))
}
