package containerresource

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/types"
)

func TestPendingID(t *testing.T) {
	t.Parallel()
	if token, ok := pendingToken(types.StringValue(pendingPrefix + "abc")); !ok || token != "abc" {
		t.Errorf("pending ID gave token %q, %v", token, ok)
	}
	if _, ok := pendingToken(types.StringValue("0123456789ab")); ok {
		t.Error("a container ID was taken for a pending one")
	}
}

// A failed create's state must be wholly known: what it could not observe
// becomes null, what the plan knew stays.
func TestSettleUnknowns(t *testing.T) {
	t.Parallel()
	m := coreModel()
	m.Name, m.Networks, m.ImageID = types.StringUnknown(), types.SetUnknown(types.StringType), types.StringUnknown()
	m.Files, m.SHA256 = types.DynamicUnknown(), types.MapUnknown(types.StringType)
	m.settleUnknowns()
	for name, v := range map[string]interface{ IsUnknown() bool }{
		"name": m.Name, "networks": m.Networks, "image_id": m.ImageID, "files": m.Files, "files_sha256": m.SHA256,
	} {
		if v.IsUnknown() {
			t.Errorf("%s is still unknown", name)
		}
	}
	if m.Image.ValueString() != "img" || !m.Running.ValueBool() {
		t.Errorf("known values changed: image %v, running %v", m.Image, m.Running)
	}
}
