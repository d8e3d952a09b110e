package container

import (
	"testing"

	"github.com/docker/docker/api/types/container"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
)

// podmanHostConfig is what Podman 4 reports for a sandbox created with
// pids_limit and ulimits unset, plus what a user asked for.
func podmanHostConfig(pids int64, ulimits ...*container.Ulimit) *container.HostConfig {
	return &container.HostConfig{
		ShmSize: 65536000,
		Resources: container.Resources{PidsLimit: &pids, Ulimits: append([]*container.Ulimit{
			{Name: "RLIMIT_NOFILE", Soft: 20000, Hard: 20000},
			{Name: "RLIMIT_NPROC", Soft: 20000, Hard: 20000},
		}, ulimits...)},
	}
}

func ulimitMap(entries map[string][2]int64) types.Map {
	vals := map[string]attr.Value{}
	for name, sh := range entries {
		vals[name] = types.ObjectValueMust(ulimitAttrTypes, map[string]attr.Value{
			"soft": types.Int64Value(sh[0]), "hard": types.Int64Value(sh[1])})
	}
	return types.MapValueMust(types.ObjectType{AttrTypes: ulimitAttrTypes}, vals)
}

func TestEngineDefaultsAreNotTakenForSettings(t *testing.T) {
	created := podmanHostConfig(2048)
	added := engine.AddedDefaults(engine.ContainerSpec{}, created)
	if added.PidsLimit != 2048 || added.ShmSize != 65536000 || len(added.Ulimits) != 2 {
		t.Fatalf("added defaults %+v", added)
	}

	l := nullLimits()
	l.observe(created, added)
	if !l.PidsLimit.IsNull() || !l.ShmSize.IsNull() || !l.Ulimits.IsNull() {
		t.Errorf("Podman's defaults were taken for settings: %+v", l)
	}

	t.Run("a change away from a default is drift", func(t *testing.T) {
		l := nullLimits()
		l.observe(podmanHostConfig(100000), added)
		if l.PidsLimit.ValueInt64() != 100000 {
			t.Errorf("pids_limit raised out of band shows as %v", l.PidsLimit)
		}
	})
	t.Run("without recorded defaults (import) they show", func(t *testing.T) {
		l := nullLimits()
		l.observe(created, engine.Defaults{})
		if l.PidsLimit.ValueInt64() != 2048 || l.ShmSize.ValueInt64() != 62 || len(l.Ulimits.Elements()) != 2 {
			t.Errorf("import view %+v", l)
		}
	})
	t.Run("a setting equal to a default is kept", func(t *testing.T) {
		l := nullLimits()
		l.PidsLimit = types.Int64Value(2048)
		l.observe(created, added)
		if l.PidsLimit.ValueInt64() != 2048 {
			t.Errorf("pids_limit = 2048 set by the user became %v", l.PidsLimit)
		}
	})
	t.Run("the user's ulimits stay, Podman's names are Docker's", func(t *testing.T) {
		spec := engine.ContainerSpec{Ulimits: []engine.Ulimit{{Name: "core", Soft: 0, Hard: 0}}}
		h := podmanHostConfig(2048, &container.Ulimit{Name: "RLIMIT_CORE", Soft: 0, Hard: 0})
		added := engine.AddedDefaults(spec, h)
		l := nullLimits()
		l.Ulimits = ulimitMap(map[string][2]int64{"core": {0, 0}})
		want := l.Ulimits
		l.observe(h, added)
		if !l.Ulimits.Equal(want) {
			t.Errorf("ulimits %v, want %v", l.Ulimits, want)
		}
	})
}
