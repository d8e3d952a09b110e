package containerresource

import (
	"math/big"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
)

func rawStrings(list ...string) tftypes.Value {
	vals := make([]tftypes.Value, 0, len(list))
	for _, s := range list {
		vals = append(vals, tftypes.NewValue(tftypes.String, s))
	}
	return tftypes.NewValue(tftypes.Set{ElementType: tftypes.String}, vals)
}

// A limit the engine cannot apply is refused on its own attribute, with the
// engine's reason and fix; the others pass.
func TestLimitsTheEngineCannotApplyAreRefused(t *testing.T) {
	t.Parallel()
	number := func(n int64) tftypes.Value { return tftypes.NewValue(tftypes.Number, big.NewFloat(float64(n))) }
	null := tftypes.NewValue(tftypes.Number, nil)
	plan := map[string]tftypes.Value{
		"memory": number(64), "memory_swap": null, "cpus": null, "pids_limit": number(32),
		"ulimits": tftypes.NewValue(tftypes.Map{ElementType: tftypes.String}, map[string]tftypes.Value{}),
	}
	e := engine.Enforcement{Memory: false, Swap: false, CPU: false, Pids: true, Ulimits: false,
		Why: "it is rootless", Fix: "delegate the controller", UlimitsWhy: "they are dropped", UlimitsFix: "use containers.conf"}
	var resp resource.ModifyPlanResponse
	refuseUnenforcedLimits(plan, e, "unix:///run/user/1000/podman/podman.sock", &resp)
	if got := resp.Diagnostics.ErrorsCount(); got != 2 {
		t.Fatalf("%d errors, want memory and ulimits: %v", got, resp.Diagnostics)
	}
	for i, want := range []struct {
		attr string
		text []string
	}{
		{"memory", []string{"podman.sock", "cannot apply memory", "it is rootless", "memory cgroup controller", "delegate the controller"}},
		{"ulimits", []string{"cannot apply ulimits", "they are dropped", "use containers.conf"}},
	} {
		d, ok := resp.Diagnostics[i].(interface{ Path() path.Path })
		if !ok || !d.Path().Equal(path.Root(want.attr)) {
			t.Errorf("error %d is not on %s: %v", i, want.attr, resp.Diagnostics[i])
		}
		for _, text := range want.text {
			if !strings.Contains(resp.Diagnostics[i].Detail(), text) {
				t.Errorf("error on %s lacks %q: %s", want.attr, text, resp.Diagnostics[i].Detail())
			}
		}
	}
}

// A new sandbox is warned when the engine's seccomp filter lets user
// namespaces through, or there is none, unless it names a profile itself.
func TestUserNamespaceWarning(t *testing.T) {
	t.Parallel()
	stock := engine.Seccomp{Enabled: true, AllowsUserNamespaces: true, Profile: "/usr/share/containers/seccomp.json"}
	none := tftypes.NewValue(tftypes.Set{ElementType: tftypes.String}, nil)
	for _, c := range []struct {
		name string
		s    engine.Seccomp
		opts tftypes.Value
		want string
	}{
		{"Podman's stock profile", stock, none, "Sandbox can create user namespaces"},
		{"no filter at all", engine.Seccomp{}, none, "Engine applies no seccomp filter"},
		{"Docker's profile", engine.Seccomp{Enabled: true}, none, ""},
		{"a profile named", stock, rawStrings("seccomp=/etc/containers/docker-seccomp.json"), ""},
		{"other options only", stock, rawStrings("apparmor=docker-default"), "Sandbox can create user namespaces"},
	} {
		var resp resource.ModifyPlanResponse
		warnUserNamespaces(c.opts, c.s, "unix:///x.sock", &resp)
		got := ""
		if len(resp.Diagnostics) > 0 {
			got = resp.Diagnostics[0].Summary()
			if !strings.Contains(resp.Diagnostics[0].Detail(), "seccomp_profile") {
				t.Errorf("%s: the warning lacks the fix: %s", c.name, resp.Diagnostics[0].Detail())
			}
		}
		if got != c.want || resp.Diagnostics.HasError() {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}

// A plan that keeps every value of the state changes nothing, and asks the
// engine nothing; a create, any changed or unknown value, or an attribute
// one side lacks is checked against it.
func TestUnchangedPlan(t *testing.T) {
	t.Parallel()
	state := map[string]tftypes.Value{
		"name":   tftypes.NewValue(tftypes.String, "a"),
		"memory": tftypes.NewValue(tftypes.Number, 256),
	}
	with := func(name string, v tftypes.Value) map[string]tftypes.Value {
		out := map[string]tftypes.Value{name: v}
		for k, v := range state {
			if k != name {
				out[k] = v
			}
		}
		return out
	}
	for _, tc := range []struct {
		name      string
		plan      map[string]tftypes.Value
		state     map[string]tftypes.Value
		unchanged bool
	}{
		{"the same values", with("memory", tftypes.NewValue(tftypes.Number, 256)), state, true},
		{"a create", state, nil, false},
		{"a changed value", with("memory", tftypes.NewValue(tftypes.Number, 512)), state, false},
		{"an unknown value", with("memory", tftypes.NewValue(tftypes.Number, tftypes.UnknownValue)), state, false},
		{"a value the state lacks", with("cpus", tftypes.NewValue(tftypes.Number, 1)), state, false},
	} {
		if got := unchangedPlan(tc.plan, tc.state); got != tc.unchanged {
			t.Errorf("%s: unchangedPlan = %v, want %v", tc.name, got, tc.unchanged)
		}
	}
}
