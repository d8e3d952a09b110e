// Package refused is the one state backend behind every stub in
// tools/terraform/stubs: Terraform's Go module leaves out the nested modules
// of its remote-state backends (its go.mod replaces them with directories the
// module does not hold), so the test CLI is built with these in their place.
// Each refuses to be configured, with an error that says why; the local
// backend, the one the provider's tests use, is Terraform's own.
package refused

import (
	"fmt"

	"github.com/hashicorp/terraform/internal/backend"
	"github.com/hashicorp/terraform/internal/configs/configschema"
	"github.com/hashicorp/terraform/internal/states/statemgr"
	"github.com/hashicorp/terraform/internal/tfdiags"
	"github.com/zclconf/go-cty/cty"
)

// New returns the backend that stands in for the named one.
func New(name string) backend.Backend { return refusal(name) }

type refusal string

func (r refusal) err() tfdiags.Diagnostics {
	return tfdiags.Diagnostics{}.Append(fmt.Errorf(
		"the %q state backend is not part of this Terraform: it was built from Terraform's Go module "+
			"for the provider's tests (tools/terraform), which leaves its remote-state backends out; "+
			"use a Terraform release from HashiCorp for this backend", string(r)))
}

func (r refusal) ConfigSchema() *configschema.Block { return &configschema.Block{} }

func (r refusal) PrepareConfig(v cty.Value) (cty.Value, tfdiags.Diagnostics) { return v, r.err() }

func (r refusal) Configure(cty.Value) tfdiags.Diagnostics { return r.err() }

func (r refusal) StateMgr(string) (statemgr.Full, tfdiags.Diagnostics) { return nil, r.err() }

func (r refusal) DeleteWorkspace(string, bool) tfdiags.Diagnostics { return r.err() }

func (r refusal) Workspaces() ([]string, tfdiags.Diagnostics) { return nil, r.err() }
