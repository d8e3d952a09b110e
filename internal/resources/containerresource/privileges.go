package containerresource

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
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
	allCapabilities = "ALL"
)

// capabilities are the Linux capability names the engine accepts, without
// the CAP_ prefix.
var capabilities = []string{
	"AUDIT_CONTROL", "AUDIT_READ", "AUDIT_WRITE", "BLOCK_SUSPEND", "BPF", "CHECKPOINT_RESTORE", "CHOWN",
	"DAC_OVERRIDE", "DAC_READ_SEARCH", "FOWNER", "FSETID", "IPC_LOCK", "IPC_OWNER", "KILL", "LEASE",
	"LINUX_IMMUTABLE", "MAC_ADMIN", "MAC_OVERRIDE", "MKNOD", "NET_ADMIN", "NET_BIND_SERVICE",
	"NET_BROADCAST", "NET_RAW", "PERFMON", "SETFCAP", "SETGID", "SETPCAP", "SETUID", "SYSLOG",
	"SYS_ADMIN", "SYS_BOOT", "SYS_CHROOT", "SYS_MODULE", "SYS_NICE", "SYS_PACCT", "SYS_PTRACE",
	"SYS_RAWIO", "SYS_RESOURCE", "SYS_TIME", "SYS_TTY_CONFIG", "WAKE_ALARM",
}

// unsafeCapabilities break containment: each lets root in the sandbox reach
// the host's kernel or other processes. cap_add takes them only with
// allow_unsafe_capabilities = true.
var unsafeCapabilities = map[string]string{
	"BPF":             "load programs into the host's kernel",
	"DAC_READ_SEARCH": "open host files by handle, around the sandbox's mounts",
	"MAC_ADMIN":       "change the host's mandatory access control policy",
	"MAC_OVERRIDE":    "bypass the host's mandatory access control",
	"NET_ADMIN":       "reconfigure interfaces, routes and firewalls",
	"PERFMON":         "watch the kernel and other processes through perf",
	"SYSLOG":          "read the kernel log and kernel addresses",
	"SYS_ADMIN":       "mount filesystems and reach the host through cgroup release agents",
	"SYS_BOOT":        "reboot the kernel",
	"SYS_MODULE":      "load kernel modules",
	"SYS_PTRACE":      "trace and inject code into other processes",
	"SYS_RAWIO":       "do raw I/O on devices and kernel memory",
}

// securityOptKeys are the security option keys a sandbox may set.
var securityOptKeys = []string{"apparmor", "label", "seccomp", "systempaths"}

// allowingSeccompActions are the default actions that let every system call
// a profile does not list through.
var allowingSeccompActions = []string{"SCMP_ACT_ALLOW", "SCMP_ACT_LOG"}

// privilegesModel is what the sandbox's processes may do.
type privilegesModel struct {
	CapAdd          types.Set    `tfsdk:"cap_add"`
	CapDrop         types.Set    `tfsdk:"cap_drop"`
	NoNewPrivileges types.Bool   `tfsdk:"no_new_privileges"`
	Runtime         types.String `tfsdk:"runtime"`
	SecurityOpts    types.Set    `tfsdk:"security_opts"`
	AllowUnconfined types.Bool   `tfsdk:"allow_unconfined"`
	// AllowUnsafeCapabilities has no default, so that states written
	// before it existed plan no change.
	AllowUnsafeCapabilities types.Bool `tfsdk:"allow_unsafe_capabilities"`
}

// nullPrivileges knows nothing yet.
func nullPrivileges() privilegesModel {
	return privilegesModel{
		CapAdd:          types.SetNull(types.StringType),
		CapDrop:         types.SetNull(types.StringType),
		NoNewPrivileges: types.BoolNull(),
		Runtime:         types.StringNull(),
		SecurityOpts:    types.SetNull(types.StringType),
		AllowUnconfined: types.BoolNull(),

		AllowUnsafeCapabilities: types.BoolNull(),
	}
}

func privilegeAttributes() map[string]schema.Attribute { //nolint:funlen // a schema literal
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
				"capabilities that break containment (`" + joinCode(slices.Sorted(maps.Keys(unsafeCapabilities))) +
				"`) need `allow_unsafe_capabilities = true`. Combine with `cap_drop = [\"" + allCapabilities +
				"\"]` to grant exactly these. Changing it forces replacement.",
			ElementType:   types.StringType,
			Optional:      true,
			PlanModifiers: []planmodifier.Set{setplanmodifier.RequiresReplace()},
			Validators: []validator.Set{
				setvalidator.SizeAtLeast(1),
				setvalidator.ValueStringsAre(capabilityValidator(false)),
			},
		},
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
				"(`\"seccomp=${file(\"profile.json\")}\"`, parsed at plan time) or AppArmor profile. Values that " +
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
		"allow_unsafe_capabilities": schema.BoolAttribute{
			MarkdownDescription: "Escape hatch: allow `cap_add` to grant capabilities that break containment, " +
				"with which root in the sandbox can reach the host's kernel or other processes. Unset or `false` " +
				"refuses them at plan time. It only unlocks validation, so changing it updates the state only.",
			Optional: true,
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

// capabilityValidator accepts a Linux capability name, upper case without
// the CAP_ prefix, and "ALL" when allowAll is set.
func capabilityValidator(allowAll bool) validator.String {
	desc := "must be a Linux capability name in upper case without the CAP_ prefix, such as NET_RAW"
	if allowAll {
		desc += ", or " + allCapabilities
	}
	return validators.String(desc, func(s string) string {
		switch {
		case slices.Contains(capabilities, s) || (allowAll && s == allCapabilities):
			return ""
		case s == allCapabilities:
			return "cannot add ALL capabilities: that is a privileged sandbox; add the ones needed by name"
		}
		return desc
	})
}

// securityOptValidator accepts "key=value" with a key from securityOptKeys:
// seccomp takes "unconfined" or a profile in JSON with a defaultAction, and
// systempaths only "unconfined". no-new-privileges has its own attribute.
func securityOptValidator() validator.String {
	desc := fmt.Sprintf("must be key=value with key one of %s (%s has its own attribute)",
		strings.Join(securityOptKeys, ", "), noNewPrivileges)
	return validators.String(desc, func(s string) string {
		key, value, ok := splitSecurityOpt(s)
		switch {
		case !ok || value == "" || !slices.Contains(securityOptKeys, key):
			return desc
		case key == "seccomp" && value != "unconfined":
			if _, err := seccompDefaultAction(value); err != nil {
				return "must give seccomp \"unconfined\" or a seccomp profile in JSON, as " +
					"seccomp=${file(\"profile.json\")} gives (" + err.Error() + ")"
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

// splitSecurityOpt splits a security option at its first '=' or, in the
// engine's legacy form, ':'.
func splitSecurityOpt(s string) (key, value string, ok bool) {
	i := strings.IndexAny(s, "=:")
	if i < 0 {
		return s, "", false
	}
	return s[:i], s[i+1:], true
}

// unconfined says how a security option turns confinement off, or ""
// when it does not: seccomp=unconfined or an allow-by-default profile,
// apparmor=unconfined, systempaths=unconfined, label=disable (in either
// separator form).
func unconfined(opt string) string {
	key, value, ok := splitSecurityOpt(opt)
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
	spec.CapAdd = values.SetStrings(p.CapAdd)
	spec.CapDrop = values.SetStrings(p.CapDrop)
	spec.SecurityOpt = values.SetStrings(p.SecurityOpts)
	if p.NoNewPrivileges.ValueBool() {
		spec.SecurityOpt = append(spec.SecurityOpt, noNewPrivileges)
	}
	spec.Runtime = p.Runtime.ValueString()
}

// observe records capabilities, security options and the runtime. A value equal in meaning to the one held keeps its
// spelling; a widened privilege shows in the plan.
func (p *privilegesModel) observe(h *engine.HostConfig) {
	// The same capability set can be spelled differently (Podman lists
	// every dropped capability where the create said ALL): the held values
	// stay while they give the same set.
	add, drop := engine.CapabilityNames(h.CapAdd), engine.CapabilityNames(h.CapDrop)
	if p.CapAdd.IsUnknown() || p.CapDrop.IsUnknown() || !slices.Equal(
		engine.EffectiveCapabilities(add, drop),
		engine.EffectiveCapabilities(values.SetStrings(p.CapAdd), values.SetStrings(p.CapDrop))) {
		p.CapAdd = values.KeepIfEqual(p.CapAdd, values.StringSetOrNull(add))
		p.CapDrop = values.KeepIfEqual(p.CapDrop, values.StringSetOrNull(drop))
	}

	var opts []string
	nnp := false
	for _, opt := range h.SecurityOpt {
		if key, value, _ := splitSecurityOpt(opt); key == noNewPrivileges {
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
	p.AllowUnsafeCapabilities = types.BoolNull()
	if slices.ContainsFunc(values.SetStrings(p.CapAdd), isUnsafeCapability) {
		p.AllowUnsafeCapabilities = types.BoolValue(true)
	}
}

func isUnsafeCapability(c string) bool {
	_, unsafe := unsafeCapabilities[c]
	return unsafe
}

// validate rejects a capability both added and dropped, capabilities that
// break containment and options that switch confinement off, each without
// its escape hatch.
func (p privilegesModel) validate() diag.Diagnostics {
	var diags diag.Diagnostics
	dropped := values.SetStrings(p.CapDrop)
	allowUnsafe := p.AllowUnsafeCapabilities.ValueBool() || p.AllowUnsafeCapabilities.IsUnknown()
	for _, c := range values.SetStrings(p.CapAdd) {
		if slices.Contains(dropped, c) {
			diags.AddAttributeError(path.Root("cap_add"), "Capability both added and dropped", fmt.Sprintf(
				"Attribute cap_add and cap_drop both name %s. Keep it in one of them.", c))
		}
		if what, unsafe := unsafeCapabilities[c]; unsafe && !allowUnsafe {
			diags.AddAttributeError(path.Root("cap_add"), "Capability breaks containment", fmt.Sprintf(
				"Attribute cap_add names %s, with which root in the sandbox can %s. Remove it, or, if the "+
					"sandbox really needs it, also set allow_unsafe_capabilities = true.", c, what))
		}
	}
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

// refuseInlineSeccomp refuses a seccomp profile given inline, which Podman
// 4 reads as the path of a file on its own host.
func refuseInlineSeccomp(opts tftypes.Value, resp *resource.ModifyPlanResponse) {
	var list []tftypes.Value
	if !opts.IsKnown() || opts.IsNull() || opts.As(&list) != nil {
		return
	}
	for _, v := range list {
		var opt string
		if !v.IsKnown() || v.As(&opt) != nil {
			continue
		}
		if key, value, _ := splitSecurityOpt(opt); key == "seccomp" && value != "unconfined" {
			resp.Diagnostics.AddAttributeError(path.Root("security_opts"), "Seccomp profile not accepted by Podman",
				"Podman 4 reads a seccomp= value as the path of a profile on its own host, so the profile given "+
					"here cannot reach it. Set the profile on the Podman host (containers.conf: [containers] "+
					"seccomp_profile) and leave it out of security_opts, or place this sandbox on a Docker engine.")
			return
		}
	}
}
