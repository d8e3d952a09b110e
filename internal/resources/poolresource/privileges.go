package poolresource

import (
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-validators/setvalidator"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/setplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/framework/validators"
)

// A pool's privileges: every capability dropped and no privilege
// escalation, always; cap_add gives back capabilities that act within the
// sandbox only. A pool hands its sandboxes to agents outside Terraform,
// so no escape hatch grants one whose effect reaches past the sandbox:
// sandbox_container's allow_unsafe_capabilities is a sandbox's own.

// hardening is what every sandbox of a pool is given: no capability but
// cap_add's, no privilege escalation.
var hardening = struct {
	capDrop     []string
	securityOpt []string
}{[]string{"ALL"}, []string{"no-new-privileges"}}

func capAddAttribute() schema.Attribute {
	return schema.SetAttribute{
		MarkdownDescription: "Linux capabilities every sandbox of the pool gets back after all are dropped, by " +
			"name in upper case without the `CAP_` prefix: for example `CHOWN`, `DAC_OVERRIDE`, `FOWNER`, " +
			"`SETUID` and `SETGID` for a package manager run as root. Only capabilities that act within the " +
			"sandbox: those whose effect reaches past it (`" + strings.Join(engine.UnsafeCapabilities, "`, `") +
			"`; the hardening guide says what each does) are refused, since the pool's sandboxes go to agents " +
			"outside Terraform. Changing it forces replacement.",
		ElementType:   types.StringType,
		Optional:      true,
		PlanModifiers: []planmodifier.Set{setplanmodifier.RequiresReplace()},
		Validators:    []validator.Set{setvalidator.SizeAtLeast(1), setvalidator.ValueStringsAre(safeCapability())},
	}
}

// safeCapability accepts a capability that acts within the sandbox.
func safeCapability() validator.String {
	const desc = "must be a Linux capability name in upper case without the CAP_ prefix, such as CHOWN, whose " +
		"effect stays within the sandbox"
	return validators.String(desc, func(s string) string {
		effect, ok := engine.CapabilityEffects[s]
		switch {
		case s == "ALL":
			return "cannot add ALL capabilities: that is a privileged sandbox; add the ones needed by name"
		case !ok:
			return desc
		case effect.Unsafe:
			return "cannot add " + s + ", with which root in a sandbox can " + effect.What + ": a pool's sandboxes " +
				"go to agents outside Terraform; remove it, or give it to one sandbox_container with " +
				"allow_unsafe_capabilities = true"
		}
		return ""
	})
}

// hardened reports whether a template still gives its sandboxes the
// provider's hardening: not privileged, every capability dropped and none
// added that reaches past the sandbox or that it does not know, no
// privilege escalation, the
// runtime's seccomp profile. A safe capability added out of band shows in
// cap_add, which replaces the pool.
func hardened(h *engine.HostConfig) bool {
	// One the provider does not know (ALL among them) is not taken as safe.
	unsafe := func(c string) bool {
		effect, known := engine.CapabilityEffects[c]
		return !known || effect.Unsafe
	}
	return !h.Privileged && !slices.ContainsFunc(engine.CapabilityNames(h.CapAdd), unsafe) &&
		slices.Contains(h.CapDrop, "ALL") && slices.Contains(h.SecurityOpt, "no-new-privileges") &&
		!slices.Contains(h.SecurityOpt, "seccomp=unconfined")
}
