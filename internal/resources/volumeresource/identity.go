package volumeresource

import (
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/identityschema"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/framework/identity"
)

// A volume's resource identity: its name, and on a cluster its claim's
// namespace (engine.Identities).

func identitySchema() identityschema.Schema {
	return identityschema.Schema{Attributes: map[string]identityschema.Attribute{
		identity.Name: identity.Attribute("The volume's name (on a cluster, its claim's).", true),
		identity.Namespace: identity.Attribute("On a cluster, the claim's namespace: the provider's "+
			"(kubernetes.namespace) when not given.", false),
	}}
}

// identityOf is the identity of the volume named name.
func (r *Resource) identityOf(name string) map[string]string {
	return identity.FromEngine(r.Client.VolumeIdentity(name))
}

// importName is the volume an import names: its ID, or its identity's.
func (r *Resource) importName(req resource.ImportStateRequest) (string, diag.Diagnostics) {
	if req.ID != "" {
		return req.ID, nil
	}
	attrs, diags := identity.Get(req.Identity)
	if diags.HasError() {
		return "", diags
	}
	name, err := r.Client.VolumeName(identity.ToEngine(attrs))
	if err != nil {
		return "", diag.Diagnostics{diag.NewErrorDiagnostic("Cannot import volume",
			fmt.Sprintf("The import block's identity names no volume: %v. Give its name, as the resource's "+
				"identity schema has it.", err))}
	}
	return name, nil
}
