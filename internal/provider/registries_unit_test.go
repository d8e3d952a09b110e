package provider

import (
	"context"
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// registryList is registry_auth as the provider block gives it.
func registryList(t *testing.T, entries ...registryModel) types.List {
	t.Helper()
	typ := types.ObjectType{AttrTypes: map[string]attr.Type{"address": types.StringType, "username": types.StringType,
		"password": types.StringType, "config_file": types.StringType}}
	var elems []attr.Value
	for _, e := range entries { // a zero types.String is null
		obj, diags := types.ObjectValue(typ.AttrTypes, map[string]attr.Value{"address": e.Address,
			"username": e.Username, "password": e.Password, "config_file": e.ConfigFile})
		if diags.HasError() {
			t.Fatal(diags)
		}
		elems = append(elems, obj)
	}
	list, diags := types.ListValue(typ, elems)
	if diags.HasError() {
		t.Fatal(diags)
	}
	return list
}

func str(s string) types.String { return types.StringValue(s) }

// Credentials are found by the host an image reference names, from a
// username and password or a Docker config file's auths; Docker Hub goes
// by every name it has; what prints them never shows the password.
func TestRegistriesResolveByHost(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	config := filepath.Join(dir, "config.json")
	auth := base64.StdEncoding.EncodeToString([]byte("robot:from-file"))
	if err := os.WriteFile(config, []byte(fmt.Sprintf(`{"auths":{"ghcr.io":{"auth":%q}}}`, auth)), 0o600); err != nil {
		t.Fatal(err)
	}
	regs, diags := registries(ctx, registryList(t,
		registryModel{Address: str("registry.example.com:5000"), Username: str("ci"), Password: str("s3cret")},
		registryModel{Address: str("https://index.docker.io/v1/"), Username: str("hub"), Password: str("hub-token")},
		registryModel{Address: str("ghcr.io"), ConfigFile: str(config)},
	))
	if diags.HasError() {
		t.Fatal(diags)
	}
	for host, want := range map[string]string{"registry.example.com:5000": "ci:s3cret", "docker.io": "hub:hub-token",
		"ghcr.io": "robot:from-file"} {
		a, ok, err := regs.For(host)
		if err != nil || !ok || a.Username+":"+a.Password != want {
			t.Errorf("For(%q) = %v, %v, %v; want %s", host, a, ok, err, want)
		}
		if strings.Contains(a.String()+fmt.Sprintf("%v %+v %#v", a, a, a), a.Password) {
			t.Errorf("printing the credentials of %s shows the password", host)
		}
		if !strings.Contains(a.Setting, `registry_auth["`+host+`"]`) {
			t.Errorf("the credentials of %s name their setting as %q", host, a.Setting)
		}
	}
	if _, ok, err := regs.For("quay.io"); ok || err != nil {
		t.Errorf("credentials for a registry with no entry: %v, %v", ok, err)
	}
}

// What can be wrong with an entry is said when the provider is
// configured, on the entry, with the fix.
func TestRegistriesRefuseBadEntries(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name    string
		entries []registryModel
		want    string
	}{
		{"twice", []registryModel{{Address: str("ghcr.io"), Username: str("a"), Password: str("b")},
			{Address: str("ghcr.io"), Username: str("c"), Password: str("d")}}, "Keep one entry for it"},
		{"no credentials", []registryModel{{Address: str("ghcr.io")}}, "Give one of them"},
		{"a URL", []registryModel{{Address: str("https://ghcr.io/v2/myorg"), Username: str("a"), Password: str("b")}},
			"host and port only"},
		{"no file", []registryModel{{Address: str("ghcr.io"), ConfigFile: str("/nonexistent/config.json")}},
			"Give config_file as the path of a Docker config file"},
		{"unknown", []registryModel{{Address: str("ghcr.io"), Username: str("a"), Password: types.StringUnknown()}},
			"must be known when Terraform plans"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, diags := registries(ctx, registryList(t, tc.entries...))
			if !diags.HasError() || !strings.Contains(diags[0].Detail(), tc.want) {
				t.Fatalf("diagnostics %v, want one saying %q", diags, tc.want)
			}
		})
	}
}
