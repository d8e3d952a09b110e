package volumeresource

import (
	"fmt"
	"maps"
	"regexp"

	"github.com/hashicorp/terraform-plugin-framework-validators/mapvalidator"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/mapplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/framework/validators"
)

// defaultKeepOnDestroy is keep_on_destroy's default.
const defaultKeepOnDestroy = false

// resourceSchema is the whole schema.
func resourceSchema() schema.Schema {
	s := schema.Schema{
		Version: schemaVersion,
		MarkdownDescription: "A named volume on the engine, for a sandbox's work to outlive the sandbox: " +
			"mount it with `sandbox_container.mounts`, and what an agent writes there survives every " +
			"replacement of the sandbox (a rebuilt image, a repaired breach, `terraform apply -replace`). " +
			"The provider only ever removes or adopts a volume it created: a refresh that finds the volume " +
			"gone, or another volume under its name, plans to create it again and warns that its data is " +
			"gone. See the workspaces guide.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				MarkdownDescription: "The volume's name, as `name`; `seeding-failed:...` for a volume whose seeding failed and that the next apply replaces.",
				Computed:            true,
				PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"name": schema.StringAttribute{
				MarkdownDescription: "The volume's name on the engine, such as `\"agent-42-workspace\"`: two or more " +
					"letters, digits, `_`, `.` and `-`, starting with a letter or digit, and not 64 hex digits (the " +
					"engines' names for anonymous volumes). A name that another volume " +
					"already has is refused at apply, whoever made it. Changing it forces replacement, and a " +
					"replaced volume starts empty.",
				Required:      true,
				Validators:    []validator.String{nameValidator()},
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
			},
			"labels": schema.MapAttribute{
				MarkdownDescription: "Labels to give the volume. The provider also stamps its own, whose keys " +
					"start with `" + engine.LabelPrefix + "`; keys with that prefix cannot be set here. The " +
					"engines cannot change a volume's labels, so changing them forces replacement, and a " +
					"replaced volume starts empty.",
				ElementType: types.StringType,
				Optional:    true,
				Validators: []validator.Map{mapvalidator.KeysAre(validators.NoPrefix(engine.LabelPrefix,
					"the provider's own labels use"))},
				PlanModifiers: []planmodifier.Map{mapplanmodifier.RequiresReplace()},
			},
			"keep_on_destroy": schema.BoolAttribute{
				MarkdownDescription: "Whether destroying leaves the volume, and its data, on the engine. When " +
					"false (the default), destroy removes the volume; a volume that a container still mounts " +
					"is an error that names the containers. Changing it updates the state only.",
				Optional: true,
				Computed: true,
				Default:  booldefault.StaticBool(defaultKeepOnDestroy),
			},
		},
	}
	maps.Copy(s.Attributes, seedAttributes())
	maps.Copy(s.Attributes, restoreAttributes())
	maps.Copy(s.Attributes, sizeAttributes())
	maps.Copy(s.Attributes, timeoutAttributes())
	return s
}

var (
	volumeName      = regexp.MustCompile(`^[a-zA-Z0-9][a-zA-Z0-9_.-]+$`)
	anonymousVolume = regexp.MustCompile(`^[0-9a-f]{64}$`)
)

// nameValidator accepts the names the engines accept, less those that read
// as an anonymous volume's.
func nameValidator() validator.String {
	const desc = "must be two or more letters, digits, _, . and -, starting with a letter or digit"
	return validators.String(desc, func(s string) string {
		switch {
		case !volumeName.MatchString(s):
			return desc
		case anonymousVolume.MatchString(s):
			return fmt.Sprintf("%s, and not 64 hex digits, which is how the engines name the anonymous "+
				"volumes they make themselves", desc)
		}
		return ""
	})
}
