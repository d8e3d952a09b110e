package engine

import (
	"errors"
)

// Process is one process of a running container, as the engine sees it
// from the host: PID and PPID are host process IDs, or the container's own
// where the engine cannot tell the host's (rootless Podman).
type Process struct {
	PID, PPID int
	// OwnIDs says PID and PPID are the container's own.
	OwnIDs bool
	// Zombie says it has exited and waits for its parent to reap it: it
	// runs nothing.
	Zombie  bool
	Command string // its command line: may hold secrets, never for messages
}

// ErrCannotList says that the engine cannot list a container's processes
// from the host: gVisor's sandboxes keep their process table to themselves
// (Docker's listing of one names unrelated host processes).
var ErrCannotList = errors.New("the engine cannot list the processes of a gVisor sandbox from the host")
