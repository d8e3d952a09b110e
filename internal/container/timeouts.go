package container

import (
	"context"
	"strconv"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/validators"
)

// Default timeouts. Create includes pulling a missing image.
const (
	defaultCreateTimeout = 10 * time.Minute
	defaultDeleteTimeout = 5 * time.Minute
	// cleanupTimeout bounds the removal of a container whose creation
	// failed half-way; it runs even when the request was cancelled.
	cleanupTimeout = 10 * time.Second
)

// timeoutsModel bounds create and delete.
type timeoutsModel struct {
	Timeouts timeouts.Value `tfsdk:"timeouts"`
}

// nullTimeouts uses the defaults.
func nullTimeouts() timeoutsModel {
	return timeoutsModel{Timeouts: timeouts.Value{Object: types.ObjectNull(map[string]attr.Type{
		"create": types.StringType, "delete": types.StringType,
	})}}
}

// timeoutAttributes bound create and delete, as durations like "30s" or
// "2m".
func timeoutAttributes(ctx context.Context) map[string]schema.Attribute {
	attribute := timeouts.Attributes(ctx, timeouts.Opts{
		Create: true,
		Delete: true,
		CreateDescription: "How long creating the sandbox may take, pulling a missing image included (default `" +
			shortDuration(defaultCreateTimeout) + "`).",
		DeleteDescription: "How long destroying the sandbox may take (default `" +
			shortDuration(defaultDeleteTimeout) + "`).",
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

// shortDuration prints whole minutes as "10m" rather than "10m0s".
func shortDuration(d time.Duration) string {
	if d%time.Minute == 0 {
		return strconv.FormatInt(int64(d/time.Minute), 10) + "m"
	}
	return d.String()
}
