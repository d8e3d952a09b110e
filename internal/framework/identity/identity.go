// Package identity writes and reads resource identities (Terraform 1.12
// and later, OpenTofu 1.12 and later): what an import block's `identity`
// gives, and what `terraform query` finds. Every identity attribute is a
// string; an attribute a backend does not use is null.
package identity

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource/identityschema"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
)

// The attributes of the identities: a sandbox's (ID on a Docker engine;
// Namespace, Name and UID on a cluster), a volume's (Name, and Namespace
// on a cluster), an image's (ID) and a snapshot's (File).
const (
	ID        = "id"
	Namespace = "namespace"
	Name      = "name"
	UID       = "uid"
	File      = "file"
)

// Attribute is a string identity attribute, required for an import by
// identity or optional.
func Attribute(description string, required bool) identityschema.StringAttribute {
	return identityschema.StringAttribute{Description: description, RequiredForImport: required, OptionalForImport: !required}
}

// Set writes an identity: each attribute of dst's schema from attrs, null
// where attrs has none or "".
func Set(ctx context.Context, dst *tfsdk.ResourceIdentity, attrs map[string]string) diag.Diagnostics {
	if dst == nil {
		return nil
	}
	typ, ok := dst.Schema.Type().TerraformType(ctx).(tftypes.Object)
	if !ok {
		return diag.Diagnostics{diag.NewErrorDiagnostic("Cannot write the resource identity",
			fmt.Sprintf("The identity schema is a %s, not an object. This is a bug in the provider: please report it.", dst.Schema.Type()))}
	}
	vals := make(map[string]tftypes.Value, len(typ.AttributeTypes))
	for name := range typ.AttributeTypes {
		if v := attrs[name]; v != "" {
			vals[name] = tftypes.NewValue(tftypes.String, v)
		} else {
			vals[name] = tftypes.NewValue(tftypes.String, nil)
		}
	}
	dst.Raw = tftypes.NewValue(typ, vals)
	return nil
}

// SetIfMissing writes the identity as Set does when dst holds none yet: a
// state from before the resource had identities, or a CLI that keeps none
// between runs (Terraform 1.11), whose Read and Update must still return
// one. An identity once recorded never changes.
func SetIfMissing(ctx context.Context, dst *tfsdk.ResourceIdentity, attrs map[string]string) diag.Diagnostics {
	if !Missing(dst) {
		return nil
	}
	return Set(ctx, dst, attrs)
}

// Missing reports whether src holds no identity yet: a state written
// before the resource had one, or by a CLI without identities.
func Missing(src *tfsdk.ResourceIdentity) bool {
	return src != nil && src.Raw.IsFullyNull()
}

// Get reads an identity's attributes that are set.
func Get(src *tfsdk.ResourceIdentity) (map[string]string, diag.Diagnostics) {
	out := map[string]string{}
	if src == nil || src.Raw.IsNull() {
		return out, nil
	}
	var vals map[string]tftypes.Value
	if err := src.Raw.As(&vals); err != nil {
		return out, diag.Diagnostics{diag.NewErrorDiagnostic("Cannot read the resource identity", fmt.Sprintf(
			"%v. Give the import block's identity as the resource's identity schema has it (its docs list the "+
				"attributes), or import by ID.", err))}
	}
	for name, v := range vals {
		var s string
		if !v.IsKnown() || v.IsNull() {
			continue
		}
		if err := v.As(&s); err != nil {
			return out, diag.Diagnostics{diag.NewErrorDiagnostic("Cannot read the resource identity",
				fmt.Sprintf("identity.%s: %v. Give it as a string.", name, err))}
		}
		if s != "" {
			out[name] = s
		}
	}
	return out, nil
}

// FromEngine is a backend's identity of a sandbox or a volume, as
// attributes.
func FromEngine(i engine.Identity) map[string]string {
	return map[string]string{ID: i.ID, Namespace: i.Namespace, Name: i.Name, UID: i.UID}
}

// ToEngine is the backend's identity the attributes give.
func ToEngine(attrs map[string]string) engine.Identity {
	return engine.Identity{ID: attrs[ID], Namespace: attrs[Namespace], Name: attrs[Name], UID: attrs[UID]}
}
