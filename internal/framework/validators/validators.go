// Package validators holds generic attribute validators the framework's
// validators do not offer, each with a description that names what is
// allowed. Rules about one resource's domain live with that resource.
package validators

import (
	"context"
	"encoding/base64"
	"fmt"
	"net/netip"
	"os"
	"path"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
)

// String returns a string validator with the given description (what is
// allowed, as in "must be ...") and check, which returns the problem with a
// value, or "" when it is fine. The error names the attribute, the problem
// and the value.
func String(description string, check func(string) string) validator.String {
	return funcValidator{description: description, check: check}
}

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
			fmt.Sprintf("Attribute %s %s, got: %q. Change the value to one it takes.", req.Path, problem,
				req.ConfigValue.ValueString()))
	}
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

// IPAddress accepts an IPv4 or IPv6 address written as such, without a zone:
// no host name (nothing is resolved) and no surrounding space.
func IPAddress() validator.String {
	const desc = "must be an IP address such as 127.0.0.1 or ::1 (host names are not resolved)"
	return funcValidator{description: desc, check: func(s string) string {
		if addr, err := netip.ParseAddr(s); err != nil || addr.Zone() != "" {
			return desc
		}
		return ""
	}}
}

// PositiveDuration accepts a Go duration greater than zero, such as "30s"
// or "2m".
func PositiveDuration() validator.String {
	const desc = "must be a duration greater than zero, such as \"30s\" or \"2m\""
	return funcValidator{description: desc, check: func(s string) string {
		if d, err := time.ParseDuration(s); err != nil || d <= 0 {
			return desc
		}
		return ""
	}}
}

// NoPrefix refuses strings that start with prefix, which is reserved (why
// says for what, as in "the provider's own labels use it").
func NoPrefix(prefix, why string) validator.String {
	desc := fmt.Sprintf("must not start with %q, which %s; choose another", prefix, why)
	return String(desc, func(s string) string {
		if strings.HasPrefix(s, prefix) {
			return desc
		}
		return ""
	})
}
