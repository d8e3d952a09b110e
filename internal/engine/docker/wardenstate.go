package docker

import (
	"context"
	"fmt"
	"time"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
)

// The warden's state when a call into it fails: it stops itself when
// idle, so each failure is judged by the state the engine shows, read
// again.

// wardenStopped reports whether the warden wardenID is gone or no longer
// runs, as a call into it that failed is judged.
func (c *Client) wardenStopped(ctx context.Context, wardenID string) bool {
	found, err := c.InspectContainer(ctx, wardenID)
	return engine.IsNotFound(err) || (err == nil && !engine.IsRunning(found))
}

// startStoppedWarden starts the warden found stopped. It may be stopping
// itself at that moment (idle), or another provider process may be
// starting it: an engine refuses to start a container on its way down
// (Podman: "container state improper"). So a start that fails is judged
// by the warden's state, read again: running is started; on its way down,
// it is started again when it is down, for up to wardenRestartWait.
func (c *Client) startStoppedWarden(ctx context.Context, id string) error {
	deadline := time.Now().Add(wardenRestartWait)
	for {
		err := c.StartContainer(ctx, id)
		if err == nil {
			return nil
		}
		found, inspectErr := c.InspectContainer(ctx, id)
		switch {
		case inspectErr != nil:
			return err
		case engine.IsRunning(found):
			return nil
		case time.Now().After(deadline) || ctx.Err() != nil:
			return err
		}
		select {
		case <-ctx.Done():
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// wardenRestartWait bounds how long a warden on its way down is waited
// for, to be started again: it stops in well under a second.
var wardenRestartWait = 10 * time.Second

// wardenLost is what to do when the engine shows the warden running but
// runs nothing in it: Podman can keep showing a container running whose
// process it lost, when its service and conmon were killed under it.
var wardenLost = fmt.Sprintf("If the engine shows the warden running but runs no command in it (Podman does "+
	"after it was killed under its containers), remove it (docker rm -f %s) and apply again: the provider makes "+
	"a new one, and the sandboxes the old one guarded are registered again when their expiry next changes", wardenName)
