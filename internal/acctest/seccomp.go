package acctest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/moby/profiles/seccomp"
)

// DockerSeccompProfile writes Docker's default seccomp profile (from
// github.com/moby/profiles/seccomp, the profile dockerd applies) to a file
// every user may read, for a test that names it on a Podman host, and
// returns its path.
func DockerSeccompProfile(t *testing.T) string {
	t.Helper()
	raw, err := json.Marshal(seccomp.DefaultProfile())
	if err != nil {
		t.Fatal(err)
	}
	// t.TempDir is private to root; rootless Podman reads the profile as
	// its own user.
	dir := t.TempDir()
	for _, d := range []string{filepath.Dir(dir), dir} {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(dir, "docker-default.json")
	if err := os.WriteFile(path, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}
