package volumeresource

import (
	"context"
	"encoding/json"
	"maps"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/framework/values"
)

// resourceModel is a sandbox_volume in Terraform's state.
type resourceModel struct {
	ID            types.String `tfsdk:"id"`
	Name          types.String `tfsdk:"name"`
	Labels        types.Map    `tfsdk:"labels"`
	KeepOnDestroy types.Bool   `tfsdk:"keep_on_destroy"`
	seedModel
}

// spec is what the engine is asked to create, with the provider's labels
// and a fresh create token.
func (m resourceModel) spec(ctx context.Context, token string) (engine.VolumeSpec, diag.Diagnostics) {
	var labels map[string]string
	diags := m.Labels.ElementsAs(ctx, &labels, false)
	if labels == nil {
		labels = map[string]string{}
	}
	maps.Copy(labels, engine.OwnershipLabels(resourceType))
	labels[engine.LabelCreateToken] = token
	return engine.VolumeSpec{Name: m.Name.ValueString(), Labels: labels}, diags
}

// observe records what the engine shows of v: the user's labels, keeping
// the state's null for none.
func (m *resourceModel) observe(v engine.Volume) {
	m.ID = types.StringValue(v.Name)
	m.Name = types.StringValue(v.Name)
	user := map[string]string{}
	for k, val := range v.Labels {
		if !engine.IsProviderLabel(k) {
			user[k] = val
		}
	}
	m.Labels = values.KeepIfEqual(m.Labels, values.StringMap(user))
}

// tokenKey is the private state's key for the volume's create token.
const tokenKey = "create_token"

// privateState is the part of a resource's private state the volume uses.
type privateState interface {
	GetKey(ctx context.Context, key string) ([]byte, diag.Diagnostics)
	SetKey(ctx context.Context, key string, value []byte) diag.Diagnostics
}

func writeToken(ctx context.Context, p privateState, token string) diag.Diagnostics {
	b, _ := json.Marshal(token) // a string always marshals
	return p.SetKey(ctx, tokenKey, b)
}

// readToken is the recorded create token: empty when none was recorded.
func readToken(ctx context.Context, p privateState) (string, diag.Diagnostics) {
	b, diags := p.GetKey(ctx, tokenKey)
	var token string
	if len(b) > 0 {
		_ = json.Unmarshal(b, &token) // a bad value reads as no token: nothing is proven
	}
	return token, diags
}
