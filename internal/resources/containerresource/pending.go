package containerresource

import (
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/types"
)

// A create that is cut off (Ctrl-C, a timeout, a crash of the engine or of
// the connection) may leave a container the engine made but the provider
// never heard of. Every create stamps a token of its own on the container
// (engine.LabelCreateToken); when the create fails, the provider removes
// whatever carries that token. When it cannot (the engine is gone), it
// records the sandbox in the state with a pending ID naming the token, so
// that Terraform taints it: the next refresh finds the container by the
// token, and the next apply replaces it. (A CLI that cannot save a failed
// create's state, framework/cli, gets none: the error gives the token and
// the command that removes the container.) Nothing is ever found by name, so
// nothing the token does not prove is touched. The engine work is in the
// lifecycle files: undoCreate (create.go), resolvePending (read.go) and
// removeByToken (delete.go).

// pendingPrefix starts the ID of a sandbox whose create was cut off before
// the provider learnt the container's ID.
const pendingPrefix = "pending-create:"

// pendingToken returns the create token in a pending ID.
func pendingToken(id types.String) (string, bool) {
	return strings.CutPrefix(id.ValueString(), pendingPrefix)
}

// settleUnknowns gives the values a failed create could not observe a
// known empty value, as a state must have.
func (m *resourceModel) settleUnknowns() {
	if m.Name.IsUnknown() {
		m.Name = types.StringNull()
	}
	if m.Networks.IsUnknown() {
		m.Networks = types.SetNull(types.StringType)
	}
	if m.ImageID.IsUnknown() {
		m.ImageID = types.StringNull()
	}
	if m.Files.IsUnknown() {
		m.Files = nullFiles().Files
	}
	if m.SHA256.IsUnknown() {
		m.SHA256 = nullFiles().SHA256
	}
}
