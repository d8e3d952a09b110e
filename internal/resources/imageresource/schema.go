package imageresource

import (
	"context"
	"fmt"
	"maps"
	"time"

	"github.com/distribution/reference"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/framework/timeouts"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/framework/validators"
)

// Default timeouts: a build runs its Dockerfile's steps.
const (
	defaultCreateTimeout = 20 * time.Minute
	defaultDeleteTimeout = 5 * time.Minute
)

// resourceSchema is the whole schema: the identity here, the build inputs
// from context.go.
func resourceSchema(ctx context.Context) schema.Schema {
	s := schema.Schema{
		Version: schemaVersion,
		MarkdownDescription: "An image built on the engine from a local directory, to run sandboxes from. " +
			"No registry is needed: `FROM` an image already on the engine builds offline. The plan rebuilds it " +
			"when a file of the context changes and when the image is removed behind Terraform's back, and puts " +
			"its tag back when someone moves it to another image. Give `image_id` to `sandbox_container.image`, so that a " +
			"rebuilt image replaces the sandboxes that run it. An image it built can be imported, and found with " +
			"`terraform query`: the image records the configuration it was built from.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				MarkdownDescription: "The image's ID, as `image_id`.",
				Computed:            true,
				PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"name": schema.StringAttribute{
				MarkdownDescription: "Repository and tag to give the image, such as `\"agents/python:3\"` (`:latest` " +
					"when no tag is given). The provider refuses to move a tag that names an image it did not " +
					"build, or that a `sandbox_image` of another configuration built (see the isolation guide). " +
					"Changing it forces a rebuild.",
				Required:      true,
				Validators:    []validator.String{nameValidator()},
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
			},
			"image_id": schema.StringAttribute{
				MarkdownDescription: "The built image's ID (`sha256:...`), for `sandbox_container.image`.",
				Computed:            true,
				PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"tagged": schema.BoolAttribute{
				MarkdownDescription: "Observed: whether `name` still names `image_id` on the engine. When the " +
					"tag has been moved to another image behind Terraform's back it reads `false`, and apply " +
					"puts the tag back on this image in place (a rebuild of the same context would give the " +
					"same image). An image that is gone is rebuilt.",
				Computed: true,
			},
			"keep_on_destroy": schema.BoolAttribute{
				MarkdownDescription: "Whether destroying leaves the image on the engine. When false (the " +
					"default), destroy removes the image's tag, and the image with it unless another tag names " +
					"it, with the intermediate images its build made for its steps. It never removes an image " +
					"the build started FROM or found in its cache, such as a base image given by its ID: the engine " +
					"is not asked to prune untagged parents, nor any image a step's output names (a line like " +
					"the builder's own): an intermediate is one the engine shows untagged and made during the " +
					"build. An imported image's intermediates stay (only a build " +
					"records them). An image a container still uses is an error that names the containers. " +
					"Changing it updates the state only.",
				Optional: true,
				Computed: true,
				Default:  booldefault.StaticBool(false),
			},
		},
	}
	for _, group := range []map[string]schema.Attribute{
		buildAttributes(),
		timeouts.Attributes(ctx, "How long building the image may take", defaultCreateTimeout,
			"How long removing the image may take", defaultDeleteTimeout),
	} {
		maps.Copy(s.Attributes, group)
	}
	return s
}

// nameValidator accepts a repository with an optional tag, and no digest.
func nameValidator() validator.String {
	const desc = "must be a repository and an optional tag, such as agents/python:3, without a digest"
	return validators.String(desc, func(s string) string {
		named, err := reference.ParseNormalizedNamed(s)
		if err != nil {
			return fmt.Sprintf("%s (%v)", desc, err)
		}
		if _, ok := named.(reference.Digested); ok {
			return desc
		}
		return ""
	})
}

// tagged is name with ":latest" when it has no tag, as the engine tags it.
func tagged(name string) string {
	named, err := reference.ParseNormalizedNamed(name)
	if err != nil {
		return name
	}
	return reference.FamiliarString(reference.TagNameOnly(named))
}
