package engine

import cerrdefs "github.com/containerd/errdefs"

// IsNotFound reports whether err says the object does not exist.
func IsNotFound(err error) bool { return cerrdefs.IsNotFound(err) }

// IsConflict reports whether err says the object conflicts with an existing
// one (for example a container name already in use).
func IsConflict(err error) bool { return cerrdefs.IsConflict(err) }
