package containerresource

import (
	"context"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
)

// A create that is cut off (Ctrl-C, a timeout, a crash of the engine or of
// the connection) may leave a container the engine made but the provider
// never heard of. Every create stamps a token of its own on the container
// (engine.LabelCreateToken); when the create fails, the provider removes
// whatever carries that token. When it cannot (the engine is gone), it
// records the sandbox in the state with a pending ID naming the token, so
// that Terraform taints it: the next refresh finds the container by the
// token, and the next apply replaces it. Nothing is ever found by name, so
// nothing the token does not prove is touched.

// pendingPrefix starts the ID of a sandbox whose create was cut off before
// the provider learnt the container's ID.
const pendingPrefix = "pending-create:"

// pendingToken returns the create token in a pending ID.
func pendingToken(id types.String) (string, bool) {
	return strings.CutPrefix(id.ValueString(), pendingPrefix)
}

// undoCreate removes what a failed create with token may have left, within
// its own deadline even when the request was cancelled. When it cannot, it
// sets m's ID to a pending ID, which Create records as a tainted sandbox.
func (r *Resource) undoCreate(ctx context.Context, m *resourceModel, token string) diag.Diagnostics {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cleanupTimeout)
	defer cancel()
	err := r.removeByToken(ctx, token)
	if err == nil {
		return nil
	}
	m.ID = types.StringValue(pendingPrefix + token)
	endpoint := r.Client.Endpoint()
	return diag.Diagnostics{diag.NewErrorDiagnostic("Cannot remove what the failed create left", fmt.Sprintf(
		"The create did not finish, and the container the Docker engine at %s may have made for it could not "+
			"be looked up or removed: %v\n\n"+
			"The sandbox is recorded in the state as tainted, so the next apply removes that container, found by "+
			"its label %s=%s, and creates the sandbox again. To remove it by hand instead:\n\n"+
			"  docker -H %s ps -aq --filter label=%s=%s | xargs -r docker -H %s rm -f",
		endpoint, err, engine.LabelCreateToken, token, endpoint, engine.LabelCreateToken, token, endpoint))}
}

// removeByToken removes every container, and image, that carries the
// create token.
func (r *Resource) removeByToken(ctx context.Context, token string) error {
	ids, err := r.Client.ContainersLabelled(ctx, engine.LabelCreateToken, token)
	if err != nil {
		return err
	}
	for _, id := range ids {
		if err := r.Client.RemoveContainer(ctx, id); err != nil {
			return err
		}
	}
	// An image derived for the files of a read-only sandbox (files.go).
	images, err := r.Client.ImagesLabelled(ctx, engine.LabelCreateToken, token)
	if err != nil {
		return err
	}
	for _, id := range images {
		if err := r.Client.RemoveImage(ctx, id); err != nil && !engine.IsNotFound(err) {
			return err
		}
	}
	return nil
}

// resolvePending replaces a pending ID with the ID of the container its
// token names, and reports whether there is one.
func (r *Resource) resolvePending(ctx context.Context, m *resourceModel) (bool, diag.Diagnostics) {
	token, pending := pendingToken(m.ID)
	if !pending {
		return true, nil
	}
	ids, err := r.Client.ContainersLabelled(ctx, engine.LabelCreateToken, token)
	if err != nil {
		return false, diag.Diagnostics{r.readFailed(m.ID.ValueString(), err)}
	}
	if len(ids) == 0 {
		return false, nil
	}
	m.ID = types.StringValue(ids[0])
	return true, nil
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
}
