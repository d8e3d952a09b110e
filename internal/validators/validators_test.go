package validators

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

func TestValidators(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	if err := os.WriteFile(file, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name  string
		v     validator.String
		value string
		ok    bool
	}{
		{"capability", Capability(false), "NET_RAW", true},
		{"capability lower case", Capability(false), "net_raw", false},
		{"capability with prefix", Capability(false), "CAP_NET_RAW", false},
		{"unknown capability", Capability(true), "NET_MAGIC", false},
		{"ALL in drop", Capability(true), "ALL", true},
		{"ALL in add", Capability(false), "ALL", false},
		{"absolute path", AbsolutePath(), "/workspace", true},
		{"relative path", AbsolutePath(), "workspace", false},
		{"unclean path", AbsolutePath(), "/a/../b", false},
		{"root", AbsolutePath(), "/", false},
		{"base64", Base64(), "aGVsbG8=", true},
		{"not base64", Base64(), "%%%", false},
		{"local file", LocalFile(), file, true},
		{"missing file", LocalFile(), filepath.Join(dir, "missing"), false},
		{"directory", LocalFile(), dir, false},
		{"seccomp profile", SecurityOpt(), `seccomp={"defaultAction":"SCMP_ACT_ALLOW"}`, true},
		{"apparmor legacy form", SecurityOpt(), "apparmor:docker-default", true},
		{"no-new-privileges", SecurityOpt(), "no-new-privileges", false},
		{"no-new-privileges with value", SecurityOpt(), "no-new-privileges=true", false},
		{"unknown key", SecurityOpt(), "foo=bar", false},
		{"empty value", SecurityOpt(), "seccomp=", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			resp := &validator.StringResponse{}
			c.v.ValidateString(context.Background(), validator.StringRequest{
				Path: path.Root("x"), ConfigValue: types.StringValue(c.value),
			}, resp)
			if got := !resp.Diagnostics.HasError(); got != c.ok {
				t.Fatalf("%q: ok = %v, want %v (%v)", c.value, got, c.ok, resp.Diagnostics)
			}
		})
	}
}

func TestUnconfined(t *testing.T) {
	for opt, want := range map[string]bool{
		"seccomp=unconfined":      true,
		"seccomp:unconfined":      true,
		"apparmor=unconfined":     true,
		"systempaths=unconfined":  true,
		"label=disable":           true,
		"label:disable":           true,
		"label=type:unconfined_t": true,
		"label=level:s0":          false,
		"apparmor=docker-default": false,
		`seccomp={"x":1}`:         false,
	} {
		if got := Unconfined(opt); got != want {
			t.Errorf("Unconfined(%q) = %v, want %v", opt, got, want)
		}
	}
}
