package docker

import (
	cerrdefs "github.com/containerd/errdefs"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
)

// stateMovedUnder reports whether err is the engine refusing an operation
// because the container's state changed while it acted (a conflict, or
// Podman's internal "container state improper"): asking again may work.
func stateMovedUnder(err error) bool {
	return err != nil && !engine.IsNotFound(err) && (engine.IsConflict(err) || cerrdefs.IsInternal(err))
}
