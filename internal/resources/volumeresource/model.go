package volumeresource

import (
	"context"
	"encoding/json"
	"maps"
	"strings"

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
	restoreModel
	sizeModel
	timeoutsModel
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
	spec := engine.VolumeSpec{Name: m.Name.ValueString(), Labels: labels}
	m.applyTo(&spec, m.owner())
	return spec, diags
}

// observe records what the engine shows of v: the user's labels, keeping
// the state's null for none, and a pending ID.
func (m *resourceModel) observe(v engine.Volume) {
	if !strings.HasPrefix(m.ID.ValueString(), pendingPrefix) {
		m.ID = types.StringValue(v.Name)
	}
	m.Name = types.StringValue(v.Name)
	user := map[string]string{}
	for k, val := range v.Labels {
		if !engine.IsProviderLabel(k) {
			user[k] = val
		}
	}
	m.Labels = values.KeepIfEqual(m.Labels, values.StringMap(user))
}

// tokens are what the private state records: the volume's create token,
// and the token of a failed seeding whose helpers may be left.
type tokens struct {
	create string
	seed   string
}

// Private state keys.
const (
	tokenKey     = "create_token"
	seedTokenKey = "seed_token"
)

// privateState is the part of a resource's private state the volume uses.
type privateState interface {
	GetKey(ctx context.Context, key string) ([]byte, diag.Diagnostics)
	SetKey(ctx context.Context, key string, value []byte) diag.Diagnostics
}

func writeTokens(ctx context.Context, p privateState, t tokens) diag.Diagnostics {
	create, _ := json.Marshal(t.create) // a string always marshals
	diags := p.SetKey(ctx, tokenKey, create)
	if t.seed != "" {
		seed, _ := json.Marshal(t.seed)
		diags.Append(p.SetKey(ctx, seedTokenKey, seed)...)
	}
	return diags
}

// pendingPrefix starts the ID of a volume whose seeding failed and that
// could not be removed: Terraform does not keep the private state of a
// create that failed, so the ID carries the tokens (create, then seed,
// after the prefix, separated by ":").
const pendingPrefix = "seeding-failed:"

func pendingID(t tokens) types.String {
	return types.StringValue(pendingPrefix + t.create + ":" + t.seed)
}

// readTokens are the recorded tokens, from the private state or a pending
// ID: empty where none was recorded.
func readTokens(ctx context.Context, p privateState, id types.String) (tokens, diag.Diagnostics) {
	var t tokens
	if rest, ok := strings.CutPrefix(id.ValueString(), pendingPrefix); ok {
		t.create, t.seed, _ = strings.Cut(rest, ":")
		return t, nil
	}
	var diags diag.Diagnostics
	for key, into := range map[string]*string{tokenKey: &t.create, seedTokenKey: &t.seed} {
		b, d := p.GetKey(ctx, key)
		diags.Append(d...)
		if len(b) > 0 {
			_ = json.Unmarshal(b, into) // a bad value reads as no token: nothing is proven
		}
	}
	return t, diags
}
