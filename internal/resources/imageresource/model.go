package imageresource

import (
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/framework/timeouts"
)

// resourceModel is a sandbox_image in Terraform's state: its identity and
// name (here), what it is built from (context.go) and its time limits.
type resourceModel struct {
	ID            types.String   `tfsdk:"id"`
	Name          types.String   `tfsdk:"name"`
	ImageID       types.String   `tfsdk:"image_id"`
	Tagged        types.Bool     `tfsdk:"tagged"`
	KeepOnDestroy types.Bool     `tfsdk:"keep_on_destroy"`
	Timeouts      timeouts.Value `tfsdk:"timeouts"`
	buildModel
}

// inputs are the build's inputs as the engine takes them.
func (m resourceModel) inputs() buildInputs {
	b := buildInputs{dockerfile: m.Dockerfile.ValueString(), target: m.Target.ValueString(),
		args: map[string]string{}, labels: map[string]string{}}
	for k, v := range m.BuildArgs.Elements() {
		if s, ok := v.(types.String); ok {
			b.args[k] = s.ValueString()
		}
	}
	for k, v := range m.Labels.Elements() {
		if s, ok := v.(types.String); ok {
			b.labels[k] = s.ValueString()
		}
	}
	return b
}
