package containerresource

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/framework/values"
)

// A sandbox must stay up. The engine's restart policy hides a main process
// that exits at once: Docker calls such a container running between
// restarts, Podman restarts it ten times a second and calls it running.
// So a create that runs the user's own command waits a moment and looks
// again, and a refresh that finds the engine restarted the main process
// since the last one looks again too; a main process that restarts in a
// loop fails the create, and at refresh reads as not running and plans a
// replacement, saying why.

// settleTime is how long a create waits, after it started a sandbox that
// runs the user's command, before it checks that the command stays up;
// and how long a refresh waits before it looks again at a sandbox whose
// main process the engine has restarted. The keep-alive does not exit.
var settleTime = time.Second

// mainProcessKey is the private state key under which a refresh keeps what
// it saw of the sandbox's main process.
const mainProcessKey = "main_process"

// mainProcess is what the last look saw of a sandbox's main process: how
// many times the engine had restarted it, and, when it restarts in a
// loop, its last exit code.
type mainProcess struct {
	Restarts int  `json:"restarts"`
	Looping  bool `json:"looping,omitempty"`
	ExitCode int  `json:"exit_code,omitempty"`
	// Unsettled says that the start recorded at StartedAt did not wait
	// to see the command stay up (settle.go); ExitedAtStart, with
	// Looping, that the next refresh found it had exited within
	// settleTime.
	Unsettled     bool   `json:"unsettled,omitempty"`
	StartedAt     string `json:"started_at,omitempty"`
	ExitedAtStart bool   `json:"exited_at_start,omitempty"`
}

// loops reports whether two looks at a sandbox, settleTime apart, show its
// main process restarting in a loop.
func loops(first, second engine.Sandbox) bool {
	return engine.Restarting(second) || engine.Restarts(second) > engine.Restarts(first)
}

// observed is what a look at c saw.
func observedMainProcess(c engine.Sandbox, looping bool) mainProcess {
	p := mainProcess{Restarts: engine.Restarts(c), Looping: looping}
	if looping && c.State != nil {
		p.ExitCode = c.State.ExitCode
	}
	return p
}

func readMainProcess(ctx context.Context, p values.PrivateReader) (mainProcess, diag.Diagnostics) {
	var m mainProcess
	raw, diags := p.GetKey(ctx, mainProcessKey)
	if len(raw) > 0 && !diags.HasError() {
		// An unreadable record counts as none, and is replaced once a
		// look sees anything else.
		_ = json.Unmarshal(raw, &m)
	}
	return m, diags
}

func writeMainProcess(ctx context.Context, p values.PrivateWriter, m mainProcess) diag.Diagnostics {
	if m == (mainProcess{}) {
		return p.SetKey(ctx, mainProcessKey, nil)
	}
	raw, _ := json.Marshal(m)
	return p.SetKey(ctx, mainProcessKey, raw)
}

// planLoopingReplacement replaces, with a warning that says why, a sandbox
// whose last refresh found its main process restarting in a loop and that
// the configuration wants running.
func planLoopingReplacement(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse, wantRunning bool) {
	if req.State.Raw.IsNull() || !wantRunning {
		return
	}
	seen, diags := readMainProcess(ctx, req.Private)
	if resp.Diagnostics.Append(diags...); !seen.Looping {
		return
	}
	resp.RequiresReplace.Append(path.Root("state"))
	if seen.ExitedAtStart {
		resp.Diagnostics.AddAttributeWarning(path.Root("state"), "Sandbox does not stay up", fmt.Sprintf(
			"The sandbox's main process exited with code %d within %s of its start by the last apply. Apply "+
				"replaces it; a sandbox must keep running: leave entrypoint and command unset for the keep-alive, "+
				"or give a command that does not exit.", seen.ExitCode, settleTime))
		return
	}
	resp.Diagnostics.AddAttributeWarning(path.Root("state"), "Sandbox keeps exiting", fmt.Sprintf(
		"The sandbox's main process exits (last exit code %d) and the engine restarts it in a loop (%d restarts "+
			"so far), so the sandbox does not stay up. Apply replaces it; if its command exits by itself, the "+
			"create fails with the command's exit code and the end of its log.", seen.ExitCode, seen.Restarts))
}

// doesNotStayUpDiagnostic says that a created sandbox's main process did
// not stay up, with its exit code and the end of its log (secrets
// redacted; log is empty when it could not be read).
func doesNotStayUpDiagnostic(c engine.Sandbox, log string, secrets values.Secrets, removed bool) diag.Diagnostic {
	what := fmt.Sprintf("The main process of container %s does not stay up", engine.ShortID(c.ID))
	if c.State != nil {
		switch {
		case engine.Restarting(c) || engine.Restarts(c) > 0:
			what += fmt.Sprintf(": it keeps exiting right after it starts, and the engine restarted it %d times "+
				"within %s", engine.Restarts(c), settleTime)
			if c.State.ExitCode != 0 {
				what += fmt.Sprintf(" (last exit code %d)", c.State.ExitCode)
			}
		default:
			what += fmt.Sprintf(": it exited with code %d right after it started (the container is %q)",
				c.State.ExitCode, c.State.Status)
		}
	}
	end := "\n\nIts log is empty."
	if log != "" {
		end = "\n\nEnd of its log:\n" + log
	}
	left := "The container was removed."
	if !removed {
		left = "The container was left as it is: the next apply replaces it."
	}
	return diag.NewErrorDiagnostic("Sandbox does not stay up", secrets.Redact(what+". A sandbox must keep "+
		"running: leave entrypoint and command unset for the keep-alive, or give a command that does not exit. "+
		left+end))
}

// createSecrets are the values a create's messages must not show: env's
// (sensitive) and env_wo's (write-only).
func (m resourceModel) createSecrets(ctx context.Context, secretEnv map[string]string) values.Secrets {
	var secrets values.Secrets
	var env map[string]string
	_ = m.Env.ElementsAs(ctx, &env, false)
	secrets.Add(slices.Collect(maps.Values(env))...)
	secrets.Add(slices.Collect(maps.Values(secretEnv))...)
	return secrets
}
