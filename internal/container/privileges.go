package container

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-validators/mapvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/setvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/boolplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/mapplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/setplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/validators"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/values"
)

// Privilege defaults, part of the schema and of state upgrades.
const (
	defaultNoNewPrivileges = true
	defaultReadOnly        = false
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

// securityOptKeys are the security option keys a sandbox may set.
var securityOptKeys = []string{"apparmor", "label", "seccomp", "systempaths"}

// privilegesModel is what the sandbox's processes may do.
type privilegesModel struct {
	CapAdd          types.Set    `tfsdk:"cap_add"`
	CapDrop         types.Set    `tfsdk:"cap_drop"`
	NoNewPrivileges types.Bool   `tfsdk:"no_new_privileges"`
	ReadOnly        types.Bool   `tfsdk:"read_only"`
	Tmpfs           types.Map    `tfsdk:"tmpfs"`
	Runtime         types.String `tfsdk:"runtime"`
	SecurityOpts    types.Set    `tfsdk:"security_opts"`
	AllowUnconfined types.Bool   `tfsdk:"allow_unconfined"`
}

// nullPrivileges knows nothing yet.
func nullPrivileges() privilegesModel {
	return privilegesModel{
		CapAdd:          types.SetNull(types.StringType),
		CapDrop:         types.SetNull(types.StringType),
		NoNewPrivileges: types.BoolNull(),
		ReadOnly:        types.BoolNull(),
		Tmpfs:           types.MapNull(types.StringType),
		Runtime:         types.StringNull(),
		SecurityOpts:    types.SetNull(types.StringType),
		AllowUnconfined: types.BoolNull(),
	}
}

func privilegeAttributes() map[string]schema.Attribute {
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
				"`CAP_` prefix (for example `NET_BIND_SERVICE`). `" + allCapabilities + "` is not accepted. Combine " +
				"with `cap_drop = [\"" + allCapabilities + "\"]` to grant exactly these. Changing it forces replacement.",
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
		"read_only": schema.BoolAttribute{
			MarkdownDescription: "Mount the root filesystem read-only. Use `tmpfs` for the paths the sandbox " +
				"must write to. The engine cannot write `files` into a read-only root, so the two do not " +
				"combine. Defaults to `" + fmt.Sprint(defaultReadOnly) + "`. Changing it forces replacement.",
			Optional:      true,
			Computed:      true,
			Default:       booldefault.StaticBool(defaultReadOnly),
			PlanModifiers: []planmodifier.Bool{boolplanmodifier.RequiresReplace()},
		},
		"tmpfs": schema.MapAttribute{
			MarkdownDescription: "In-memory filesystems to mount, by absolute path, each with its mount " +
				"options (`\"\"` for the engine's defaults, or for example `\"rw,size=64m,mode=1777\"`). " +
				"Their contents are lost when the sandbox stops. Changing it forces replacement.",
			ElementType:   types.StringType,
			Optional:      true,
			PlanModifiers: []planmodifier.Map{mapplanmodifier.RequiresReplace()},
			Validators: []validator.Map{
				mapvalidator.SizeAtLeast(1),
				mapvalidator.KeysAre(validators.AbsolutePath()),
			},
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
				"(`\"seccomp=${file(\"profile.json\")}\"`) or AppArmor profile. Values that switch " +
				"confinement off (`seccomp=unconfined`, `apparmor=unconfined`, `systempaths=unconfined`, " +
				"`label=disable`) are rejected unless `allow_unconfined = true`. Use `no_new_privileges` " +
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

// securityOptValidator accepts "key=value" with a key from securityOptKeys.
// no-new-privileges has its own attribute and is refused here.
func securityOptValidator() validator.String {
	desc := fmt.Sprintf("must be key=value with key one of %s (%s has its own attribute)",
		strings.Join(securityOptKeys, ", "), noNewPrivileges)
	return validators.String(desc, func(s string) string {
		key, value, ok := splitSecurityOpt(s)
		if !ok || value == "" || !slices.Contains(securityOptKeys, key) {
			return desc
		}
		return ""
	})
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

// unconfined reports whether a security option turns confinement off:
// seccomp=unconfined, apparmor=unconfined, systempaths=unconfined or
// label=disable (in either separator form).
func unconfined(opt string) bool {
	key, value, ok := splitSecurityOpt(opt)
	if !ok {
		return false
	}
	switch key {
	case "seccomp", "apparmor", "systempaths":
		return value == "unconfined"
	case "label":
		return value == "disable" || value == "type:unconfined_t"
	}
	return false
}

// applyTo adds the privileges to spec.
func (p privilegesModel) applyTo(ctx context.Context, spec *engine.ContainerSpec) diag.Diagnostics {
	spec.CapAdd = values.SetStrings(p.CapAdd)
	spec.CapDrop = values.SetStrings(p.CapDrop)
	spec.SecurityOpt = values.SetStrings(p.SecurityOpts)
	if p.NoNewPrivileges.ValueBool() {
		spec.SecurityOpt = append(spec.SecurityOpt, noNewPrivileges)
	}
	spec.ReadOnly = p.ReadOnly.ValueBool()
	spec.Runtime = p.Runtime.ValueString()
	return p.Tmpfs.ElementsAs(ctx, &spec.Tmpfs, false)
}

// observe records capabilities, security options, the root filesystem,
// mounts and the runtime. A value equal in meaning to the one held keeps its
// spelling; a widened privilege shows in the plan.
func (p *privilegesModel) observe(h *engine.HostConfig) {
	p.CapAdd = values.KeepIfEqual(p.CapAdd, values.StringSetOrNull(capNames(h.CapAdd)))
	p.CapDrop = values.KeepIfEqual(p.CapDrop, values.StringSetOrNull(capNames(h.CapDrop)))

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
	p.ReadOnly = types.BoolValue(h.ReadonlyRootfs)
	p.Tmpfs = values.KeepIfEqual(p.Tmpfs, values.StringMap(h.Tmpfs))
	// A container's runtime cannot change. An unset one stays unset, whatever
	// the engine's default runtime is called.
	if !p.Runtime.IsNull() {
		p.Runtime = types.StringValue(h.Runtime)
	}
}

// importPrivileges sets, after observe, what import cannot observe: the
// runtime unless it is the usual default, and the escape hatch exactly when
// the container runs unconfined.
func (p *privilegesModel) importPrivileges(h *engine.HostConfig) {
	if h.Runtime != "" && h.Runtime != defaultRuntime {
		p.Runtime = types.StringValue(h.Runtime)
	}
	p.AllowUnconfined = types.BoolValue(slices.ContainsFunc(values.SetStrings(p.SecurityOpts), unconfined))
}

// capNames normalises the engine's capability names to the schema's form:
// upper case without the CAP_ prefix.
func capNames(caps []string) []string {
	out := make([]string, 0, len(caps))
	for _, c := range caps {
		out = append(out, strings.TrimPrefix(strings.ToUpper(c), "CAP_"))
	}
	return out
}

// validate rejects a capability both added and dropped, and options that
// switch confinement off without the escape hatch.
func (p privilegesModel) validate() diag.Diagnostics {
	var diags diag.Diagnostics
	dropped := values.SetStrings(p.CapDrop)
	for _, c := range values.SetStrings(p.CapAdd) {
		if slices.Contains(dropped, c) {
			diags.AddAttributeError(path.Root("cap_add"), "Capability both added and dropped", fmt.Sprintf(
				"Attribute cap_add and cap_drop both name %s. Keep it in one of them.", c))
		}
	}
	if p.AllowUnconfined.ValueBool() || p.AllowUnconfined.IsUnknown() {
		return diags
	}
	for _, opt := range values.SetStrings(p.SecurityOpts) {
		if unconfined(opt) {
			diags.AddAttributeError(path.Root("security_opts"), "Security option disables confinement",
				fmt.Sprintf("%q switches off a confinement layer of the sandbox. If that is really "+
					"intended, also set allow_unconfined = true.", opt))
		}
	}
	return diags
}
