package docker

import (
	"context"
	"slices"
	"testing"

	"github.com/docker/docker/api/types/container"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
)

func TestGVisorPidsLimitRoundTrip(t *testing.T) {
	f := engine.Facts{DefaultRuntime: "runc", Runtimes: map[string]string{"runc": "runc", "runsc": "/usr/bin/runsc"}}
	c := &Client{facts: &f}
	base := engine.ContainerSpec{Runtime: "runsc", Limits: engine.Limits{PidsLimit: 16}, Labels: map[string]string{"team": "a"},
		Ulimits: []engine.Ulimit{{Name: "nofile", Soft: 10, Hard: 10}}}

	spec, err := c.forRuntime(context.Background(), base)
	if err != nil {
		t.Fatal(err)
	}
	if spec.Limits.PidsLimit != 128+16*16 {
		t.Errorf("host pids limit %d, want the backstop %d", spec.Limits.PidsLimit, 128+16*16)
	}
	if !slices.Contains(spec.Ulimits, engine.Ulimit{Name: "nproc", Soft: 16, Hard: 16}) || len(spec.Ulimits) != 2 {
		t.Errorf("ulimits %v, want nofile and nproc = 16", spec.Ulimits)
	}
	if base.Limits.PidsLimit != 16 || len(base.Ulimits) != 1 || len(base.Labels) != 1 {
		t.Errorf("the caller's spec was changed: %+v", base)
	}

	// Read back: the engine shows the backstop; the provider sees 16.
	host := spec.Limits.PidsLimit
	info := container.InspectResponse{
		ContainerJSONBase: &container.ContainerJSONBase{HostConfig: &container.HostConfig{
			Resources: container.Resources{PidsLimit: &host}}},
		Config: &container.Config{Labels: spec.Labels},
	}
	readGVisorPids(&info)
	if got := *info.HostConfig.PidsLimit; got != 16 {
		t.Errorf("read back %d, want 16", got)
	}
	// A backstop changed behind the provider's back shows as it is.
	changed := int64(1000)
	info.HostConfig.PidsLimit = &changed
	readGVisorPids(&info)
	if got := *info.HostConfig.PidsLimit; got != 1000 {
		t.Errorf("a changed backstop read as %d, want 1000", got)
	}

	// The user's own nproc is kept; runc, and no limit, are left alone.
	own := base
	own.Ulimits = []engine.Ulimit{{Name: "nproc", Soft: 8, Hard: 8}}
	if spec, _ := c.forRuntime(context.Background(), own); !slices.Equal(spec.Ulimits, own.Ulimits) {
		t.Errorf("the configured nproc became %v", spec.Ulimits)
	}
	for _, s := range []engine.ContainerSpec{{Runtime: "runc", Limits: engine.Limits{PidsLimit: 16}}, {Runtime: "runsc"}, {Limits: engine.Limits{PidsLimit: 16}}} {
		if got, _ := c.forRuntime(context.Background(), s); got.Limits != s.Limits || len(got.Ulimits) != 0 || len(got.Labels) != 0 {
			t.Errorf("%+v became %+v", s, got)
		}
	}
	if engine.GVisorHostPids(1<<22) != 1<<22 {
		t.Errorf("the backstop for the largest limit is %d, above the kernel's largest PID", engine.GVisorHostPids(1<<22))
	}
}
