package containerresource

import (
	"context"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/resource/schema"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/framework/timeouts"
)

// Default timeouts. Create includes pulling a missing image.
const (
	defaultCreateTimeout = 10 * time.Minute
	defaultDeleteTimeout = 5 * time.Minute
	// cleanupTimeout bounds the removal of a container whose creation
	// failed half-way; it runs even when the request was cancelled. An
	// engine under load takes more than 10 s to list and remove one, and
	// an undo that runs out leaves the container out of the state under
	// Terraform 1.14 and later (pending.go): a Ctrl-C waits for it.
	cleanupTimeout = 30 * time.Second
)

// timeoutsModel bounds create and delete.
type timeoutsModel struct {
	Timeouts timeouts.Value `tfsdk:"timeouts"`
}

// nullTimeouts uses the defaults.
func nullTimeouts() timeoutsModel { return timeoutsModel{Timeouts: timeouts.Null()} }

// timeoutAttributes bound create and delete.
func timeoutAttributes(ctx context.Context) map[string]schema.Attribute {
	return timeouts.Attributes(ctx, "How long creating the sandbox may take, pulling a missing image included",
		defaultCreateTimeout, "How long destroying the sandbox may take", defaultDeleteTimeout)
}
