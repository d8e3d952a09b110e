package engine

import (
	"slices"
	"testing"
)

// gVisor's rules hold only under gVisor, as the backend's facts name it,
// and wait for apply when the runtime is known only then.
func TestGVisorRefusals(t *testing.T) {
	t.Parallel()
	facts := Facts{DefaultRuntime: "runc", Runtimes: map[string]string{"runc": "runc", "runsc": "/usr/bin/runsc"}}
	tight := ContainerSpec{Runtime: "runsc", Limits: Limits{Memory: 16 << 20, PidsLimit: 64},
		Ulimits: []Ulimit{{Name: "nproc", Soft: 64, Hard: 100}}}
	for _, c := range []struct {
		name string
		p    PlannedSandbox
		want []string
	}{
		{"under runsc", PlannedSandbox{Spec: tight}, []string{"ulimits[nproc].hard", "memory"}},
		{"within gVisor's bounds", PlannedSandbox{Spec: ContainerSpec{Runtime: "runsc",
			Limits: Limits{Memory: GVisorMinMemory, PidsLimit: 64}, Ulimits: []Ulimit{{Name: "nproc", Hard: 64}}}}, nil},
		{"no limits", PlannedSandbox{Spec: ContainerSpec{Runtime: "runsc"}}, nil},
		{"under runc", PlannedSandbox{Spec: func() ContainerSpec { s := tight; s.Runtime = "runc"; return s }()}, nil},
		{"the default runtime, runc", PlannedSandbox{Spec: func() ContainerSpec { s := tight; s.Runtime = ""; return s }()}, nil},
		{"a runtime known only at apply", PlannedSandbox{Spec: tight, Unknown: map[string]bool{"runtime": true}}, nil},
	} {
		var got []string
		for _, r := range GVisorRefusals(facts, c.p) {
			got = append(got, r.At())
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: refused %v, want %v", c.name, got, c.want)
		}
	}
	gvisorDefault := facts
	gvisorDefault.DefaultRuntime = "runsc"
	if got := GVisorRefusals(gvisorDefault, PlannedSandbox{Spec: ContainerSpec{Limits: Limits{Memory: 8 << 20}}}); len(got) != 1 {
		t.Errorf("gVisor as the default runtime: refused %v, want memory", got)
	}
}
