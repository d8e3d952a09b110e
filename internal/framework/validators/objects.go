package validators

import (
	"context"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
)

// ExactlyOneOf is an object validator that requires exactly one of the
// named attributes of the object to be set. It reads the object's own
// attributes, where the framework-validators' ExactlyOneOf, put on each
// attribute, walks the whole configuration for each element: a map of
// 2,000 objects took minutes to validate.
func ExactlyOneOf(names ...string) validator.Object {
	return exactlyOneOf(names)
}

type exactlyOneOf []string

func (v exactlyOneOf) Description(context.Context) string {
	return "exactly one of " + strings.Join(v, ", ") + " must be set"
}

func (v exactlyOneOf) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (v exactlyOneOf) ValidateObject(_ context.Context, req validator.ObjectRequest, resp *validator.ObjectResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	attrs := req.ConfigValue.Attributes()
	var set []string
	for _, name := range v {
		value, ok := attrs[name]
		if !ok {
			continue
		}
		if value.IsUnknown() {
			return // decided at apply
		}
		if !value.IsNull() {
			set = append(set, name)
		}
	}
	if len(set) != 1 {
		got := "none"
		if len(set) > 1 {
			got = strings.Join(set, " and ")
		}
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid Attribute Combination", fmt.Sprintf(
			"Attribute %s needs exactly one of %s; it has %s. Set one of them, and remove the others.", req.Path,
			strings.Join(v, ", "), got))
	}
}
