package resources_test

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
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

func TestContainerStateUpgradeFromV0(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	server, err := protoV6ProviderFactories["sandbox"]()
	if err != nil {
		t.Fatal(err)
	}
	schemas, err := server.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		t.Fatal(err)
	}
	schema := schemas.ResourceSchemas["sandbox_container"]
	if schema.Version != 1 {
		t.Fatalf("schema version %d, want 1", schema.Version)
	}

	resp, err := server.UpgradeResourceState(ctx, &tfprotov6.UpgradeResourceStateRequest{
		TypeName: "sandbox_container",
		Version:  0,
		RawState: &tfprotov6.RawState{JSON: []byte(stateV0)},
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

	if !attrs["network_mode"].IsNull() {
		t.Errorf("network_mode = %v, want null", attrs["network_mode"])
	}
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
