// Package gcs stands in for Terraform's "gcs" state backend, which its Go
// module leaves out: see package refused.
package gcs

import (
	"github.com/hashicorp/terraform/internal/backend"
	"github.com/hashicorp/terraform/internal/backend/remote-state/refused"
)

// New returns a backend that refuses to be configured.
func New() backend.Backend { return refused.New("gcs") }
