package execresource

import (
	"maps"

	"github.com/hashicorp/terraform-plugin-framework-validators/mapvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/mapplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// resourceSchema is the whole schema: which sandbox and when to run again
// here, the command and its output from their own files.
func resourceSchema() schema.Schema {
	s := schema.Schema{
		Version: schemaVersion,
		MarkdownDescription: "A command run once in a running sandbox as part of the apply, for example a setup " +
			"step, with its exit code and output recorded. It runs again when `triggers` change and when the " +
			"sandbox is replaced or gone (`container_id` changes or Read finds no container), never during " +
			"plan. A command that fails or times out fails the apply with its exit code and the end of its " +
			"output; a timeout kills it inside the sandbox. Destroying it leaves the sandbox alone.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				MarkdownDescription: "The engine's ID of the exec that ran.",
				Computed:            true,
				PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"container_id": schema.StringAttribute{
				MarkdownDescription: "ID of the running sandbox to run in, such as `sandbox_container.agent.id`. " +
					"A new sandbox runs the command again.",
				Required:      true,
				Validators:    []validator.String{stringvalidator.LengthAtLeast(1)},
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
			},
			"triggers": schema.MapAttribute{
				MarkdownDescription: "Values that, when any changes, run the command again, for example a " +
					"script's digest: `{ setup = filesha256(\"setup.sh\") }`.",
				ElementType:   types.StringType,
				Optional:      true,
				Validators:    []validator.Map{mapvalidator.SizeAtLeast(1)},
				PlanModifiers: []planmodifier.Map{mapplanmodifier.RequiresReplace()},
			},
		},
	}
	for _, group := range []map[string]schema.Attribute{commandAttributes(), secretAttributes(), outputAttributes()} {
		maps.Copy(s.Attributes, group)
	}
	return s
}
