package docker

import (
	"context"
	"slices"
	"testing"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
)

// Docker takes a seccomp profile's content, Podman the path of one on its
// host: each is refused the other form.
func TestSeccompProfileInTheFormTheEngineTakes(t *testing.T) {
	t.Parallel()
	inline, file := `seccomp={"defaultAction":"SCMP_ACT_ERRNO"}`, "seccomp=/etc/containers/docker-seccomp.json"
	for _, c := range []struct {
		podman  bool
		opt     string
		refused bool
	}{
		{false, inline, false}, {false, file, true}, {true, inline, true}, {true, file, false},
		{true, "seccomp=unconfined", false}, {false, "apparmor=docker-default", false},
	} {
		got := seccompRefusals([]string{c.opt}, c.podman, "unix:///x.sock")
		if (len(got) > 0) != c.refused {
			t.Errorf("podman %v, %s: refused %v, want %v: %v", c.podman, c.opt, len(got) > 0, c.refused, got)
		}
	}
}

// What each backend behind the Docker API refuses of a sandbox, by
// attribute: Podman's Docker-compatible API ignores a runtime and rejects
// tmpfs owners, which Docker takes.
func TestRulesOfDockerAndPodman(t *testing.T) {
	t.Parallel()
	client := &Client{endpoint: "unix:///x.sock", facts: &engine.Facts{DefaultRuntime: "runc",
		Runtimes: map[string]string{"runc": "runc", "runsc": "/usr/bin/runsc"}}}
	for _, c := range []struct {
		name         string
		spec         engine.ContainerSpec
		docker, pman []string // the attributes refused
	}{
		{"nothing asked", engine.ContainerSpec{}, nil, nil},
		{"a runtime", engine.ContainerSpec{Runtime: "runsc"}, nil, []string{"runtime"}},
		{"tmpfs owners", engine.ContainerSpec{Tmpfs: map[string]string{"/b": "size=1m,uid=1000", "/a": "gid=1"}},
			nil, []string{"tmpfs[/a]", "tmpfs[/b]"}},
		{"tmpfs mode", engine.ContainerSpec{Tmpfs: map[string]string{"/a": "mode=1777"}}, nil, nil},
		{"a host path", engine.ContainerSpec{Mounts: []engine.Mount{{Target: "/w", HostPath: "/srv/w"}}}, nil, nil},
		{"too little memory for gVisor", engine.ContainerSpec{Runtime: "runsc", Limits: engine.Limits{Memory: 16 << 20}},
			[]string{"memory"}, []string{"runtime", "memory"}},
	} {
		planned := engine.PlannedSandbox{Spec: c.spec}
		for _, b := range []struct {
			rules engine.Rules
			want  []string
		}{{Docker{client}, c.docker}, {Podman{client}, c.pman}} {
			if got := refusedAt(b.rules.RefuseSandbox(context.Background(), planned)); !slices.Equal(got, b.want) {
				t.Errorf("%s, %T: refused %v, want %v", c.name, b.rules, got, b.want)
			}
		}
	}
}

// A change Podman's Docker-compatible API cannot make in place replaces
// the sandbox, and the plan says why for limits.
func TestPodmanFixesLimitsAndRestart(t *testing.T) {
	t.Parallel()
	fixed := Podman{&Client{endpoint: "unix:///x.sock"}}.FixedInPlace(context.Background(), "")
	var attrs []string
	for _, f := range fixed {
		attrs = append(attrs, f.Attributes...)
		if slices.Contains(f.Attributes, "memory") && f.Why == "" {
			t.Errorf("a limit change is not explained: %+v", f)
		}
	}
	for _, want := range append([]string{"restart"}, engine.LimitAttributes...) {
		if !slices.Contains(attrs, want) {
			t.Errorf("Podman does not replace for %s: %+v", want, fixed)
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
