package containerresource

import (
	"fmt"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-validators/setvalidator"
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
)

// The sandbox's Linux capabilities; what each lets root in the sandbox
// do is engine.CapabilityEffects.

// allCapabilities names every capability in cap_drop.
const allCapabilities = "ALL"

// capabilitiesModel is which Linux capabilities the sandbox's processes
// have.
type capabilitiesModel struct {
	CapAdd  types.Set `tfsdk:"cap_add"`
	CapDrop types.Set `tfsdk:"cap_drop"`
	// AllowUnsafeCapabilities has no default, so that states written
	// before it existed plan no change.
	AllowUnsafeCapabilities types.Bool `tfsdk:"allow_unsafe_capabilities"`
}

// nullCapabilities knows nothing yet.
func nullCapabilities() capabilitiesModel {
	return capabilitiesModel{
		CapAdd:                  types.SetNull(types.StringType),
		CapDrop:                 types.SetNull(types.StringType),
		AllowUnsafeCapabilities: types.BoolNull(),
	}
}

func capabilityAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"cap_drop": schema.SetAttribute{
			MarkdownDescription: "Linux capabilities removed from the engine's default set, by name in upper case " +
				"without the `CAP_` prefix (for example `NET_RAW`), or `" + allCapabilities + "` to drop every one. " +
				"Changing it forces replacement.",
			ElementType:   types.StringType,
			Optional:      true,
			PlanModifiers: []planmodifier.Set{setplanmodifier.RequiresReplace()},
			Validators: []validator.Set{
				setvalidator.SizeAtLeast(1),
				setvalidator.ValueStringsAre(capabilityValidator(true)),
			},
		},
		"cap_add": schema.SetAttribute{
			MarkdownDescription: "Linux capabilities added to the sandbox, by name in upper case without the " +
				"`CAP_` prefix (for example `NET_BIND_SERVICE`). `" + allCapabilities + "` is not accepted, and " +
				"capabilities whose effect reaches past the sandbox (`" + joinCode(engine.UnsafeCapabilities) +
				"`; the hardening guide says what each does) need `allow_unsafe_capabilities = true`. Combine with `cap_drop = [\"" + allCapabilities +
				"\"]` to grant exactly these. Changing it forces replacement.",
			ElementType:   types.StringType,
			Optional:      true,
			PlanModifiers: []planmodifier.Set{setplanmodifier.RequiresReplace()},
			Validators: []validator.Set{
				setvalidator.SizeAtLeast(1),
				setvalidator.ValueStringsAre(capabilityValidator(false)),
			},
		},
		"allow_unsafe_capabilities": schema.BoolAttribute{
			MarkdownDescription: "Escape hatch: allow `cap_add` to grant capabilities that break containment, " +
				"with which root in the sandbox can reach the host's kernel or other processes. Unset or `false` " +
				"refuses them at plan time. It only unlocks validation, so changing it updates the state only.",
			Optional: true,
		},
	}
}

// capabilityValidator accepts a Linux capability name, upper case without
// the CAP_ prefix, and "ALL" when allowAll is set.
func capabilityValidator(allowAll bool) validator.String {
	desc := "must be a Linux capability name in upper case without the CAP_ prefix, such as NET_RAW"
	if allowAll {
		desc += ", or " + allCapabilities
	}
	return validators.String(desc, func(s string) string {
		switch {
		case slices.Contains(engine.Capabilities, s) || (allowAll && s == allCapabilities):
			return ""
		case s == allCapabilities:
			return "cannot add ALL capabilities: that is a privileged sandbox; add the ones needed by name"
		}
		return desc
	})
}

// applyTo adds the capabilities to spec.
func (p capabilitiesModel) applyTo(spec *engine.ContainerSpec) {
	spec.CapAdd = values.SetStrings(p.CapAdd)
	spec.CapDrop = values.SetStrings(p.CapDrop)
}

// observe records the capabilities; d is what the engine added when the
// sandbox was created.
func (p *capabilitiesModel) observe(h *engine.HostConfig, d engine.Defaults) {
	// The same capability set can be spelled differently (Podman lists
	// every dropped capability where the create said ALL, and the
	// capabilities its containers.conf leaves out of its default set as
	// dropped): the held values stay while the engine shows the set the
	// sandbox was created with, or, where that was not recorded, while
	// they give the same set.
	add, drop := engine.CapabilityNames(h.CapAdd), engine.CapabilityNames(h.CapDrop)
	shown := engine.EffectiveCapabilities(add, drop)
	same := d.CreatedWith(shown) ||
		slices.Equal(shown, engine.EffectiveCapabilities(values.SetStrings(p.CapAdd), values.SetStrings(p.CapDrop)))
	if p.CapAdd.IsUnknown() || p.CapDrop.IsUnknown() || !same {
		p.CapAdd = values.KeepIfEqual(p.CapAdd, values.StringSetOrNull(add))
		p.CapDrop = values.KeepIfEqual(p.CapDrop, values.StringSetOrNull(drop))
	}
}

// importCapabilities sets, after observe, the escape hatch exactly when the
// container needs it.
func (p *capabilitiesModel) importCapabilities() {
	p.AllowUnsafeCapabilities = types.BoolNull()
	if slices.ContainsFunc(values.SetStrings(p.CapAdd), isUnsafeCapability) {
		p.AllowUnsafeCapabilities = types.BoolValue(true)
	}
}

func isUnsafeCapability(c string) bool {
	return engine.CapabilityEffects[c].Unsafe
}

// validate rejects a capability both added and dropped, and capabilities
// that break containment without their escape hatch.
func (p capabilitiesModel) validate() diag.Diagnostics {
	var diags diag.Diagnostics
	dropped := values.SetStrings(p.CapDrop)
	allowUnsafe := p.AllowUnsafeCapabilities.ValueBool() || p.AllowUnsafeCapabilities.IsUnknown()
	for _, c := range values.SetStrings(p.CapAdd) {
		if slices.Contains(dropped, c) {
			diags.AddAttributeError(path.Root("cap_add"), "Capability both added and dropped", fmt.Sprintf(
				"Attribute cap_add and cap_drop both name %s. Keep it in one of them.", c))
		}
		if effect := engine.CapabilityEffects[c]; effect.Unsafe && !allowUnsafe {
			diags.AddAttributeError(path.Root("cap_add"), "Capability breaks containment", fmt.Sprintf(
				"Attribute cap_add names %s, with which root in the sandbox can %s. Remove it, or, if the "+
					"sandbox really needs it, also set allow_unsafe_capabilities = true.", c, effect.What))
		}
	}
	return diags
}

// checkGranted fails when the engine did not apply the capabilities the
// configuration asks for: one dropped (or ALL dropped) is still there, or
// one added is missing. Nothing the engine ignores is accepted.
func (p capabilitiesModel) checkGranted(c engine.Sandbox) diag.Diagnostics {
	var diags diag.Diagnostics
	if c.HostConfig == nil || !values.Known(p.CapAdd) || !values.Known(p.CapDrop) {
		return diags
	}
	have := engine.EffectiveCapabilities(c.HostConfig.CapAdd, c.HostConfig.CapDrop)
	dropped, added := values.SetStrings(p.CapDrop), values.SetStrings(p.CapAdd)
	var wrong []string
	for _, capability := range have {
		if !slices.Contains(added, capability) && (slices.Contains(dropped, allCapabilities) || slices.Contains(dropped, capability)) {
			wrong = append(wrong, capability+" (dropped)")
		}
	}
	for _, capability := range added {
		if !slices.Contains(have, capability) {
			wrong = append(wrong, capability+" (added)")
		}
	}
	if len(wrong) > 0 {
		diags.AddAttributeError(path.Root("cap_drop"), "Capabilities not applied by the engine", fmt.Sprintf(
			"The engine created container %s without applying the configured capabilities: %s. A sandbox "+
				"without them is not kept. Check the engine's configuration, or place this sandbox on another engine.",
			engine.ShortID(c.ID), strings.Join(wrong, ", ")))
	}
	return diags
}
