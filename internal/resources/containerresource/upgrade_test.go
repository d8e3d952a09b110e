package containerresource_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/acctest"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/resources/containerresource"
)

// A state exactly as schema version 0 wrote it: no network_mode attribute.
const stateV0 = `{
  "id": "0123456789abcdef",
  "name": "legacy-sandbox",
  "image": "tfsandbox/busybox:latest",
  "entrypoint": null,
  "command": ["sleep", "3600"],
  "env": {"GREETING": "hello"},
  "labels": {"team": "platform"},
  "working_dir": "/tmp",
  "user": null,
  "init": true,
  "running": true,
  "stop_timeout": 10,
  "networks": ["bridge"],
  "image_id": "sha256:abc"
}`

// A state exactly as schema version 1 wrote it: network_mode, and nothing of
// hardening, limits, ports, files, secrets or timeouts.
const stateV1 = `{
  "network_mode": "none",
  "id": "0123456789abcdef",
  "name": "legacy-sandbox",
  "image": "tfsandbox/busybox:latest",
  "entrypoint": null,
  "command": ["sleep", "3600"],
  "env": {"GREETING": "hello"},
  "labels": {"team": "platform"},
  "working_dir": "/tmp",
  "user": null,
  "init": true,
  "running": true,
  "stop_timeout": 10,
  "networks": ["bridge"],
  "image_id": "sha256:abc"
}`

func TestContainerStateUpgrade(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		version     int64
		raw         string
		networkMode tftypes.Value
	}{
		{0, stateV0, tftypes.NewValue(tftypes.String, nil)},
		{1, stateV1, tftypes.NewValue(tftypes.String, "none")},
	} {
		t.Run(fmt.Sprintf("from version %d", c.version), func(t *testing.T) {
			t.Parallel()
			attrs := upgrade(t, c.version, c.raw)
			if !attrs["network_mode"].Equal(c.networkMode) {
				t.Errorf("network_mode = %v, want %v", attrs["network_mode"], c.networkMode)
			}
			checkCarriedOver(t, attrs)
			// What the earlier versions created: no no-new-privileges, a
			// writable root, no limits.
			for name, want := range map[string]bool{"no_new_privileges": false, "read_only": false, "allow_unconfined": false} {
				var got bool
				if err := attrs[name].As(&got); err != nil || got != want {
					t.Errorf("%s = %v (%v), want %v", name, attrs[name], err, want)
				}
			}
			for _, name := range []string{"memory", "cpus", "pids_limit", "cap_drop", "files", "ports", "env_wo", "timeouts"} {
				if !attrs[name].IsNull() {
					t.Errorf("%s = %v, want null", name, attrs[name])
				}
			}
		})
	}
}

// upgrade runs a raw state of the given version through the provider's
// UpgradeResourceState and returns the upgraded attributes.
func upgrade(t *testing.T, version int64, raw string) map[string]tftypes.Value {
	t.Helper()
	ctx := context.Background()
	server, err := acctest.ProtoV6ProviderFactories["sandbox"]()
	if err != nil {
		t.Fatal(err)
	}
	schemas, err := server.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		t.Fatal(err)
	}
	schema := schemas.ResourceSchemas["sandbox_container"]
	if schema.Version != containerresource.SchemaVersion {
		t.Fatalf("schema version %d, want %d", schema.Version, containerresource.SchemaVersion)
	}

	resp, err := server.UpgradeResourceState(ctx, &tfprotov6.UpgradeResourceStateRequest{
		TypeName: "sandbox_container",
		Version:  version,
		RawState: &tfprotov6.RawState{JSON: []byte(raw)},
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range resp.Diagnostics {
		t.Errorf("diagnostic: %s: %s", d.Summary, d.Detail)
	}
	upgraded, err := resp.UpgradedState.Unmarshal(schema.ValueType())
	if err != nil {
		t.Fatal(err)
	}
	var attrs map[string]tftypes.Value
	if err := upgraded.As(&attrs); err != nil {
		t.Fatal(err)
	}
	return attrs
}

func checkCarriedOver(t *testing.T, attrs map[string]tftypes.Value) {
	t.Helper()
	wantStrings := map[string]string{
		"id": "0123456789abcdef", "name": "legacy-sandbox", "image": "tfsandbox/busybox:latest",
		"working_dir": "/tmp", "image_id": "sha256:abc",
	}
	for name, want := range wantStrings {
		var got string
		if err := attrs[name].As(&got); err != nil || got != want {
			t.Errorf("%s = %v (%v), want %q", name, attrs[name], err, want)
		}
	}
	for _, name := range []string{"command", "env", "labels", "networks", "init", "running", "stop_timeout"} {
		if attrs[name].IsNull() || !attrs[name].IsKnown() {
			t.Errorf("%s was not carried over: %v", name, attrs[name])
		}
	}
	if !attrs["user"].IsNull() || !attrs["entrypoint"].IsNull() {
		t.Errorf("null attributes changed: user %v, entrypoint %v", attrs["user"], attrs["entrypoint"])
	}
}
