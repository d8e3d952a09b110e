// Package timeouts gives every resource the same `timeouts` block: create
// and delete durations greater than zero, each with its default in its
// description, changed in the state only.
package timeouts

import (
	"context"
	"strconv"
	"time"

	fwtimeouts "github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/framework/validators"
)

// Value is a resource's timeouts block.
type Value = fwtimeouts.Value

// Null is a timeouts block that asks for the defaults.
func Null() Value {
	return Value{Object: types.ObjectNull(map[string]attr.Type{
		"create": types.StringType, "delete": types.StringType,
	})}
}

// Attributes is the `timeouts` attribute. createDesc and deleteDesc say
// what each bounds, as a sentence without its period ("How long creating
// the sandbox may take"); the defaults are added to them.
func Attributes(ctx context.Context, createDesc string, createDefault time.Duration, deleteDesc string, deleteDefault time.Duration) map[string]schema.Attribute {
	attribute := fwtimeouts.Attributes(ctx, fwtimeouts.Opts{
		Create:            true,
		Delete:            true,
		CreateDescription: createDesc + " (default `" + Short(createDefault) + "`).",
		DeleteDescription: deleteDesc + " (default `" + Short(deleteDefault) + "`).",
	})
	if nested, ok := attribute.(schema.SingleNestedAttribute); ok {
		nested.MarkdownDescription = "Time limits, as durations greater than zero such as `\"30s\"` or " +
			"`\"2m\"`. Changing them updates the state only."
		for name, a := range nested.Attributes {
			if s, ok := a.(schema.StringAttribute); ok {
				s.Validators = append(s.Validators, validators.PositiveDuration())
				nested.Attributes[name] = s
			}
		}
		attribute = nested
	}
	return map[string]schema.Attribute{"timeouts": attribute}
}

// Short prints whole minutes as "10m" rather than "10m0s".
func Short(d time.Duration) string {
	if d%time.Minute == 0 {
		return strconv.FormatInt(int64(d/time.Minute), 10) + "m"
	}
	return d.String()
}
