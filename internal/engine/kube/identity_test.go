package kube

import (
	"testing"

	cerrdefs "github.com/containerd/errdefs"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
)

func TestIdentities(t *testing.T) {
	c := &Client{namespace: "agents", server: "https://127.0.0.1:6443"}
	if got := c.SandboxIdentity("agents/a/1234"); got != (engine.Identity{Namespace: "agents", Name: "a", UID: "1234"}) {
		t.Errorf("SandboxIdentity = %+v", got)
	}
	for _, tc := range []struct {
		in   engine.Identity
		want string
	}{
		{engine.Identity{Name: "a"}, "agents/a"},
		{engine.Identity{Namespace: "agents", Name: "a", UID: "1234"}, "agents/a/1234"},
		{engine.Identity{ID: "abc"}, ""},
		{engine.Identity{Namespace: "other", Name: "a"}, ""},
		{engine.Identity{Namespace: "agents"}, ""},
	} {
		got, err := c.SandboxID(tc.in)
		if got != tc.want || (tc.want == "") != (err != nil) {
			t.Errorf("SandboxID(%+v) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
		if err != nil && !cerrdefs.IsInvalidArgument(err) {
			t.Errorf("SandboxID(%+v): %v is not an invalid argument", tc.in, err)
		}
	}
	if got := c.VolumeIdentity("work"); got != (engine.Identity{Namespace: "agents", Name: "work"}) {
		t.Errorf("VolumeIdentity = %+v", got)
	}
	if _, err := c.VolumeName(engine.Identity{Namespace: "other", Name: "work"}); err == nil {
		t.Error("VolumeName took another namespace")
	}
}
