package kube

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
)

func TestObjectNameOK(t *testing.T) {
	for name, want := range map[string]bool{
		"agent-1": true, "agent-1.work": true, "a": true, strings.Repeat("a", 253): true,
		"Agent": false, "agent_1": false, "-agent": false, "agent-": false, "": false, strings.Repeat("a", 254): false,
	} {
		if got := objectNameOK(name); got != want {
			t.Errorf("objectNameOK(%q) = %v, want %v", name, got, want)
		}
	}
}

var testClient = &Client{server: "https://127.0.0.1:6443", namespace: "sandboxes", class: "gvisor",
	facts: &engine.Facts{DefaultRuntime: "gvisor", Runtimes: map[string]string{"gvisor": "runsc", "runsc": "runsc"}}}

// What a cluster refuses of a sandbox, by attribute, whether the plan set
// it to a value known only at apply (Set) or the spec holds it.
func TestClusterRefusesWhatAPodCannotCarry(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		p    engine.PlannedSandbox
		want []string
	}{
		{"nothing asked", engine.PlannedSandbox{}, nil},
		{"ports known only at apply", engine.PlannedSandbox{Set: map[string]bool{"ports": true}}, []string{"ports"}},
		{"ports", engine.PlannedSandbox{Spec: engine.ContainerSpec{Ports: []engine.PortBinding{{Port: 80}}}},
			[]string{"ports"}},
		{"shm_size", engine.PlannedSandbox{Spec: engine.ContainerSpec{ShmSize: 1 << 20}}, []string{"shm_size"}},
		{"a name a pod cannot have", engine.PlannedSandbox{Spec: engine.ContainerSpec{Name: "Agent_1"}},
			[]string{"name"}},
		{"a pod's name", engine.PlannedSandbox{Spec: engine.ContainerSpec{Name: "agent-1"}}, nil},
		{"a user by name", engine.PlannedSandbox{Spec: engine.ContainerSpec{User: "agent"}}, []string{"user"}},
		{"a user with a sign", engine.PlannedSandbox{Spec: engine.ContainerSpec{User: "+1000"}}, []string{"user"}},
		{"a user by number", engine.PlannedSandbox{Spec: engine.ContainerSpec{User: "1000:1000"}}, nil},
		{"paused", engine.PlannedSandbox{Paused: true}, []string{"state"}},
		{"security options", engine.PlannedSandbox{Spec: engine.ContainerSpec{
			SecurityOpt: []string{"no-new-privileges", "apparmor=unconfined"}}}, []string{"security_opts"}},
		{"tmpfs options", engine.PlannedSandbox{Spec: engine.ContainerSpec{
			Tmpfs: map[string]string{"/a": "size=1m", "/b": "mode=1777"}}}, []string{"tmpfs[/b]"}},
		{"a host path", engine.PlannedSandbox{Spec: engine.ContainerSpec{
			Mounts: []engine.Mount{{Target: "/w", HostPath: "/srv"}, {Target: "/v", Volume: "work"}}}}, []string{"mounts[/w]"}},
		{"files its Secret holds", engine.PlannedSandbox{FilesBytes: filesBytes}, nil},
		{"files too large for its Secret", engine.PlannedSandbox{FilesBytes: filesBytes + 1}, []string{"files"}},
		{"another runtime", engine.PlannedSandbox{Spec: engine.ContainerSpec{Runtime: "runc"}}, []string{"runtime"}},
		{"the class's handler", engine.PlannedSandbox{Spec: engine.ContainerSpec{Runtime: "runsc"}}, nil},
		{"too little memory for gVisor", engine.PlannedSandbox{Spec: engine.ContainerSpec{
			Limits: engine.Limits{Memory: 16 << 20}}}, []string{"memory"}},
	} {
		got := refusedAt(testClient.RefuseSandbox(context.Background(), c.p))
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: refused %v, want %v", c.name, got, c.want)
		}
	}
}

// A command run through the API has no environment, user or working
// directory of its own; a claim needs a size, is on disk and takes no
// seed. Each refusal names the cluster.
func TestClusterRefusesCommandsAndVolumes(t *testing.T) {
	t.Parallel()
	cmd := testClient.RefuseCommand(context.Background(), engine.PlannedCommand{
		Spec: engine.ExecSpec{Env: []string{"A=1"}, WorkingDir: "/w"}, Set: map[string]bool{"env_wo": true}})
	if got := refusedAt(cmd); !slices.Equal(got, []string{"env", "env_wo", "working_dir"}) {
		t.Errorf("command: refused %v", got)
	}
	for _, c := range []struct {
		name string
		p    engine.PlannedVolume
		want []string
	}{
		{"a claim", engine.PlannedVolume{Spec: engine.VolumeSpec{Name: "work", Size: 1 << 30}}, nil},
		{"a size known only at apply", engine.PlannedVolume{Spec: engine.VolumeSpec{Name: "work"},
			Set: map[string]bool{"size_mb": true}}, nil},
		{"no size", engine.PlannedVolume{Spec: engine.VolumeSpec{Name: "work"}}, []string{"size_mb"}},
		{"in memory", engine.PlannedVolume{Spec: engine.VolumeSpec{Name: "work", Size: 1, InMemory: true}},
			[]string{"medium"}},
		{"seeded", engine.PlannedVolume{Spec: engine.VolumeSpec{Name: "Work", Size: 1},
			Set: map[string]bool{"source": true, "owner": true, "snapshot": true}}, []string{"name"}},
	} {
		got := refusedAt(testClient.RefuseVolume(context.Background(), c.p))
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: refused %v, want %v", c.name, got, c.want)
		}
	}
	for _, r := range cmd {
		if !strings.Contains(r.Detail, testClient.Where()) {
			t.Errorf("%s: the refusal does not name the cluster: %s", r.Attribute, r.Detail)
		}
	}
}

func refusedAt(refusals []engine.Refusal) []string {
	var out []string
	for _, r := range refusals {
		out = append(out, r.At())
	}
	return out
}
