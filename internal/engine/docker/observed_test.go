package docker

import (
	"reflect"
	"testing"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/mount"
	"github.com/docker/go-connections/nat"
	"github.com/docker/go-units"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
)

// Every value of the seam's Container is read from the engine's inspect
// data: given data with each of them set, none comes out empty.
func TestObservedReadsEveryValue(t *testing.T) {
	yes, pids := true, int64(64)
	info := container.InspectResponse{
		ContainerJSONBase: &container.ContainerJSONBase{
			ID: "abc", Name: "/sb", Created: "2026-12-03T10:00:00Z", Image: "sha256:1", RestartCount: 2,
			State: &container.State{Status: "running", Running: true, Paused: true, Restarting: true, OOMKilled: true,
				ExitCode: 3, StartedAt: "s", FinishedAt: "f", Error: "e"},
			HostConfig: &container.HostConfig{
				Privileged: true, CapAdd: []string{"A"}, CapDrop: []string{"D"}, SecurityOpt: []string{"o"},
				ReadonlyRootfs: true, Init: &yes, Runtime: "runsc", ShmSize: 1, Tmpfs: map[string]string{"/t": ""},
				RestartPolicy: container.RestartPolicy{Name: "always"},
				PortBindings:  nat.PortMap{"80/tcp": {{HostIP: "127.0.0.1", HostPort: "8080"}}},
				Resources: container.Resources{Memory: 1, MemorySwap: 2, NanoCPUs: 3, PidsLimit: &pids,
					Ulimits: []*units.Ulimit{{Name: "nofile", Soft: 1, Hard: 2}}},
			},
		},
		Config: &container.Config{Image: "i", Entrypoint: []string{"e"}, Cmd: []string{"c"}, Env: []string{"A=1"},
			Labels: map[string]string{"l": "v", engine.LabelExpiresAt: "2026-12-05T10:00:00Z"}, User: "u", WorkingDir: "/w", Hostname: "h"},
		Mounts: []container.MountPoint{{Type: mount.TypeVolume, Name: "v", Source: "/s", Destination: "/d", RW: true}},
	}
	var empty []string
	var walk func(path string, v reflect.Value)
	walk = func(path string, v reflect.Value) {
		if t, ok := v.Interface().(time.Time); ok {
			// A time is one value, however it is held.
			if t.IsZero() {
				empty = append(empty, path)
			}
			return
		}
		switch v.Kind() {
		case reflect.Pointer:
			if v.IsNil() {
				empty = append(empty, path)
				return
			}
			walk(path, v.Elem())
		case reflect.Struct:
			for i := range v.NumField() {
				walk(path+"."+v.Type().Field(i).Name, v.Field(i))
			}
		case reflect.Slice:
			if v.Len() == 0 {
				empty = append(empty, path)
			}
			for i := range v.Len() {
				walk(path+"[]", v.Index(i))
			}
		default:
			if v.IsZero() {
				empty = append(empty, path)
			}
		}
	}
	got := observed(info)
	walk("Container", reflect.ValueOf(got))
	if len(empty) > 0 {
		t.Errorf("values the conversion left empty: %v", empty)
	}
	if p := got.HostConfig.PortBindings[0]; p != (engine.PortBinding{Port: 80, Protocol: "tcp", HostIP: "127.0.0.1", HostPort: 8080}) {
		t.Errorf("port %+v", p)
	}
	if observed(container.InspectResponse{}).State != nil {
		t.Error("an empty answer made up a state")
	}
}
