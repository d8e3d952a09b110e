package containerresource

import (
	"context"
	"testing"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/mount"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"
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

func inspected(points ...container.MountPoint) container.InspectResponse {
	return container.InspectResponse{Mounts: points}
}

// A refresh keeps the state's spelling of an unchanged mount, and shows
// every change: a mount gone, added, another volume, another mode, a host
// path. Anonymous volumes are the image's, not the configuration's.
func TestMountsObserve(t *testing.T) {
	work := container.MountPoint{Type: mount.TypeVolume, Name: "work", Destination: "/w", RW: true}
	readOnly := work
	readOnly.RW = false
	anonymous := container.MountPoint{Type: mount.TypeVolume, Destination: "/var/lib/x",
		Name: "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef", RW: true}
	host := container.MountPoint{Type: mount.TypeBind, Source: "/srv", Destination: "/w", RW: true}
	unset := mountModel{Volume: types.StringValue("work"), ReadOnly: types.BoolNull()}
	asFalse := mountModel{Volume: types.StringValue("work"), ReadOnly: types.BoolValue(false)}
	asTrue := mountModel{Volume: types.StringValue("work"), ReadOnly: types.BoolValue(true)}
	cases := []struct {
		name     string
		held     map[string]mountModel
		observed container.InspectResponse
		want     map[string]mountModel
	}{
		{"unchanged, read_only unset", map[string]mountModel{"/w": unset}, inspected(work), map[string]mountModel{"/w": unset}},
		{"unchanged, read_only false", map[string]mountModel{"/w": asFalse}, inspected(work), map[string]mountModel{"/w": asFalse}},
		{"unchanged, read-only", map[string]mountModel{"/w": asTrue}, inspected(readOnly), map[string]mountModel{"/w": asTrue}},
		{"made writable", map[string]mountModel{"/w": asTrue}, inspected(work), map[string]mountModel{"/w": unset}},
		{"made read-only", map[string]mountModel{"/w": unset}, inspected(readOnly), map[string]mountModel{"/w": asTrue}},
		{"imported", nil, inspected(work, anonymous), map[string]mountModel{"/w": unset}},
		{"gone", map[string]mountModel{"/w": unset}, inspected(anonymous), nil},
		{"none", nil, inspected(), nil},
		{"host path instead", map[string]mountModel{"/w": unset}, inspected(host),
			map[string]mountModel{"/w": {Volume: types.StringValue("host path /srv"), ReadOnly: types.BoolNull()}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := mountsModel{Mounts: mountsValue(t, c.held)}
			m.observe(context.Background(), c.observed)
			if want := mountsValue(t, c.want); !m.Mounts.Equal(want) {
				t.Errorf("observed %v, want %v", m.Mounts, want)
			}
		})
	}
}
