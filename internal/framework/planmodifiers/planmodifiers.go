// Package planmodifiers holds generic plan modifiers the framework does not
// offer.
package planmodifiers

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/resource/schema/float64planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
)

const removedDescription = "Changing the value is applied in place; removing it forces replacement."

// Int64RequiresReplaceWhenRemoved forces replacement when a value present
// in the state is removed from the configuration.
func Int64RequiresReplaceWhenRemoved() planmodifier.Int64 {
	return int64planmodifier.RequiresReplaceIf(
		func(_ context.Context, req planmodifier.Int64Request, resp *int64planmodifier.RequiresReplaceIfFuncResponse) {
			resp.RequiresReplace = !req.StateValue.IsNull() && req.ConfigValue.IsNull()
		}, removedDescription, removedDescription)
}

// Float64RequiresReplaceWhenRemoved forces replacement when a value present
// in the state is removed from the configuration.
func Float64RequiresReplaceWhenRemoved() planmodifier.Float64 {
	return float64planmodifier.RequiresReplaceIf(
		func(_ context.Context, req planmodifier.Float64Request, resp *float64planmodifier.RequiresReplaceIfFuncResponse) {
			resp.RequiresReplace = !req.StateValue.IsNull() && req.ConfigValue.IsNull()
		}, removedDescription, removedDescription)
}
