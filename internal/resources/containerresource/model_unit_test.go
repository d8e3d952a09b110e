package containerresource

import (
	"context"
	"reflect"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/framework/values"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/isolation"
)

// coreModel is a planned sandbox with the given core values and nothing
// else configured.
func coreModel() resourceModel {
	m := resourceModel{
		Name:       types.StringValue("s1"),
		Image:      types.StringValue("img"),
		Entrypoint: types.ListNull(types.StringType),
		Command:    types.ListNull(types.StringType),
		Env:        types.MapNull(types.StringType),
		Labels:     types.MapNull(types.StringType),
		WorkingDir: types.StringNull(),
		User:       types.StringNull(),
		Init:       types.BoolValue(true),
	}
	m.setState(stateRunning)
	m.StopTimeout = types.Int64Value(defaultStopTimeout)
	m.NetworkMode = types.StringValue("none")
	m.setGroupsNull()
	return m
}

func mustSpec(t *testing.T, m resourceModel, secretEnv map[string]string) engine.ContainerSpec {
	t.Helper()
	spec, diags := m.spec(context.Background(), secretEnv)
	if diags.HasError() {
		t.Fatalf("spec: %v", diags)
	}
	return spec
}

func TestSpecDefaultsToKeepAliveAndStampsOwnership(t *testing.T) {
	t.Parallel()
	m := coreModel()
	m.Env = values.StringMap(map[string]string{"B": "2", "A": "1"})
	spec := mustSpec(t, m, map[string]string{"TOKEN": "s", "KEY": "k"})
	if !reflect.DeepEqual(spec.Entrypoint, keepAlive) || spec.Command != nil {
		t.Errorf("entrypoint %v command %v, want the keep-alive", spec.Entrypoint, spec.Command)
	}
	if want := []string{"A=1", "B=2", "KEY=k", "TOKEN=s"}; !reflect.DeepEqual(spec.Env, want) {
		t.Errorf("env %v, want %v", spec.Env, want)
	}
	if !engine.ManagedBy(spec.Labels) || spec.Labels[engine.LabelResourceType] != resourceType {
		t.Errorf("labels %v lack ownership", spec.Labels)
	}
	if got := spec.Labels[labelSecretEnv]; got != "KEY,TOKEN" {
		t.Errorf("secret names label %q, want KEY,TOKEN", got)
	}
	if spec.NetworkMode != "none" || !spec.Init || spec.Name != "s1" {
		t.Errorf("network mode %q, init %v, name %q", spec.NetworkMode, spec.Init, spec.Name)
	}
	if !reflect.DeepEqual(spec.SecurityOpt, []string(nil)) {
		t.Errorf("security options %v with no_new_privileges null", spec.SecurityOpt)
	}

	m.Command = values.StringList([]string{"sleep", "1"})
	m.NoNewPrivileges = types.BoolValue(true)
	spec = mustSpec(t, m, nil)
	if spec.Entrypoint != nil || !reflect.DeepEqual(spec.Command, []string{"sleep", "1"}) {
		t.Errorf("with a command: entrypoint %v command %v", spec.Entrypoint, spec.Command)
	}
	if !reflect.DeepEqual(spec.SecurityOpt, []string{noNewPrivileges}) {
		t.Errorf("security options %v, want %s", spec.SecurityOpt, noNewPrivileges)
	}
	if _, ok := spec.Labels[labelSecretEnv]; ok {
		t.Error("secret names label without secrets")
	}
}

// importCase builds the engine's data for a container made from the test
// image with cfg, in network mode mode, attached to networks.
func importCase(cfg engine.ContainerConfig, mode string, networks ...string) engine.Sandbox {
	cfg.Image = "tfsandbox/busybox:latest"
	yes := true
	return engine.Sandbox{
		Container: engine.Container{
			ID:         "abc",
			Name:       "/sb",
			Image:      "sha256:1",
			State:      &engine.ContainerState{Running: true, Status: "running"},
			HostConfig: &engine.HostConfig{Init: &yes, Runtime: defaultRuntime},
			Config:     &cfg,
		},
		Network: isolation.Observed{Attachments: &isolation.Attachments{Reported: true, Mode: mode, Networks: networks}},
	}
}

func TestSetFromEngine(t *testing.T) {
	t.Parallel()
	img := engine.Image{
		Env:        []string{"PATH=/bin"},
		Cmd:        []string{"sh"},
		WorkingDir: "/",
		Labels:     map[string]string{"org.example.base": "busybox"},
	}
	null := types.StringNull()
	tests := map[string]struct {
		in   engine.Sandbox
		want map[string]attr.Value
	}{
		"created by the provider with defaults": {
			in: importCase(engine.ContainerConfig{
				Entrypoint: keepAlive,
				Env:        []string{"PATH=/bin", "TOKEN=secret"},
				WorkingDir: "/",
				Labels: map[string]string{engine.LabelManagedBy: engine.ManagedByValue,
					engine.LabelResourceType: resourceType, labelSecretEnv: "TOKEN", "org.example.base": "busybox"},
			}, "none", "none"),
			want: map[string]attr.Value{
				"entrypoint": types.ListNull(types.StringType), "command": types.ListNull(types.StringType),
				"env": types.MapNull(types.StringType), "labels": types.MapNull(types.StringType),
				"working_dir": null, "user": null, "network_mode": types.StringValue("none"),
				"name": types.StringValue("sb"), "init": types.BoolValue(true), "running": types.BoolValue(true),
				"stop_timeout": types.Int64Value(defaultStopTimeout), "runtime": null,
				"networks": values.StringSet([]string{"none"}), "allow_unconfined": types.BoolValue(false),
			},
		},
		"user settings are kept": {
			in: importCase(engine.ContainerConfig{
				Entrypoint: []string{"/bin/sh"},
				Cmd:        []string{"-c", "sleep 1d"},
				Env:        []string{"PATH=/bin", "A=1"},
				WorkingDir: "/work",
				User:       "1000",
				Labels:     map[string]string{"team": "x", "org.example.base": "other"},
			}, "none", "none"),
			want: map[string]attr.Value{
				"entrypoint":  values.StringList([]string{"/bin/sh"}),
				"command":     values.StringList([]string{"-c", "sleep 1d"}),
				"env":         values.StringMap(map[string]string{"A": "1"}),
				"labels":      values.StringMap(map[string]string{"team": "x", "org.example.base": "other"}),
				"working_dir": types.StringValue("/work"), "user": types.StringValue("1000"),
			},
		},
		"image command inherited": {
			in: importCase(engine.ContainerConfig{Cmd: []string{"sh"}}, "bridge", "bridge"),
			want: map[string]attr.Value{
				"entrypoint": types.ListNull(types.StringType), "command": types.ListNull(types.StringType),
				"network_mode": null,
			},
		},
		"isolated mode but attached to a network imports as not isolated": {
			in: importCase(engine.ContainerConfig{Entrypoint: keepAlive}, "none", "bridge"),
			want: map[string]attr.Value{
				"network_mode": null, "networks": values.StringSet([]string{"bridge"}),
			},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var m resourceModel
			m.setFromEngine(context.Background(), tc.in, img)
			got := importedValues(m)
			for attribute, want := range tc.want {
				if !got[attribute].Equal(want) {
					t.Errorf("%s = %v, want %v", attribute, got[attribute], want)
				}
			}
		})
	}
}

// importedValues are the attributes TestSetFromEngine checks, by name.
func importedValues(m resourceModel) map[string]attr.Value {
	return map[string]attr.Value{
		"entrypoint": m.Entrypoint, "command": m.Command, "env": m.Env, "labels": m.Labels,
		"working_dir": m.WorkingDir, "user": m.User, "network_mode": m.NetworkMode, "name": m.Name,
		"init": m.Init, "running": m.Running, "stop_timeout": m.StopTimeout, "runtime": m.Runtime,
		"networks": m.Networks, "allow_unconfined": m.AllowUnconfined,
	}
}

func TestLimitsWithoutSwapGiveNoSwap(t *testing.T) {
	t.Parallel()
	l := nullLimits()
	l.Memory, l.CPUs, l.PidsLimit = types.Int64Value(64), types.Float64Value(1.3), types.Int64Value(10)
	want := engine.Limits{Memory: 64 * mib, MemorySwap: 64 * mib, NanoCPUs: 1_300_000_000, PidsLimit: 10}
	if got := l.engineLimits(); got != want {
		t.Errorf("limits %+v, want %+v", got, want)
	}
	l.MemorySwap = types.Int64Value(128)
	if got := l.engineLimits().MemorySwap; got != 128*mib {
		t.Errorf("memory+swap %d, want 128 MiB", got)
	}
}

// Observing what the engine made of a configuration changes nothing in it,
// whatever order or spelling the engine uses; a widened value shows.
func TestObserveKeepsEqualValues(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	m := coreModel()
	m.CapDrop = values.StringSet([]string{"NET_RAW", "ALL"})
	m.Tmpfs = values.StringMap(map[string]string{"/tmp": "rw"})
	m.Memory = types.Int64Value(64)
	m.Ports = types.SetValueMust(types.ObjectType{AttrTypes: portAttrTypes}, []attr.Value{
		types.ObjectValueMust(portAttrTypes, map[string]attr.Value{
			"internal": types.Int64Value(80), "external": types.Int64Null(),
			"host_ip": types.StringNull(), "protocol": types.StringNull(),
		}),
	})
	before := m

	pids := int64(0)
	c := engine.Sandbox{Container: engine.Container{HostConfig: &engine.HostConfig{
		CapDrop:     []string{"CAP_ALL", "net_raw"},
		SecurityOpt: []string{"no-new-privileges"},
		Tmpfs:       map[string]string{"/tmp": "rw"},
		ShmSize:     engineDefaultShmMiB * mib,
		Runtime:     defaultRuntime,
		Memory:      64 * mib, MemorySwap: 64 * mib, PidsLimit: &pids,
		PortBindings: []engine.PortBinding{{Port: 80, Protocol: "tcp", HostIP: defaultPortHostIP}},
	}}}
	m.setObserved(ctx, c, engine.Defaults{})
	for name, pair := range map[string][2]attr.Value{
		"cap_drop": {before.CapDrop, m.CapDrop}, "tmpfs": {before.Tmpfs, m.Tmpfs}, "ports": {before.Ports, m.Ports},
		"memory": {before.Memory, m.Memory}, "memory_swap": {before.MemorySwap, m.MemorySwap},
		"shm_size": {before.ShmSize, m.ShmSize}, "runtime": {before.Runtime, m.Runtime},
		"pids_limit": {before.PidsLimit, m.PidsLimit}, "security_opts": {before.SecurityOpts, m.SecurityOpts},
	} {
		if !pair[0].Equal(pair[1]) {
			t.Errorf("%s: %v became %v", name, pair[0], pair[1])
		}
	}
	if !m.NoNewPrivileges.ValueBool() {
		t.Error("no-new-privileges not observed")
	}

	c.HostConfig.CapAdd = []string{"CAP_SYS_ADMIN"}
	c.HostConfig.SecurityOpt = []string{"seccomp=unconfined"}
	c.HostConfig.Memory, c.HostConfig.MemorySwap = 512*mib, -1
	c.HostConfig.PortBindings = []engine.PortBinding{{Port: 80, Protocol: "tcp", HostIP: "0.0.0.0"}}
	m.setObserved(ctx, c, engine.Defaults{})
	for name, pair := range map[string][2]attr.Value{
		"cap_add":           {m.CapAdd, values.StringSet([]string{"SYS_ADMIN"})},
		"no_new_privileges": {m.NoNewPrivileges, types.BoolValue(false)},
		"memory":            {m.Memory, types.Int64Value(512)},
		"memory_swap":       {m.MemorySwap, types.Int64Value(-1)},
		"security_opts":     {m.SecurityOpts, values.StringSet([]string{"seccomp=unconfined"})},
	} {
		if !pair[0].Equal(pair[1]) {
			t.Errorf("widened %s observed as %v, want %v", name, pair[0], pair[1])
		}
	}
	if m.Ports.Equal(before.Ports) {
		t.Errorf("ports rebound to 0.0.0.0 observed as the configured %v", m.Ports)
	}
}
