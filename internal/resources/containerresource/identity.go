package containerresource

import (
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/identityschema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/framework/identity"
)

// A sandbox's resource identity: its container ID on a Docker engine, its
// pod's namespace, name and UID on a cluster (engine.Identities). A
// sandbox whose create was cut off keeps its pending ID as its identity
// until the apply that replaces it.

func identitySchema() identityschema.Schema {
	return identityschema.Schema{Attributes: map[string]identityschema.Attribute{
		identity.ID: identity.Attribute("The container's full ID, on a Docker engine or Podman "+
			"(docker ps --no-trunc).", false),
		identity.Namespace: identity.Attribute("On a cluster, the pod's namespace: the provider's "+
			"(kubernetes.namespace) when not given.", false),
		identity.Name: identity.Attribute("On a cluster, the pod's name.", false),
		identity.UID: identity.Attribute("On a cluster, the pod's UID: given, an import takes only the "+
			"pod with this UID, not another pod since given the same name.", false),
	}}
}

// identityOf is the identity of the sandbox with ID id.
func (r *Resource) identityOf(id string) map[string]string {
	if _, pending := pendingToken(types.StringValue(id)); pending || id == "" {
		return map[string]string{identity.ID: id}
	}
	return identity.FromEngine(r.Client.SandboxIdentity(id))
}

// importID is what an import names: its ID, or the sandbox its identity
// names.
func (r *Resource) importID(req resource.ImportStateRequest) (string, diag.Diagnostics) {
	if req.ID != "" {
		return req.ID, nil
	}
	attrs, diags := identity.Get(req.Identity)
	if diags.HasError() {
		return "", diags
	}
	id, err := r.Client.SandboxID(identity.ToEngine(attrs))
	if err != nil {
		return "", diag.Diagnostics{diag.NewErrorDiagnostic("Cannot import sandbox",
			fmt.Sprintf("The import block's identity names no sandbox: %v. Give its id (or name), as the "+
				"resource's identity schema has them.", err))}
	}
	return id, nil
}
