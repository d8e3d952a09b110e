package values

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"
)

// PrivateReader is a request's private state (what a resource keeps
// between runs beside its state, unseen by the user).
type PrivateReader interface {
	GetKey(ctx context.Context, key string) ([]byte, diag.Diagnostics)
}

// PrivateWriter is a response's private state.
type PrivateWriter interface {
	SetKey(ctx context.Context, key string, value []byte) diag.Diagnostics
}
