package docker

import (
	"testing"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
)

func TestIdentities(t *testing.T) {
	c := &Client{endpoint: "unix:///var/run/docker.sock"}
	if id, err := c.SandboxID(c.SandboxIdentity("abc")); id != "abc" || err != nil {
		t.Errorf("SandboxID(SandboxIdentity) = %q, %v", id, err)
	}
	for _, i := range []engine.Identity{{}, {Name: "a"}, {ID: "abc", Namespace: "x"}} {
		if _, err := c.SandboxID(i); err == nil {
			t.Errorf("SandboxID(%+v) took it", i)
		}
	}
	if name, err := c.VolumeName(c.VolumeIdentity("work")); name != "work" || err != nil {
		t.Errorf("VolumeName(VolumeIdentity) = %q, %v", name, err)
	}
	if _, err := c.VolumeName(engine.Identity{Namespace: "x", Name: "work"}); err == nil {
		t.Error("VolumeName took a namespace")
	}
}
