package volumeresource

import (
	"context"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/framework/timeouts"
)

// Default timeouts: a seeding or a restore streams GiBs.
const (
	defaultCreateTimeout = 20 * time.Minute
	defaultDeleteTimeout = 2 * time.Minute
)

// timeoutsModel bounds create (its seeding or restore), a reseed, and
// delete.
type timeoutsModel struct {
	Timeouts timeouts.Value `tfsdk:"timeouts"`
}

func timeoutAttributes() map[string]schema.Attribute {
	return timeouts.Attributes(context.Background(), "How long creating the volume may take, its seeding or "+
		"restore included (and a reseed)", defaultCreateTimeout, "How long removing the volume may take",
		defaultDeleteTimeout)
}

// within bounds ctx by the create (or delete) timeout of m, with a cause
// that names it (timeouts.ExpiredIn).
func (m timeoutsModel) within(ctx context.Context, del bool) (context.Context, context.CancelFunc, diag.Diagnostics) {
	attr, limit, diags := "timeouts.create", time.Duration(0), diag.Diagnostics(nil)
	if del {
		attr = "timeouts.delete"
		limit, diags = m.Timeouts.Delete(ctx, defaultDeleteTimeout)
	} else {
		limit, diags = m.Timeouts.Create(ctx, defaultCreateTimeout)
	}
	if diags.HasError() {
		return ctx, func() {}, diags
	}
	ctx, cancel := timeouts.Within(ctx, attr, limit)
	return ctx, cancel, nil
}
