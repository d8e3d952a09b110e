package imageresource

import (
	"github.com/hashicorp/terraform-plugin-framework/resource/identityschema"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/framework/identity"
)

// An image's resource identity is its image ID: a rebuild makes another
// image, and replaces the resource.
func identitySchema() identityschema.Schema {
	return identityschema.Schema{Attributes: map[string]identityschema.Attribute{
		identity.ID: identity.Attribute("The image's ID (docker image ls --no-trunc).", true),
	}}
}
