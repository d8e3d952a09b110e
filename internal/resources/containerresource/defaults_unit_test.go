package containerresource

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/framework/values"
)

// podmanHostConfig is what Podman 4 reports for a sandbox created with
// pids_limit and ulimits unset, plus what a user asked for.
func podmanHostConfig(pids int64, ulimits ...engine.Ulimit) *engine.HostConfig {
	return &engine.HostConfig{
		ShmSize: 65536000, PidsLimit: &pids, Ulimits: append([]engine.Ulimit{
			{Name: "RLIMIT_NOFILE", Soft: 20000, Hard: 20000},
			{Name: "RLIMIT_NPROC", Soft: 20000, Hard: 20000},
		}, ulimits...),
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
		h := podmanHostConfig(2048, engine.Ulimit{Name: "RLIMIT_CORE", Soft: 0, Hard: 0})
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

func TestPodmanCapabilitySpellingKeepsTheConfiguration(t *testing.T) {
	p := capabilitiesModel{
		CapDrop: values.StringSet([]string{"ALL"}), CapAdd: values.StringSet([]string{"NET_BIND_SERVICE"}),
		AllowUnsafeCapabilities: types.BoolNull(),
	}
	held := p
	// Podman lists every default capability but the one added as dropped.
	var drop []string
	for _, c := range engine.DefaultCapabilities {
		if c != "NET_BIND_SERVICE" {
			drop = append(drop, c)
		}
	}
	p.observe(&engine.HostConfig{CapDrop: drop}, engine.Defaults{})
	if !p.CapDrop.Equal(held.CapDrop) || !p.CapAdd.Equal(held.CapAdd) {
		t.Errorf("the same capability set read as cap_drop %v, cap_add %v", p.CapDrop, p.CapAdd)
	}
	// One more capability really added is drift.
	p.observe(&engine.HostConfig{CapDrop: drop, CapAdd: []string{"CAP_NET_RAW"}}, engine.Defaults{})
	if p.CapAdd.Equal(held.CapAdd) {
		t.Errorf("an added capability went unseen: cap_add %v", p.CapAdd)
	}
}

// A stock Podman's containers.conf leaves AUDIT_WRITE, MKNOD and NET_RAW out
// of its default set, and Podman reports them as dropped: a sandbox that
// asked for nothing keeps cap_add and cap_drop unset, because the engine
// shows the set it was created with. A set other than that one is drift.
func TestEngineDefaultCapabilitiesAreNotSettings(t *testing.T) {
	stock := &engine.HostConfig{CapDrop: []string{"AUDIT_WRITE", "MKNOD", "NET_RAW"}}
	created := engine.AddedDefaults(engine.ContainerSpec{}, stock)
	p := nullCapabilities()
	p.observe(stock, created)
	if !p.CapDrop.IsNull() || !p.CapAdd.IsNull() {
		t.Fatalf("the engine's default set read as cap_drop %v, cap_add %v", p.CapDrop, p.CapAdd)
	}
	p.observe(&engine.HostConfig{CapDrop: []string{"MKNOD"}}, created)
	if p.CapDrop.IsNull() {
		t.Error("a capability set other than the one created with went unseen")
	}
	// Without a record (a sandbox created before it existed), the set is
	// compared with Docker's defaults, as before.
	p = nullCapabilities()
	p.observe(stock, engine.Defaults{})
	if p.CapDrop.IsNull() {
		t.Error("without a record, Podman's smaller set is not Docker's default")
	}
}

// A sandbox whose engine did not apply the capabilities asked for is an
// error at create, never a weaker sandbox.
func TestCapabilitiesTheEngineIgnoredAreRefused(t *testing.T) {
	p := capabilitiesModel{CapDrop: values.StringSet([]string{"ALL"}), CapAdd: values.StringSet([]string{"NET_BIND_SERVICE"})}
	c := func(h *engine.HostConfig) engine.Sandbox {
		return engine.Sandbox{Container: engine.Container{ID: "abc", HostConfig: h}}
	}
	var allButOne []string
	for _, name := range engine.DefaultCapabilities {
		if name != "NET_BIND_SERVICE" {
			allButOne = append(allButOne, name)
		}
	}
	if diags := p.checkGranted(c(&engine.HostConfig{CapDrop: allButOne})); diags.HasError() {
		t.Errorf("the set asked for was refused: %v", diags)
	}
	if diags := p.checkGranted(c(&engine.HostConfig{CapDrop: []string{"NET_RAW"}})); !diags.HasError() {
		t.Error("an engine that kept the dropped capabilities was accepted")
	}
	if diags := p.checkGranted(c(&engine.HostConfig{CapDrop: []string{"ALL"}})); !diags.HasError() {
		t.Error("an engine that did not add NET_BIND_SERVICE was accepted")
	}
}

func TestPortPickedByTheEngineIsNotASetting(t *testing.T) {
	held := []engine.PortBinding{{Port: 80, Protocol: "tcp", HostIP: "127.0.0.1"}}
	// Podman reports the host port it picked; Docker reports none.
	got := withoutAssignedPorts(held, []engine.PortBinding{{Port: 80, Protocol: "tcp", HostIP: "127.0.0.1", HostPort: 42829}})
	if !samePorts(held, got) {
		t.Errorf("picked port read as a setting: %v", got)
	}
	// Another interface is drift, picked port or not.
	got = withoutAssignedPorts(held, []engine.PortBinding{{Port: 80, Protocol: "tcp", HostIP: "0.0.0.0", HostPort: 42829}})
	if samePorts(held, got) {
		t.Errorf("a binding on every interface went unseen: %v", got)
	}
}

func TestImportOnPodmanTellsTheConfigurationFromTheEngine(t *testing.T) {
	spec := engine.ContainerSpec{Image: "tfsandbox/busybox:latest", Labels: map[string]string{}}
	recordConfigured(&spec, map[string]string{"GREETING": "hello"}, types.Int64Value(3))
	c := engine.Sandbox{Container: engine.Container{
		ID: "abc", Name: "/s1", HostConfig: podmanHostConfig(2048),
		Config: &engine.ContainerConfig{
			Image:      "localhost/tfsandbox/busybox:latest",
			Env:        []string{"GREETING=hello", "HOME=/root", "HOSTNAME=abc", "TERM=xterm", "container=podman"},
			WorkingDir: "/",
			Labels:     spec.Labels,
		},
	}}

	var m resourceModel
	defaults := m.setFromEngine(context.Background(), c, engine.Image{})
	if m.Image.ValueString() != "tfsandbox/busybox:latest" || !m.WorkingDir.IsNull() {
		t.Errorf("image %v, working_dir %v", m.Image, m.WorkingDir)
	}
	if env := m.Env.Elements(); len(env) != 1 || env["GREETING"] == nil {
		t.Errorf("env %v, want only GREETING", m.Env)
	}
	if !m.PidsLimit.IsNull() || !m.ShmSize.IsNull() || !m.Ulimits.IsNull() {
		t.Errorf("Podman's defaults imported as settings: pids %v shm %v ulimits %v", m.PidsLimit, m.ShmSize, m.Ulimits)
	}
	if defaults.PidsLimit != 2048 {
		t.Errorf("import recorded defaults %+v", defaults)
	}
	if m.EnvWOVersion.ValueInt64() != 3 {
		t.Errorf("env_wo_version %v, want the recorded 3", m.EnvWOVersion)
	}
	if _, shown := m.Labels.Elements()[labelConfigured]; shown {
		t.Error("the record shows in labels")
	}
}

func TestTmpfsTheEngineAddsIsNotASetting(t *testing.T) {
	asked := map[string]string{"/tmp": "rw,size=16m,mode=1777"}
	// Podman, for a read-only container.
	observed := map[string]string{
		"/tmp":     "rw,size=16m,mode=1777,rprivate,nosuid,nodev,tmpcopyup",
		"/run":     "rw,rprivate,nosuid,nodev,tmpcopyup",
		"/var/tmp": "rw,rprivate,nosuid,nodev,tmpcopyup",
	}
	var d engine.Defaults
	d.Tmpfs, d.TmpfsOptions = engine.AddedTmpfs(asked, observed)
	if got := d.AskedTmpfs(observed); len(got) != 1 || got["/tmp"] != asked["/tmp"] {
		t.Errorf("asked tmpfs read back as %v", got)
	}
	observed["/run"] = "rw,exec"
	if got := d.AskedTmpfs(observed); got["/run"] != "rw,exec" {
		t.Errorf("a changed engine mount went unseen: %v", got)
	}
	if got := (engine.Defaults{}).AskedTmpfs(nil); got != nil {
		t.Errorf("no mounts read as %v", got)
	}
}
