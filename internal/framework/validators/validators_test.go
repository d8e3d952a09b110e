package validators

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
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
		{"absolute path", AbsolutePath(), "/workspace", true},
		{"relative path", AbsolutePath(), "workspace", false},
		{"unclean path", AbsolutePath(), "/a/../b", false},
		{"root", AbsolutePath(), "/", false},
		{"base64", Base64(), "aGVsbG8=", true},
		{"not base64", Base64(), "%%%", false},
		{"local file", LocalFile(), file, true},
		{"IPv4 address", IPAddress(), "127.0.0.1", true},
		{"IPv6 address", IPAddress(), "::1", true},
		{"every interface", IPAddress(), "0.0.0.0", true},
		{"host name", IPAddress(), "localhost", false},
		{"out of range", IPAddress(), "999.1.1.1", false},
		{"trailing space", IPAddress(), "127.0.0.1 ", false},
		{"zone", IPAddress(), "fe80::1%eth0", false},
		{"duration", PositiveDuration(), "90s", true},
		{"negative duration", PositiveDuration(), "-1s", false},
		{"zero duration", PositiveDuration(), "0s", false},
		{"not a duration", PositiveDuration(), "10", false},
		{"custom check passes", String("must be even", even), "4", true},
		{"custom check fails", String("must be even", even), "3", false},
		{"missing file", LocalFile(), filepath.Join(dir, "missing"), false},
		{"directory", LocalFile(), dir, false},
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

func even(s string) string {
	if len(s) == 1 && (s[0]-'0')%2 == 0 {
		return ""
	}
	return "must be even"
}

func TestExactlyOneOf(t *testing.T) {
	types3 := map[string]attr.Type{"a": types.StringType, "b": types.StringType, "c": types.StringType}
	obj := func(a, b, c types.String) types.Object {
		return types.ObjectValueMust(types3, map[string]attr.Value{"a": a, "b": b, "c": c})
	}
	null, set, unknown := types.StringNull(), types.StringValue("x"), types.StringUnknown()
	cases := map[string]struct {
		value types.Object
		ok    bool
	}{
		"one":               {obj(set, null, null), true},
		"another one":       {obj(null, null, set), true},
		"none":              {obj(null, null, null), false},
		"two":               {obj(set, set, null), false},
		"unknown, at apply": {obj(unknown, null, null), true},
		"null object":       {types.ObjectNull(types3), true},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			resp := &validator.ObjectResponse{}
			ExactlyOneOf("a", "b", "c").ValidateObject(context.Background(), validator.ObjectRequest{
				Path: path.Root("files").AtMapKey("/f"), ConfigValue: c.value,
			}, resp)
			if got := !resp.Diagnostics.HasError(); got != c.ok {
				t.Fatalf("ok = %v, want %v (%v)", got, c.ok, resp.Diagnostics)
			}
		})
	}
}
