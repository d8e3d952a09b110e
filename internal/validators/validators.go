// Package validators holds the provider's own attribute validators: checks
// the framework's validators do not offer, each with a description that
// names what is allowed.
package validators

import (
	"context"
	"encoding/base64"
	"fmt"
	"os"
	"path"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
)

// Capabilities are the Linux capability names the engine accepts, without
// the CAP_ prefix.
var Capabilities = []string{
	"AUDIT_CONTROL", "AUDIT_READ", "AUDIT_WRITE", "BLOCK_SUSPEND", "BPF", "CHECKPOINT_RESTORE", "CHOWN",
	"DAC_OVERRIDE", "DAC_READ_SEARCH", "FOWNER", "FSETID", "IPC_LOCK", "IPC_OWNER", "KILL", "LEASE",
	"LINUX_IMMUTABLE", "MAC_ADMIN", "MAC_OVERRIDE", "MKNOD", "NET_ADMIN", "NET_BIND_SERVICE",
	"NET_BROADCAST", "NET_RAW", "PERFMON", "SETFCAP", "SETGID", "SETPCAP", "SETUID", "SYSLOG",
	"SYS_ADMIN", "SYS_BOOT", "SYS_CHROOT", "SYS_MODULE", "SYS_NICE", "SYS_PACCT", "SYS_PTRACE",
	"SYS_RAWIO", "SYS_RESOURCE", "SYS_TIME", "SYS_TTY_CONFIG", "WAKE_ALARM",
}

// AllCapabilities is the value that stands for every capability.
const AllCapabilities = "ALL"

type funcValidator struct {
	description string
	check       func(string) string // returns a problem, or ""
}

func (v funcValidator) Description(context.Context) string         { return v.description }
func (v funcValidator) MarkdownDescription(context.Context) string { return v.description }

func (v funcValidator) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	if problem := v.check(req.ConfigValue.ValueString()); problem != "" {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid attribute value",
			fmt.Sprintf("Attribute %s %s, got: %q", req.Path, problem, req.ConfigValue.ValueString()))
	}
}

// Capability accepts a Linux capability name, upper case without the CAP_
// prefix, and "ALL" when allowAll is set.
func Capability(allowAll bool) validator.String {
	desc := "must be a Linux capability name in upper case without the CAP_ prefix, such as NET_RAW"
	if allowAll {
		desc += ", or ALL"
	}
	return funcValidator{description: desc, check: func(s string) string {
		if slices.Contains(Capabilities, s) || (allowAll && s == AllCapabilities) {
			return ""
		}
		if !allowAll && s == AllCapabilities {
			return "cannot add ALL capabilities: that is a privileged sandbox; add the ones needed by name"
		}
		return desc
	}}
}

// AbsolutePath accepts a clean absolute path other than "/".
func AbsolutePath() validator.String {
	const desc = "must be a clean absolute path other than /, such as /workspace"
	return funcValidator{description: desc, check: func(s string) string {
		if !path.IsAbs(s) || path.Clean(s) != s || s == "/" {
			return desc
		}
		return ""
	}}
}

// Base64 accepts standard base64 with padding.
func Base64() validator.String {
	const desc = "must be standard base64 (with padding), as base64encode() or filebase64() give"
	return funcValidator{description: desc, check: func(s string) string {
		if _, err := base64.StdEncoding.DecodeString(s); err != nil {
			return desc
		}
		return ""
	}}
}

// LocalFile accepts the path of a regular file Terraform can read.
func LocalFile() validator.String {
	const desc = "must name a readable regular file on the machine running Terraform"
	return funcValidator{description: desc, check: func(s string) string {
		info, err := os.Stat(s)
		if err != nil {
			return fmt.Sprintf("%s (%v)", desc, err)
		}
		if !info.Mode().IsRegular() {
			return desc + " (it is not a regular file)"
		}
		f, err := os.Open(s)
		if err != nil {
			return fmt.Sprintf("%s (%v)", desc, err)
		}
		_ = f.Close()
		return ""
	}}
}

// SecurityOptKeys are the security option keys a sandbox may set.
var SecurityOptKeys = []string{"apparmor", "label", "seccomp", "systempaths"}

// SecurityOpt accepts "key=value" with a key from SecurityOptKeys.
// no-new-privileges has its own attribute and is refused here.
func SecurityOpt() validator.String {
	desc := fmt.Sprintf("must be key=value with key one of %s (no-new-privileges has its own attribute)",
		strings.Join(SecurityOptKeys, ", "))
	return funcValidator{description: desc, check: func(s string) string {
		key, value, ok := SplitSecurityOpt(s)
		if !ok || value == "" || !slices.Contains(SecurityOptKeys, key) {
			return desc
		}
		return ""
	}}
}

// SplitSecurityOpt splits a security option at its first '=' or, in the
// engine's legacy form, ':'.
func SplitSecurityOpt(s string) (key, value string, ok bool) {
	i := strings.IndexAny(s, "=:")
	if i < 0 {
		return s, "", false
	}
	return s[:i], s[i+1:], true
}

// Unconfined reports whether a security option turns confinement off:
// seccomp=unconfined, apparmor=unconfined, systempaths=unconfined or
// label=disable (in either separator form).
func Unconfined(opt string) bool {
	key, value, ok := SplitSecurityOpt(opt)
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
