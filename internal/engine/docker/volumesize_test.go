package docker

import (
	"errors"
	"fmt"
	"testing"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/localdir"
)

// What a create writes for a bound, each engine's way, reads back as the
// same bound; a memory volume on Podman off x86_64 is refused.
func TestVolumeBoundReadsWhatTheCreateWrote(t *testing.T) {
	const size = 3 << 20
	for _, tc := range []struct {
		spec     engine.VolumeSpec
		podman   bool
		arch     string
		want     string
		wantSize int64
	}{
		{engine.VolumeSpec{}, false, "", "map[]", 0},
		{engine.VolumeSpec{Size: size}, false, "", "map[size:3145728]", size},
		{engine.VolumeSpec{Size: size}, true, "", "map[o:size=3145728]", size},
		{engine.VolumeSpec{Size: size, InMemory: true, Owner: localdir.Owner{UID: 65534, GID: 65534}}, false, "", "map[device:tmpfs " +
			"o:size=3145728,uid=65534,gid=65534,mode=0755 type:tmpfs]", size},
		{engine.VolumeSpec{Size: size + 1, InMemory: true}, true, "x86_64", "map[device:tmpfs " +
			"o:nr_blocks=769,uid=0,gid=0,mode=0755 type:tmpfs]", size + engine.X86PageSize},
	} {
		opts, err := boundOptions(tc.spec, tc.podman, tc.arch)
		if err != nil || fmt.Sprint(opts) != tc.want {
			t.Errorf("%+v on podman=%v: %v (%v), want %s", tc.spec, tc.podman, opts, err, tc.want)
		}
		got, memory := engine.VolumeBound(engine.Volume{Options: opts})
		if got != tc.wantSize || memory != tc.spec.InMemory {
			t.Errorf("%+v read back as %d bytes, in memory %v", tc.spec, got, memory)
		}
	}
	var unsupported *engine.MemoryVolumeUnsupportedError
	if _, err := boundOptions(engine.VolumeSpec{Size: size, InMemory: true}, true, "aarch64"); !errors.As(err, &unsupported) {
		t.Errorf("a memory volume on Podman on aarch64: %v, want it refused", err)
	}
}
