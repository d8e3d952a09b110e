package resources

import (
	"context"
	"reflect"
	"testing"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/image"
	"github.com/docker/docker/api/types/network"
	"github.com/docker/go-connections/nat"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"
	dockerspec "github.com/moby/docker-image-spec/specs-go/v1"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
)

func TestSpecDefaultsToKeepAliveAndStampsOwnership(t *testing.T) {
	t.Parallel()
	m := containerModel{
		Name:        types.StringValue("s1"),
		Image:       types.StringValue("img"),
		NetworkMode: types.StringValue("none"),
		Entrypoint:  types.ListNull(types.StringType),
		Command:     types.ListNull(types.StringType),
		Env:         stringMap(map[string]string{"B": "2", "A": "1"}),
		Labels:      types.MapNull(types.StringType),
		WorkingDir:  types.StringNull(),
		User:        types.StringNull(),
		Init:        types.BoolValue(true),
	}
	m.setHardeningNull()
	spec, diags := m.spec(context.Background(), nil)
	if diags.HasError() {
		t.Fatal(diags)
	}
	if !reflect.DeepEqual(spec.Entrypoint, keepAlive) || spec.Command != nil {
		t.Errorf("entrypoint %v command %v, want the keep-alive", spec.Entrypoint, spec.Command)
	}
	if !reflect.DeepEqual(spec.Env, []string{"A=1", "B=2"}) {
		t.Errorf("env %v", spec.Env)
	}
	if spec.Labels[labelManagedBy] != managedByValue || spec.Labels[labelResourceType] != "sandbox_container" {
		t.Errorf("labels %v lack ownership", spec.Labels)
	}
	if spec.NetworkMode != "none" || !spec.Init || spec.Name != "s1" {
		t.Errorf("spec %+v", spec)
	}

	m.Command = stringList([]string{"sleep", "1"})
	spec, _ = m.spec(context.Background(), nil)
	if spec.Entrypoint != nil || !reflect.DeepEqual(spec.Command, []string{"sleep", "1"}) {
		t.Errorf("with a command: entrypoint %v command %v", spec.Entrypoint, spec.Command)
	}
}

func TestSetFromEngine(t *testing.T) {
	t.Parallel()
	img := image.InspectResponse{Config: &dockerspec.DockerOCIImageConfig{ImageConfig: ocispec.ImageConfig{
		Env:        []string{"PATH=/bin"},
		Cmd:        []string{"sh"},
		WorkingDir: "/",
		Labels:     map[string]string{"org.example.base": "busybox"},
	}}}
	yes := true
	base := func(cfg container.Config, mode string, networks ...string) container.InspectResponse {
		eps := map[string]*network.EndpointSettings{}
		for _, n := range networks {
			eps[n] = &network.EndpointSettings{}
		}
		cfg.Image = "tfsandbox/busybox:latest"
		return container.InspectResponse{
			ContainerJSONBase: &container.ContainerJSONBase{
				ID:         "abc",
				Name:       "/sb",
				Image:      "sha256:1",
				State:      &container.State{Running: true, Status: "running"},
				HostConfig: &container.HostConfig{NetworkMode: container.NetworkMode(mode), Init: &yes},
			},
			Config:          &cfg,
			NetworkSettings: &container.NetworkSettings{Networks: eps},
		}
	}

	tests := map[string]struct {
		in   container.InspectResponse
		want func(m containerModel) bool
	}{
		"created by the provider with defaults": {
			in: base(container.Config{
				Entrypoint: keepAlive,
				Env:        []string{"PATH=/bin"},
				WorkingDir: "/",
				Labels: map[string]string{labelManagedBy: managedByValue, labelResourceType: "sandbox_container",
					"org.example.base": "busybox"},
			}, "none", "none"),
			want: func(m containerModel) bool {
				return m.Entrypoint.IsNull() && m.Command.IsNull() && m.Env.IsNull() && m.Labels.IsNull() &&
					m.WorkingDir.IsNull() && m.User.IsNull() && m.NetworkMode.ValueString() == "none" &&
					m.Name.ValueString() == "sb" && m.Init.ValueBool() && m.Running.ValueBool() &&
					m.StopTimeout.ValueInt64() == defaultStopTimeout
			},
		},
		"user settings are kept": {
			in: base(container.Config{
				Entrypoint: []string{"/bin/sh"},
				Cmd:        []string{"-c", "sleep 1d"},
				Env:        []string{"PATH=/bin", "A=1"},
				WorkingDir: "/work",
				User:       "1000",
				Labels:     map[string]string{"team": "x", "org.example.base": "other"},
			}, "none", "none"),
			want: func(m containerModel) bool {
				var ep, cmd []string
				var env, labels map[string]string
				m.Entrypoint.ElementsAs(context.Background(), &ep, false)
				m.Command.ElementsAs(context.Background(), &cmd, false)
				m.Env.ElementsAs(context.Background(), &env, false)
				m.Labels.ElementsAs(context.Background(), &labels, false)
				return reflect.DeepEqual(ep, []string{"/bin/sh"}) && reflect.DeepEqual(cmd, []string{"-c", "sleep 1d"}) &&
					reflect.DeepEqual(env, map[string]string{"A": "1"}) &&
					reflect.DeepEqual(labels, map[string]string{"team": "x", "org.example.base": "other"}) &&
					m.WorkingDir.ValueString() == "/work" && m.User.ValueString() == "1000"
			},
		},
		"image command inherited": {
			in: base(container.Config{Cmd: []string{"sh"}}, "bridge", "bridge"),
			want: func(m containerModel) bool {
				return m.Entrypoint.IsNull() && m.Command.IsNull() && m.NetworkMode.IsNull()
			},
		},
		"isolated mode but attached to a network imports as not isolated": {
			in: base(container.Config{Entrypoint: keepAlive}, "none", "bridge"),
			want: func(m containerModel) bool {
				return m.NetworkMode.IsNull() && m.Networks.Equal(stringSet([]string{"bridge"}))
			},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var m containerModel
			m.setFromEngine(tc.in, img)
			if !tc.want(m) {
				t.Errorf("setFromEngine gave %+v", m)
			}
		})
	}
}

func TestLimitsWithoutSwapGiveNoSwap(t *testing.T) {
	t.Parallel()
	var m containerModel
	m.setHardeningNull()
	m.Memory, m.CPUs, m.PidsLimit = types.Int64Value(64), types.Float64Value(1.3), types.Int64Value(10)
	want := engine.Limits{Memory: 64 * mib, MemorySwap: 64 * mib, NanoCPUs: 1_300_000_000, PidsLimit: 10}
	if got := m.limits(); got != want {
		t.Errorf("limits %+v, want %+v", got, want)
	}
	m.MemorySwap = types.Int64Value(128)
	if got := m.limits().MemorySwap; got != 128*mib {
		t.Errorf("memory+swap %d, want 128 MiB", got)
	}
}

// Observing what the engine made of a configuration changes nothing in it,
// whatever order or spelling the engine uses; a widened value shows.
func TestObserveHardeningKeepsEqualValues(t *testing.T) {
	t.Parallel()
	var m containerModel
	m.setHardeningNull()
	m.CapDrop = stringSet([]string{"NET_RAW", "ALL"})
	m.Tmpfs = stringMap(map[string]string{"/tmp": "rw"})
	m.Memory = types.Int64Value(64)
	m.Ports = types.SetValueMust(types.ObjectType{AttrTypes: portAttrTypes}, []attr.Value{
		types.ObjectValueMust(portAttrTypes, map[string]attr.Value{
			"internal": types.Int64Value(80), "external": types.Int64Null(),
			"host_ip": types.StringNull(), "protocol": types.StringNull(),
		}),
	})
	before := m

	pids := int64(0)
	c := container.InspectResponse{ContainerJSONBase: &container.ContainerJSONBase{HostConfig: &container.HostConfig{
		CapDrop:      []string{"CAP_ALL", "net_raw"},
		SecurityOpt:  []string{"no-new-privileges"},
		Tmpfs:        map[string]string{"/tmp": "rw"},
		ShmSize:      engineDefaultShmMiB * mib,
		Runtime:      "runc",
		Resources:    container.Resources{Memory: 64 * mib, MemorySwap: 64 * mib, PidsLimit: &pids},
		PortBindings: nat.PortMap{"80/tcp": []nat.PortBinding{{HostIP: "127.0.0.1"}}},
	}}}
	m.observeHardening(c)
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
	m.observeHardening(c)
	if !m.CapAdd.Equal(stringSet([]string{"SYS_ADMIN"})) || m.NoNewPrivileges.ValueBool() ||
		m.Memory.ValueInt64() != 512 || m.MemorySwap.ValueInt64() != -1 ||
		!m.SecurityOpts.Equal(stringSet([]string{"seccomp=unconfined"})) {
		t.Errorf("widened privileges or changed limits not observed: %+v", m)
	}
}
