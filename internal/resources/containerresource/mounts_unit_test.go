package containerresource

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
)

func mountsValue(t *testing.T, entries map[string]mountModel) types.Map {
	t.Helper()
	if entries == nil {
		return nullMounts().Mounts
	}
	vals := map[string]attr.Value{}
	for target, m := range entries {
		obj, diags := types.ObjectValueFrom(context.Background(), mountAttrTypes, m)
		if diags.HasError() {
			t.Fatal(diags)
		}
		vals[target] = obj
	}
	return types.MapValueMust(types.ObjectType{AttrTypes: mountAttrTypes}, vals)
}

func inspected(points ...engine.MountPoint) engine.Container {
	return engine.Container{Mounts: points}
}

// A refresh keeps the state's spelling of an unchanged mount, and shows
// every change: a mount gone, added, another volume, another mode, a host
// path. Anonymous volumes are the image's, not the configuration's.
func TestMountsObserve(t *testing.T) {
	work := engine.MountPoint{Type: engine.MountVolume, Name: "work", Destination: "/w", RW: true}
	readOnly := work
	readOnly.RW = false
	anonymous := engine.MountPoint{Type: engine.MountVolume, Destination: "/var/lib/x",
		Name: "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef", RW: true}
	host := engine.MountPoint{Type: engine.MountBind, Source: "/srv", Destination: "/w", RW: true}
	hostReadOnly := host
	hostReadOnly.RW = false
	hostUnset := mountModel{HostPath: types.StringValue("/srv"), ReadOnly: types.BoolNull()}
	unset := mountModel{Volume: types.StringValue("work"), ReadOnly: types.BoolNull()}
	asFalse := mountModel{Volume: types.StringValue("work"), ReadOnly: types.BoolValue(false)}
	asTrue := mountModel{Volume: types.StringValue("work"), ReadOnly: types.BoolValue(true)}
	cases := []struct {
		name     string
		held     map[string]mountModel
		observed engine.Container
		want     map[string]mountModel
	}{
		{"unchanged, read_only unset", map[string]mountModel{"/w": unset}, inspected(work), map[string]mountModel{"/w": unset}},
		{"unchanged, read_only false", map[string]mountModel{"/w": asFalse}, inspected(work), map[string]mountModel{"/w": asFalse}},
		{"unchanged, read-only", map[string]mountModel{"/w": asTrue}, inspected(readOnly), map[string]mountModel{"/w": asTrue}},
		{"made writable", map[string]mountModel{"/w": asTrue}, inspected(work), map[string]mountModel{"/w": asFalse}},
		{"made read-only", map[string]mountModel{"/w": unset}, inspected(readOnly), map[string]mountModel{"/w": asTrue}},
		{"imported", nil, inspected(work, anonymous), map[string]mountModel{"/w": unset}},
		{"gone", map[string]mountModel{"/w": unset}, inspected(anonymous), nil},
		{"none", nil, inspected(), nil},
		{"host path instead", map[string]mountModel{"/w": unset}, inspected(host),
			map[string]mountModel{"/w": {HostPath: types.StringValue("/srv"), ReadOnly: types.BoolValue(false)}}},
		{"host path, read-only by default", map[string]mountModel{"/w": hostUnset}, inspected(hostReadOnly),
			map[string]mountModel{"/w": hostUnset}},
		{"host path made writable", map[string]mountModel{"/w": hostUnset}, inspected(host),
			map[string]mountModel{"/w": {HostPath: types.StringValue("/srv"), ReadOnly: types.BoolValue(false)}}},
		{"host path imported", nil, inspected(hostReadOnly), map[string]mountModel{"/w": hostUnset}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := mountsModel{Mounts: mountsValue(t, c.held)}
			m.observe(engine.Sandbox{Container: c.observed})
			if want := mountsValue(t, c.want); !m.Mounts.Equal(want) {
				t.Errorf("observed %v, want %v", m.Mounts, want)
			}
		})
	}
}

// Host paths that hand the host over are refused, above and below what
// they must not reach; others pass.
func TestHostPathProblem(t *testing.T) {
	forbidden := forbiddenOn(engine.Facts{DataRoot: "/srv/docker-data"}, "/home/me/.docker/run/docker.sock")
	for p, want := range map[string]string{
		"/":                                 "it is the host's root",
		"/etc":                              "it is /etc or lies under it",
		"/etc/ssl/certs":                    "it is /etc or lies under it",
		"/var":                              "it holds /var/run",
		"/var/lib":                          "it holds /var/lib/docker",
		"/var/lib/docker/volumes/x/_data":   "it is /var/lib/docker or lies under it",
		"/srv":                              "it holds /srv/docker-data",
		"/srv/docker-data/overlay2":         "it is /srv/docker-data or lies under it",
		"/home/me":                          "it holds /home/me/.docker/run/docker.sock",
		"/run/user/1000/podman/podman.sock": "it is an engine's socket",
		"/tmp/x/containerd.sock":            "it is an engine's socket",
		"/proc/1/root":                      "it is /proc or lies under it",
		"/srv/data":                         "",
		"/home/me/project":                  "",
		"/opt/repo":                         "",
		"/var/cache/agent":                  "",
	} {
		if got := hostPathProblem(p, forbidden); !strings.HasPrefix(got, want) || (want == "") != (got == "") {
			t.Errorf("hostPathProblem(%q) = %q, want %q", p, got, want)
		}
	}
}

// A host directory is refused when a filesystem is mounted under it, when
// it holds a socket however deep, and when it cannot be looked through; a
// directory of plain files passes.
func TestHoldsTheHost(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	deep := filepath.Join(dir, "a", "b")
	if err := os.MkdirAll(deep, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(deep, "notes"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if problem := holdsTheHost(dir); problem != "" {
		t.Fatalf("a directory of plain files: %s", problem)
	}
	l, err := net.Listen("unix", filepath.Join(deep, "engine.sock"))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = l.Close() }()
	if problem := holdsTheHost(dir); !strings.Contains(problem, "it holds the socket "+filepath.Join(deep, "engine.sock")) {
		t.Errorf("a socket two levels down: %q", problem)
	}

	mountinfo := "22 1 8:1 / / rw - ext4 /dev/sda1 rw\n" +
		"30 22 0:5 / /srv/share rw - ext4 /dev/sdb rw\n" +
		"31 30 0:6 /run /srv/share/with\\040space/run rw - tmpfs tmpfs rw\n"
	for dir, want := range map[string]string{
		"/srv/share": "/srv/share/with space/run", "/srv/share/with space": "/srv/share/with space/run",
		"/srv/share/with space/run": "", "/srv/shared": "", "/home": "",
	} {
		if got := mountedUnder(mountinfo, dir); got != want {
			t.Errorf("mounted under %s: %q, want %q", dir, got, want)
		}
	}
}

func TestNumericIDsAndKeptCapabilities(t *testing.T) {
	t.Parallel()
	for user, want := range map[string][3]int{"65534:65534": {65534, 65534, 1}, "1000": {1000, -1, 1}, "nobody": {0, 0, 0},
		"1:x": {0, 0, 0}, "": {0, 0, 0}} {
		uid, gid, ok := numericIDs(user)
		if got := [3]int{uid, gid, map[bool]int{true: 1}[ok]}; got != want {
			t.Errorf("%q: %v, want %v", user, got, want)
		}
	}
	for _, c := range []struct {
		drop, add []string
		want      bool
	}{
		{nil, nil, true}, {[]string{"ALL"}, nil, false}, {[]string{"cap_dac_override"}, nil, false},
		{[]string{"ALL"}, []string{"DAC_OVERRIDE"}, true}, {[]string{"CHOWN"}, nil, true},
	} {
		if got := keepsCapability("DAC_OVERRIDE", c.drop, c.add); got != c.want {
			t.Errorf("drop %v add %v: %v", c.drop, c.add, got)
		}
	}
}
