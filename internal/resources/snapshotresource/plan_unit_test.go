package snapshotresource

import (
	"context"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
)

// refusing is a backend that cannot take a snapshot from this platform
// (Podman with no helper program for its host): only SnapshotRefusal is
// asked of it.
type refusing struct {
	engine.Engine
	why string
}

func (r refusing) SnapshotRefusal(context.Context) string { return r.why }

// A snapshot the backend cannot take from the provider's platform is
// refused at plan, on volume, when the plan takes one: at create and at a
// replacement, not for a change in place or a destroy.
func TestPlanRefusesASnapshotThisPlatformCannotTake(t *testing.T) {
	ctx := context.Background()
	s := resourceSchema(ctx)
	typ, ok := s.Type().TerraformType(ctx).(tftypes.Object)
	if !ok {
		t.Fatal("the schema's type is not an object")
	}
	nulls := map[string]tftypes.Value{}
	for name, at := range typ.AttributeTypes {
		nulls[name] = tftypes.NewValue(at, nil)
	}
	some := tftypes.NewValue(typ, nulls)
	none := tftypes.NewValue(typ, nil)
	const why = "taking a snapshot of a volume on Podman (sandbox_snapshot) needs the provider's helper program"
	for _, tc := range []struct {
		name         string
		state, plan  tftypes.Value
		replace, bad bool
	}{
		{"create", none, some, false, true},
		{"replacement", some, some, true, true},
		{"in place", some, some, false, false},
		{"destroy", some, none, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &Resource{}
			r.Client = refusing{why: why}
			req := resource.ModifyPlanRequest{State: tfsdk.State{Schema: s, Raw: tc.state},
				Plan: tfsdk.Plan{Schema: s, Raw: tc.plan}}
			resp := &resource.ModifyPlanResponse{Plan: req.Plan}
			if tc.replace {
				resp.RequiresReplace = path.Paths{path.Root("volume")}
			}
			r.ModifyPlan(ctx, req, resp)
			if !tc.bad {
				if resp.Diagnostics.HasError() {
					t.Fatalf("refused: %v", resp.Diagnostics)
				}
				return
			}
			if len(resp.Diagnostics) != 1 || !strings.Contains(resp.Diagnostics[0].Detail(), why) {
				t.Fatalf("diagnostics %v, want the backend's refusal", resp.Diagnostics)
			}
			if d, ok := resp.Diagnostics[0].(interface{ Path() path.Path }); !ok || !d.Path().Equal(path.Root("volume")) {
				t.Errorf("the refusal is not on volume: %v", resp.Diagnostics[0])
			}
		})
	}
	// A backend that can take it is asked and says nothing.
	r := &Resource{}
	r.Client = refusing{}
	resp := &resource.ModifyPlanResponse{}
	r.ModifyPlan(ctx, resource.ModifyPlanRequest{State: tfsdk.State{Schema: s, Raw: none},
		Plan: tfsdk.Plan{Schema: s, Raw: some}}, resp)
	if resp.Diagnostics.HasError() {
		t.Fatalf("refused: %v", resp.Diagnostics)
	}
}
