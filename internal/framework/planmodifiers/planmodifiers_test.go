package planmodifiers

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

func TestRequiresReplaceWhenRemoved(t *testing.T) {
	t.Parallel()
	// A non-null state and plan: an existing resource being updated.
	existing := tftypes.NewValue(tftypes.Object{}, map[string]tftypes.Value{})
	for _, c := range []struct {
		name          string
		state, config types.Int64
		replace       bool
	}{
		{"changed", types.Int64Value(64), types.Int64Value(128), false},
		{"added", types.Int64Null(), types.Int64Value(64), false},
		{"removed", types.Int64Value(64), types.Int64Null(), true},
		{"unchanged", types.Int64Value(64), types.Int64Value(64), false},
	} {
		t.Run(c.name, func(t *testing.T) {
			req := planmodifier.Int64Request{
				State:       tfsdk.State{Raw: existing},
				Plan:        tfsdk.Plan{Raw: existing},
				StateValue:  c.state,
				ConfigValue: c.config,
				PlanValue:   c.config,
			}
			resp := &planmodifier.Int64Response{PlanValue: c.config}
			Int64RequiresReplaceWhenRemoved().PlanModifyInt64(context.Background(), req, resp)
			if resp.RequiresReplace != c.replace {
				t.Errorf("requires replace = %v, want %v", resp.RequiresReplace, c.replace)
			}

			freq := planmodifier.Float64Request{State: req.State, Plan: req.Plan,
				StateValue: float(c.state), ConfigValue: float(c.config), PlanValue: float(c.config)}
			fresp := &planmodifier.Float64Response{PlanValue: float(c.config)}
			Float64RequiresReplaceWhenRemoved().PlanModifyFloat64(context.Background(), freq, fresp)
			if fresp.RequiresReplace != c.replace {
				t.Errorf("float: requires replace = %v, want %v", fresp.RequiresReplace, c.replace)
			}
		})
	}
}

func float(v types.Int64) types.Float64 {
	if v.IsNull() {
		return types.Float64Null()
	}
	return types.Float64Value(float64(v.ValueInt64()))
}
