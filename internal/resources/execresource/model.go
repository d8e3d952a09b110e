package execresource

import (
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/framework/writeonly"
)

// resourceModel is a sandbox_exec in Terraform's state: which sandbox and
// when to run again (here), the command (command.go) and what it gave
// (output.go).
type resourceModel struct {
	ID          types.String `tfsdk:"id"`
	ContainerID types.String `tfsdk:"container_id"`
	Triggers    types.Map    `tfsdk:"triggers"`
	commandModel
	writeonly.Env
	outputModel
}
