package containerresource

import (
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
)

// The expiry a configuration asks for: expires_at as given; expires_after
// from created_at, known once the sandbox exists; none; and unknown where
// a value is known only at apply.
func TestPlannedExpiry(t *testing.T) {
	t.Parallel()
	str := func(v any) tftypes.Value { return tftypes.NewValue(tftypes.String, v) }
	created := "2026-12-05T10:00:00Z"
	for _, tc := range []struct {
		name      string
		after, at tftypes.Value
		createdAt string
		want      string
		known     bool
	}{
		{"none", str(nil), str(nil), created, "", true},
		{"at", str(nil), str("2026-12-31T18:00:00Z"), "", "2026-12-31T18:00:00Z", true},
		{"after, existing", str("90m"), str(nil), created, "2026-12-05T11:30:00Z", true},
		{"after, to be made", str("90m"), str(nil), "", "", false},
		{"after known at apply", str(tftypes.UnknownValue), str(nil), created, "", false},
	} {
		at, known := plannedExpiry(map[string]tftypes.Value{"expires_after": tc.after, "expires_at": tc.at},
			expiryModel{CreatedAt: types.StringValue(tc.createdAt)})
		got := ""
		if !at.IsZero() {
			got = stamp(at)
		}
		if got != tc.want || known != tc.known {
			t.Errorf("%s: %q, %v; want %q, %v", tc.name, got, known, tc.want, tc.known)
		}
	}
}

// A sandbox is expired once its expiry passed and it does not run; an
// expired sandbox keeps the state last recorded, so the plan starts
// nothing.
func TestObserveExpiry(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 12, 5, 12, 0, 0, 0, time.UTC)
	stopped := engine.Sandbox{Container: engine.Container{State: &engine.ContainerState{Status: "exited"}}}
	running := engine.Sandbox{Container: engine.Container{State: &engine.ContainerState{Status: "running", Running: true}}}
	for _, tc := range []struct {
		name        string
		c           engine.Sandbox
		now         time.Time
		wantExpired bool
		wantState   string
	}{
		{"stopped before its expiry", stopped, at.Add(-time.Second), false, stateStopped},
		{"stopped at its expiry", stopped, at, true, stateRunning},
		{"running after its expiry", running, at.Add(time.Minute), false, stateRunning},
	} {
		var m resourceModel
		m.ExpiresAt = types.StringValue(stamp(at))
		m.setState(observedState(tc.c))
		m.observeExpiry(tc.c, stateRunning, tc.now)
		if m.Expired.ValueBool() != tc.wantExpired || m.State.ValueString() != tc.wantState {
			t.Errorf("%s: expired %v, state %s; want %v, %s", tc.name, m.Expired.ValueBool(), m.State.ValueString(),
				tc.wantExpired, tc.wantState)
		}
	}
}
