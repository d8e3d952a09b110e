// Package cos stands in for Terraform's "cos" state backend, which its Go
// module leaves out: see package refused.
package cos

import (
	"github.com/hashicorp/terraform/internal/backend"
	"github.com/hashicorp/terraform/internal/backend/remote-state/refused"
)

// New returns a backend that refuses to be configured.
func New() backend.Backend { return refused.New("cos") }
