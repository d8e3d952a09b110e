package containerresource

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-validators/setvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/boolplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/setplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/framework/validators"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/framework/values"
)

// Privilege defaults, part of the schema and of state upgrades.
const (
	defaultNoNewPrivileges = true
	defaultAllowUnconfined = false
	// defaultRuntime is the engine's usual default runtime, which import
	// leaves unset.
	defaultRuntime  = "runc"
	noNewPrivileges = "no-new-privileges"
)

// securityOptKeys are the security option keys a sandbox may set.
var securityOptKeys = []string{"apparmor", "label", "seccomp", "systempaths"}

// allowingSeccompActions are the default actions that let every system call
// a profile does not list through.
var allowingSeccompActions = []string{"SCMP_ACT_ALLOW", "SCMP_ACT_LOG"}

// privilegesModel is what the sandbox's processes may do.
type privilegesModel struct {
	NoNewPrivileges types.Bool   `tfsdk:"no_new_privileges"`
	Runtime         types.String `tfsdk:"runtime"`
	SecurityOpts    types.Set    `tfsdk:"security_opts"`
	AllowUnconfined types.Bool   `tfsdk:"allow_unconfined"`
}

// nullPrivileges knows nothing yet.
func nullPrivileges() privilegesModel {
	return privilegesModel{
		NoNewPrivileges: types.BoolNull(),
		Runtime:         types.StringNull(),
		SecurityOpts:    types.SetNull(types.StringType),
		AllowUnconfined: types.BoolNull(),
	}
}

func privilegeAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"no_new_privileges": schema.BoolAttribute{
			MarkdownDescription: "Forbid the sandbox's processes from gaining privileges, for example through " +
				"setuid or setgid binaries or file capabilities. Defaults to `" + fmt.Sprint(defaultNoNewPrivileges) +
				"`. Changing it forces replacement.",
			Optional:      true,
			Computed:      true,
			Default:       booldefault.StaticBool(defaultNoNewPrivileges),
			PlanModifiers: []planmodifier.Bool{boolplanmodifier.RequiresReplace()},
		},
		"runtime": schema.StringAttribute{
			MarkdownDescription: "OCI runtime the engine runs the sandbox with, as registered with the engine, " +
				"for example `\"runsc\"` for gVisor, which puts a user-space kernel between the sandbox and the " +
				"host. When omitted the engine's default runtime (usually `" + defaultRuntime + "`) is used. " +
				"Changing it forces replacement.",
			Optional:      true,
			PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
			Validators:    []validator.String{stringvalidator.LengthAtLeast(1)},
		},
		"security_opts": schema.SetAttribute{
			MarkdownDescription: "Security options, as `key=value` with key one of `" +
				joinCode(securityOptKeys) + "`, for example a custom seccomp profile " +
				"(`\"seccomp=${file(\"profile.json\")}\"`, parsed at plan time; Podman takes instead the path of a " +
				"profile on its own host, `\"seccomp=/etc/containers/profile.json\"`) or AppArmor profile. Values that " +
				"switch confinement off (`seccomp=unconfined`, a seccomp profile whose `defaultAction` lets every " +
				"unlisted system call through (`" + joinCode(allowingSeccompActions) + "`), `apparmor=unconfined`, " +
				"`systempaths=unconfined`, `label=disable`) are rejected unless `allow_unconfined = true`. Use `no_new_privileges` " +
				"rather than `" + noNewPrivileges + "` here. Changing it forces replacement.",
			ElementType:   types.StringType,
			Optional:      true,
			PlanModifiers: []planmodifier.Set{setplanmodifier.RequiresReplace()},
			Validators: []validator.Set{
				setvalidator.SizeAtLeast(1),
				setvalidator.ValueStringsAre(securityOptValidator()),
			},
		},
		"allow_unconfined": schema.BoolAttribute{
			MarkdownDescription: "Escape hatch: allow `security_opts` values that switch confinement off. " +
				"Defaults to `" + fmt.Sprint(defaultAllowUnconfined) + "`. It only unlocks validation, so changing " +
				"it updates the state only.",
			Optional: true,
			Computed: true,
			Default:  booldefault.StaticBool(defaultAllowUnconfined),
		},
	}
}

// securityOptValidator accepts "key=value" with a key from securityOptKeys:
// seccomp takes "unconfined" or a profile in JSON with a defaultAction, and
// systempaths only "unconfined". no-new-privileges has its own attribute.
func securityOptValidator() validator.String {
	desc := fmt.Sprintf("must be key=value with key one of %s (%s has its own attribute)",
		strings.Join(securityOptKeys, ", "), noNewPrivileges)
	return validators.String(desc, func(s string) string {
		key, value, ok := engine.SplitSecurityOpt(s)
		switch {
		case !ok || value == "" || !slices.Contains(securityOptKeys, key):
			return desc
		case key == "seccomp" && value != "unconfined" && !engine.IsSeccompPath(value):
			if _, err := seccompDefaultAction(value); err != nil {
				return "must give seccomp \"unconfined\", a seccomp profile in JSON, as " +
					"seccomp=${file(\"profile.json\")} gives, or on Podman the absolute path of a profile on its " +
					"host (" + err.Error() + ")"
			}
		case key == "systempaths" && value != "unconfined":
			return "must give systempaths only \"unconfined\""
		}
		return ""
	})
}

// seccompDefaultAction parses a seccomp profile and returns its default
// action.
func seccompDefaultAction(profile string) (string, error) {
	var p struct {
		DefaultAction string `json:"defaultAction"`
	}
	if err := json.Unmarshal([]byte(profile), &p); err != nil {
		return "", fmt.Errorf("not a JSON profile: %w", err)
	}
	if p.DefaultAction == "" {
		return "", errors.New("the profile has no defaultAction")
	}
	return p.DefaultAction, nil
}

// unconfined says how a security option turns confinement off, or ""
// when it does not: seccomp=unconfined or an allow-by-default profile,
// apparmor=unconfined, systempaths=unconfined, label=disable (in either
// separator form).
func unconfined(opt string) string {
	key, value, ok := engine.SplitSecurityOpt(opt)
	if !ok {
		return ""
	}
	switch {
	case value == "unconfined" && key != "label":
		return fmt.Sprintf("%s=unconfined switches the %s confinement off", key, key)
	case key == "label" && (value == "disable" || value == "type:unconfined_t"):
		return fmt.Sprintf("label=%s switches SELinux labelling off", value)
	case key == "seccomp":
		if action, err := seccompDefaultAction(value); err == nil && slices.Contains(allowingSeccompActions, action) {
			return fmt.Sprintf("the seccomp profile's defaultAction %s lets through every system call it "+
				"does not list", action)
		}
	}
	return ""
}

func isUnconfined(opt string) bool { return unconfined(opt) != "" }

// applyTo adds the privileges to spec.
func (p privilegesModel) applyTo(spec *engine.ContainerSpec) {
	spec.SecurityOpt = values.SetStrings(p.SecurityOpts)
	if p.NoNewPrivileges.ValueBool() {
		spec.SecurityOpt = append(spec.SecurityOpt, noNewPrivileges)
	}
	spec.Runtime = p.Runtime.ValueString()
}

// observe records the security options and the runtime. A value equal in meaning to the one held keeps its
// spelling; a widened privilege shows in the plan.
func (p *privilegesModel) observe(h *engine.HostConfig) {
	var opts []string
	nnp := false
	for _, opt := range h.SecurityOpt {
		if key, value, _ := engine.SplitSecurityOpt(opt); key == noNewPrivileges {
			nnp = value == "" || value == "true"
			continue
		}
		opts = append(opts, opt)
	}
	p.NoNewPrivileges = types.BoolValue(nnp)
	p.SecurityOpts = values.KeepIfEqual(p.SecurityOpts, values.StringSetOrNull(opts))
	// A container's runtime cannot change. An unset one stays unset, whatever
	// the engine's default runtime is called.
	if !p.Runtime.IsNull() {
		p.Runtime = types.StringValue(h.Runtime)
	}
}

// importPrivileges sets, after observe, what import cannot observe: the
// runtime unless it is the usual default, and each escape hatch exactly when
// the container needs it.
func (p *privilegesModel) importPrivileges(h *engine.HostConfig) {
	if h.Runtime != "" && h.Runtime != defaultRuntime {
		p.Runtime = types.StringValue(h.Runtime)
	}
	p.AllowUnconfined = types.BoolValue(slices.ContainsFunc(values.SetStrings(p.SecurityOpts), isUnconfined))
}

// validate rejects options that switch confinement off without the
// escape hatch.
func (p privilegesModel) validate() diag.Diagnostics {
	var diags diag.Diagnostics
	if p.AllowUnconfined.ValueBool() || p.AllowUnconfined.IsUnknown() {
		return diags
	}
	for _, opt := range values.SetStrings(p.SecurityOpts) {
		if how := unconfined(opt); how != "" {
			diags.AddAttributeError(path.Root("security_opts"), "Security option disables confinement",
				fmt.Sprintf("Attribute security_opts: %s. Remove it, or, if that is really intended, also set "+
					"allow_unconfined = true.", how))
		}
	}
	return diags
}

// namesSeccomp says whether the security options name a seccomp profile.
func namesSeccomp(opts tftypes.Value) bool {
	for _, opt := range values.RawStrings(opts) {
		if key, _, _ := engine.SplitSecurityOpt(opt); key == "seccomp" {
			return true
		}
	}
	return false
}

// warnUserNamespaces warns, at the plan of a new sandbox that names no
// seccomp profile, when the engine's default filter is weaker than
// Docker's: none at all, or Podman's stock profile, which lets a process
// create user namespaces (Docker's refuses without CAP_SYS_ADMIN).
func warnUserNamespaces(opts tftypes.Value, s engine.Seccomp, endpoint string, resp *resource.ModifyPlanResponse) {
	if namesSeccomp(opts) || !opts.IsKnown() {
		return
	}
	fix := "give the engine's host Docker's seccomp profile (the default.json of github.com/moby/profiles/seccomp; " +
		"on Podman, containers.conf: [containers] seccomp_profile = \"/etc/containers/docker-seccomp.json\"), or " +
		"name a profile for this sandbox in security_opts (on Podman, a path on its host: " +
		"\"seccomp=/etc/containers/docker-seccomp.json\")."
	switch {
	case !s.Enabled:
		resp.Diagnostics.AddAttributeWarning(path.Root("security_opts"), "Engine applies no seccomp filter",
			"The engine at "+endpoint+" runs containers without a seccomp filter, so the sandbox's processes may "+
				"make any system call, user namespaces included. To close this, "+fix)
	case s.AllowsUserNamespaces:
		resp.Diagnostics.AddAttributeWarning(path.Root("security_opts"), "Sandbox can create user namespaces",
			"The engine at "+endpoint+" is Podman, whose own seccomp profile ("+s.Profile+" on its host, or its "+
				"built-in one) lets the sandbox's processes create user namespaces, which Docker's default "+
				"profile refuses without CAP_SYS_ADMIN: inside one, code gains root's powers over new "+
				"namespaces and reaches more of the host's kernel. To close this, "+fix)
	}
}
