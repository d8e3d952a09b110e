package snapshotresource

import (
	"github.com/hashicorp/terraform-plugin-framework/resource/identityschema"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/framework/identity"
)

// A snapshot's resource identity is its archive's path: each snapshot is
// a new file, never written over.
func identitySchema() identityschema.Schema {
	return identityschema.Schema{Attributes: map[string]identityschema.Attribute{
		identity.File: identity.Attribute("The archive's absolute path.", true),
	}}
}
