package containerresource_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"
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

// A sandbox with files whose state schema version 2 wrote (files a map of
// nested objects, each with its digest) is upgraded through the real CLI:
// the next plan changes files' type in place and keeps the sandbox, the
// digests move to files_sha256, and the plan after the apply is empty.
func TestAccContainer_filesStateFromV2(t *testing.T) {
	name := acctest.Name(t)
	tf := acctest.NewCLI(t, acctest.Config(name, `
  network_mode = "none"
  files = {
    "/work/a.txt"  = { content = "a\n" }
    "/work/run.sh" = { content = "#!/bin/sh\n", mode = "0755" }
  }
`)+`
output "a_sha256" {
  value = sandbox_container.test.files_sha256["/work/a.txt"]
}
`)
	t.Cleanup(func() { tf.Run("destroy", "-auto-approve") })
	tf.Run("apply", "-auto-approve")
	id := tf.StateIDs()["sandbox_container.test"]
	stateFile := filepath.Join(tf.Dir, "terraform.tfstate")
	acctest.Write(t, stateFile, stateToV2(t, stateFile))

	if plan := tf.Run("plan"); !strings.Contains(plan, "0 to add, 1 to change, 0 to destroy") {
		t.Errorf("the plan after the upgrade does not change files in place:\n%s", plan)
	}
	tf.Run("apply", "-auto-approve")
	if now := tf.StateIDs()["sandbox_container.test"]; now != id {
		t.Errorf("the upgrade replaced the sandbox: %s, then %s", id, now)
	}
	if plan := tf.Run("plan"); !strings.Contains(plan, "No changes") {
		t.Errorf("the plan after the upgrade's apply is not empty:\n%s", plan)
	}
	sum := sha256.Sum256([]byte("a\n"))
	if got := tf.Exact("output", "-raw", "a_sha256"); got != hex.EncodeToString(sum[:]) {
		t.Errorf("files_sha256[\"/work/a.txt\"] = %q, want the digest of its content", got)
	}
}

// stateToV2 rewrites a state file of schema version 3 as version 2 wrote
// it.
func stateToV2(t *testing.T, stateFile string) string {
	t.Helper()
	raw, err := os.ReadFile(stateFile)
	if err != nil {
		t.Fatal(err)
	}
	decode := func(data json.RawMessage, v any) {
		if err := json.Unmarshal(data, v); err != nil {
			t.Fatalf("reading the state: %v", err)
		}
	}
	encode := func(v any) json.RawMessage {
		out, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	var state map[string]json.RawMessage
	decode(raw, &state)
	var resources, instances []map[string]json.RawMessage
	decode(state["resources"], &resources)
	decode(resources[0]["instances"], &instances)
	var attrs map[string]json.RawMessage
	decode(instances[0]["attributes"], &attrs)
	var files struct {
		Value map[string]map[string]any `json:"value"`
	}
	var digests map[string]string
	decode(attrs["files"], &files)
	decode(attrs["files_sha256"], &digests)
	v2 := map[string]map[string]any{}
	for p, f := range files.Value {
		v2[p] = map[string]any{"content": nil, "content_base64": nil, "source": nil, "mode": "0644", "sha256": digests[p]}
		maps.Copy(v2[p], f)
	}
	attrs["files"] = encode(v2)
	delete(attrs, "files_sha256")
	instances[0]["attributes"], instances[0]["schema_version"] = encode(attrs), encode(2)
	resources[0]["instances"] = encode(instances)
	state["resources"] = encode(resources)
	return string(encode(state))
}
