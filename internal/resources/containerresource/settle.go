package containerresource

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/framework/values"
)

// Whether a started sandbox's command stays up is known only after a
// while (settleTime), and Terraform holds one of its parallel operations
// (ten by default) for each create and each update: a sandbox that waits
// out the second asleep keeps another from being made meanwhile, which at
// 200 sandboxes cost about a third of the apply (issue 48). So a start
// waits out the second only when it is the only one under way in this
// provider process, as in an apply of one sandbox or of a chain of them;
// among others started at the same time (count, for_each, many
// resources), it looks once when it is done and leaves the rest of the
// second to the next refresh, which plans a replacement, saying why, for a
// sandbox whose command did not stay up (stayup.go).

// starts counts the sandbox starts under way in this provider process, and
// every one begun or ended, to tell whether two were under way at once.
var starts struct {
	underWay, begun, ended atomic.Int64
}

// startWindow is one create's or wake's time from its beginning to its
// check that the sandbox stays up.
type startWindow struct{ begun, ended int64 }

// openStartWindow begins a start; close ends it.
func openStartWindow() startWindow {
	starts.underWay.Add(1)
	return startWindow{begun: starts.begun.Add(1), ended: starts.ended.Load()}
}

func (w startWindow) close() {
	starts.ended.Add(1)
	starts.underWay.Add(-1)
}

// crowded reports whether another start was under way at any moment of
// this one: one is now, one began after this one, or one ended since
// this one began.
func (w startWindow) crowded() bool {
	return starts.underWay.Load() > 1 || starts.begun.Load() != w.begun || starts.ended.Load() != w.ended
}

// checkStaysUp checks that the main process of a sandbox that runs the
// user's command stays up after its start, and returns what it saw of it
// for the private state. Alone, it waits settleTime and looks again.
// Crowded, it looks once, now: a command that exited already fails here,
// and the record says that the next refresh finishes the check. A wake
// (woke) leaves a sandbox whose command does not stay up for the next
// plan to replace; a create removes it.
func (r *Resource) checkStaysUp(ctx context.Context, id string, w startWindow, secrets values.Secrets, woke bool) (mainProcess, diag.Diagnostics) {
	crowded := w.crowded()
	if !crowded {
		select {
		case <-ctx.Done():
			return mainProcess{}, nil // the create's own checks report it
		case <-time.After(settleTime):
		}
	}
	c, err := r.Client.InspectContainer(ctx, id)
	if err != nil {
		return mainProcess{}, diag.Diagnostics{r.readFailed(id, err)}
	}
	if !engine.IsRunning(c) || engine.Restarts(c) != 0 {
		log, _ := r.Client.LastLogLines(ctx, id, 10)
		failed := diag.Diagnostics{doesNotStayUpDiagnostic(c, log, secrets, !woke)}
		if !woke {
			return mainProcess{}, failed
		}
		seen := observedMainProcess(c, true)
		if !engine.Restarting(c) && c.State != nil {
			seen.ExitedAtStart, seen.StartedAt = true, c.State.StartedAt
		}
		return seen, failed
	}
	if !crowded {
		return mainProcess{}, nil
	}
	return mainProcess{Unsettled: true, StartedAt: c.State.StartedAt}, diag.Diagnostics{
		diag.NewAttributeWarningDiagnostic(path.Root("command"), "Sandbox's command checked again at the next refresh", fmt.Sprintf(
			"This apply started several sandboxes at once, so rather than hold one of Terraform's parallel "+
				"operations for %s per sandbox to see that its command stays up, it checked each once, as it "+
				"started. The next refresh (terraform plan or apply) looks again, and plans a replacement, "+
				"saying why, for a sandbox whose command exited or restarted within %s of its start. To have "+
				"the apply itself wait, create the sandbox alone (terraform apply -target, or -parallelism=1).",
			settleTime, settleTime))}
}

// settle finishes, at a refresh, the check of a sandbox whose start did not
// wait to see its command stay up (seen.Unsettled). It reports whether the
// command did not stay up, and the container as last seen: one still in
// its first settleTime is looked at again when it is over.
func (r *Resource) settle(ctx context.Context, id string, c engine.Sandbox, seen mainProcess) (engine.Sandbox, bool) {
	started, err := time.Parse(time.RFC3339Nano, seen.StartedAt)
	if err != nil || c.State == nil || c.State.Paused || c.State.StartedAt != seen.StartedAt ||
		engine.Restarts(c) != seen.Restarts {
		// Started again since (a wake, the engine's restart policy): that
		// start is judged on its own (refresh).
		return c, false
	}
	if engine.IsRunning(c) {
		wait := time.Until(started.Add(settleTime))
		if wait <= 0 || ctx.Err() != nil {
			return c, false
		}
		time.Sleep(wait)
		again, err := r.Client.InspectContainer(ctx, id)
		if err != nil {
			return c, false
		}
		if c = again; c.State == nil || c.State.StartedAt != seen.StartedAt || engine.Restarts(c) != seen.Restarts {
			return c, true // restarted within its first second
		}
		if engine.IsRunning(c) || c.State.Paused {
			return c, false
		}
	}
	finished, err := time.Parse(time.RFC3339Nano, c.State.FinishedAt)
	return c, err == nil && !c.State.Paused && finished.Sub(started) < settleTime
}
