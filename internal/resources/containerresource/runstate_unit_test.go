package containerresource

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
)

// The configuration asks for a state by state, or by running (deprecated),
// or not at all (running); a value known only at apply is unknown.
func TestWantedState(t *testing.T) {
	t.Parallel()
	str := func(v any) tftypes.Value { return tftypes.NewValue(tftypes.String, v) }
	boolean := func(v any) tftypes.Value { return tftypes.NewValue(tftypes.Bool, v) }
	for _, tc := range []struct {
		name           string
		state, running tftypes.Value
		want           string
		known          bool
	}{
		{"neither", str(nil), boolean(nil), stateRunning, true},
		{"state", str(statePaused), boolean(nil), statePaused, true},
		{"running = false", str(nil), boolean(false), stateStopped, true},
		{"running = true", str(nil), boolean(true), stateRunning, true},
		{"state known only at apply", str(tftypes.UnknownValue), boolean(nil), "", false},
		{"running known only at apply", str(nil), boolean(tftypes.UnknownValue), "", false},
	} {
		if want, known := wantedState(tc.state, tc.running); want != tc.want || known != tc.known {
			t.Errorf("%s: %q, %v; want %q, %v", tc.name, want, known, tc.want, tc.known)
		}
	}
}

// What the engine shows, in state's terms: a main process restarting in a
// loop is not running.
func TestObservedState(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		state engine.ContainerState
		want  string
	}{
		{engine.ContainerState{Status: "running", Running: true}, stateRunning},
		{engine.ContainerState{Status: "paused", Running: true, Paused: true}, statePaused},
		{engine.ContainerState{Status: "exited"}, stateStopped},
		{engine.ContainerState{Status: "created"}, stateStopped},
		{engine.ContainerState{Status: "restarting", Running: true, Restarting: true}, stateStopped},
	} {
		c := engine.Sandbox{}
		c.State = &tc.state
		if got := observedState(c); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.state.Status, got, tc.want)
		}
	}
	var m runStateModel
	m.setState(statePaused)
	if m.Running.ValueBool() || m.State.ValueString() != statePaused {
		t.Errorf("a paused sandbox is recorded %v, %v", m.State, m.Running)
	}
}
