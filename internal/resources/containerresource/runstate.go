package containerresource

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework-validators/boolvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64default"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/framework/values"
)

// What the sandbox should be doing: running, asleep (stopped) or frozen
// (paused), in Docker's words, which the engines show; running, which
// state replaces, as a deprecated alias; and how it stops.

const (
	stateRunning = engine.StateRunning
	stateStopped = engine.StateStopped
	statePaused  = engine.StatePaused
)

// states are state's values, the default first.
var states = []string{stateRunning, stateStopped, statePaused}

// runStateModel is what the sandbox should be doing.
type runStateModel struct {
	State       types.String `tfsdk:"state"`
	Running     types.Bool   `tfsdk:"running"`
	StopTimeout types.Int64  `tfsdk:"stop_timeout"`
}

func runStateAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"state": schema.StringAttribute{
			MarkdownDescription: "What the sandbox should be doing: `running` (the default); `stopped`, asleep: " +
				"its processes end and its memory and CPU are released, while its workspace (the container's own " +
				"files and its volumes), its identity and its isolation are kept, and a start brings it back; or " +
				"`paused`, frozen: its processes keep their memory but get no CPU until it is woken, in " +
				"milliseconds (Docker, and Podman where the engine can freeze a container: not rootless Podman " +
				"on cgroup v1; refused at plan where it cannot). Refresh records what the engine shows, so a " +
				"sandbox stopped, paused or started outside Terraform plans an in-place update back to this " +
				"value. Changing it is applied in place. Isolation is checked in every state: a sandbox asleep " +
				"whose isolation was weakened is replaced all the same. On a Kubernetes cluster, `stopped` deletes " +
				"the pod (its node's CPU and memory are freed) and keeps its NetworkPolicy, Secret and volumes, and " +
				"a wake makes the pod again from the configuration (what the pod's own filesystem held is gone: " +
				"keep work in a `sandbox_volume`); `paused` is refused there.",
			Optional:   true,
			Computed:   true,
			Validators: []validator.String{stringvalidator.OneOf(states...)},
		},
		"running": schema.BoolAttribute{
			MarkdownDescription: "Deprecated: use `state`. `running = false` is `state = \"stopped\"`, and `true` " +
				"is `state = \"running\"`; set one of the two. Refresh records whether the sandbox runs (a paused " +
				"sandbox does not).",
			DeprecationMessage: "Use state instead: running = false is state = \"stopped\", running = true is " +
				"state = \"running\".",
			Optional:   true,
			Computed:   true,
			Validators: []validator.Bool{boolvalidator.ConflictsWith(path.MatchRoot("state"))},
		},
		"stop_timeout": schema.Int64Attribute{
			MarkdownDescription: "Seconds the provider waits for the sandbox to exit after SIGTERM before it " +
				"kills it, when it stops (`state = \"stopped\"`) or destroys it. A sandbox that runs only the " +
				"keep-alive (no `entrypoint` or `command`) has nothing to shut down and is removed at once on " +
				"destroy. Defaults to `" + fmt.Sprint(defaultStopTimeout) + "`. Changing it updates the state only.",
			Optional:   true,
			Computed:   true,
			Default:    int64default.StaticInt64(defaultStopTimeout),
			Validators: []validator.Int64{int64validator.AtLeast(0)},
		},
	}
}

// observedState is what the engine shows of c, in state's terms: a main
// process the engine restarts in a loop, or one that ended, is stopped.
func observedState(c engine.Sandbox) string {
	return engine.StateOf(c)
}

// observe records what the engine shows.
func (m *runStateModel) observe(c engine.Sandbox) {
	m.setState(observedState(c))
}

// setState records state, and running with it.
func (m *runStateModel) setState(state string) {
	m.State, m.Running = types.StringValue(state), types.BoolValue(state == stateRunning)
}

// wants is the state the plan asks for; "" when known only at apply.
func (m runStateModel) wants() string {
	return m.State.ValueString()
}

// wantedState is the state a configuration asks for: state's value, or
// running's (deprecated), or by default running. known is false when the
// value is known only at apply.
func wantedState(state, running tftypes.Value) (want string, known bool) {
	switch {
	case !state.IsKnown() || !running.IsKnown():
		return "", false
	case !state.IsNull():
		return values.RawString(state), true
	case !running.IsNull() && !values.RawBool(running):
		return stateStopped, true
	}
	return stateRunning, true
}

// planRunState plans state and running from the configuration, whichever
// of the two it sets (both are computed, and a refresh records what the
// engine shows, so the plan says what the configuration wants whenever
// the engine shows something else), and updates plan with them.
func planRunState(ctx context.Context, config, plan map[string]tftypes.Value, resp *resource.ModifyPlanResponse) {
	want, known := wantedState(config["state"], config["running"])
	state, running := types.StringUnknown(), types.BoolUnknown()
	if known {
		state, running = types.StringValue(want), types.BoolValue(want == stateRunning)
	}
	setPlanned(ctx, plan, "state", state, resp)
	setPlanned(ctx, plan, "running", running, resp)
}

// refusePause refuses state = "paused" where the engine cannot freeze a
// sandbox (rootless Podman on cgroup v1), unless the backend's own rules
// refused it already (a cluster).
func (r *Resource) refusePause(plan map[string]tftypes.Value, facts engine.Facts, resp *resource.ModifyPlanResponse) {
	if values.RawString(plan["state"]) != statePaused || errorAt(resp.Diagnostics, path.Root("state")) {
		return
	}
	if _, can := r.Client.(engine.Pauser); can && facts.Pausable {
		return
	}
	resp.Diagnostics.AddAttributeError(path.Root("state"), "Sandbox cannot be paused here", fmt.Sprintf(
		"state = \"paused\" freezes a sandbox's processes in their cgroup, which %s cannot do (rootless Podman "+
			"needs cgroup v2 for it). Use state = \"stopped\" to put the sandbox to sleep there, or place it on an "+
			"engine that can pause: Docker, rootful Podman, or rootless Podman on cgroup v2.", r.Client.Where()))
}
