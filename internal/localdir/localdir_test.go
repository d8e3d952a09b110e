package localdir

import (
	"archive/tar"
	"bytes"
	"crypto/sha256"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
)

func write(t *testing.T, path, content string, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
}

// A seed's tar holds every entry under its directory, that directory
// first, owned by the owner, with modes kept and times zeroed; .dockerignore
// applies, and can exclude itself when nothing keeps it.
func TestWalkAndWriteTarUnder(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "a.txt"), "a", 0o640)
	write(t, filepath.Join(dir, "bin", "run"), "#!/bin/sh\n", 0o755)
	write(t, filepath.Join(dir, ".env"), "SECRET", 0o600)
	write(t, filepath.Join(dir, ".dockerignore"), ".env\n.dockerignore\n", 0o644)
	if err := os.Symlink("a.txt", filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	files, err := Walk(dir)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := WriteTar(&buf, dir, files, Owner{UID: 65534, GID: 100}, "seed"); err != nil {
		t.Fatal(err)
	}
	type entry struct {
		mode     int64
		link     string
		content  string
		uid, gid int
	}
	got := map[string]entry{}
	var order []string
	tr := tar.NewReader(&buf)
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		content, _ := io.ReadAll(tr)
		if !hdr.ModTime.Equal(zeroTime) {
			t.Errorf("%s has time %s", hdr.Name, hdr.ModTime)
		}
		got[hdr.Name] = entry{hdr.Mode & 0o7777, hdr.Linkname, string(content), hdr.Uid, hdr.Gid}
		order = append(order, hdr.Name)
	}
	want := map[string]entry{
		"seed/":        {0o755, "", "", 65534, 100},
		"seed/a.txt":   {0o640, "", "a", 65534, 100},
		"seed/bin/":    {0o755, "", "", 65534, 100},
		"seed/bin/run": {0o755, "", "#!/bin/sh\n", 65534, 100},
		"seed/link":    {0o777, "a.txt", "", 65534, 100},
	}
	if len(got) != len(want) || order[0] != "seed/" {
		t.Fatalf("entries %v, want %v with seed/ first", order, want)
	}
	for name, w := range want {
		if got[name] != w {
			t.Errorf("%s: %+v, want %+v", name, got[name], w)
		}
	}
	// Keep overrides .dockerignore.
	kept, err := Walk(dir, ".dockerignore")
	if err != nil {
		t.Fatal(err)
	}
	if len(kept) != len(files)+1 {
		t.Errorf("keeping .dockerignore lists %d files, want %d", len(kept), len(files)+1)
	}
}

// The digest sees contents and modes, not times.
func TestDigest(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "f"), "one", 0o644)
	sum := func() string {
		files, err := Walk(dir)
		if err != nil {
			t.Fatal(err)
		}
		h := sha256.New()
		if err := Digest(h, dir, files); err != nil {
			t.Fatal(err)
		}
		return string(h.Sum(nil))
	}
	first := sum()
	if err := os.Chtimes(filepath.Join(dir, "f"), zeroTime, zeroTime); err != nil {
		t.Fatal(err)
	}
	if sum() != first {
		t.Error("a touched file changed the digest")
	}
	if err := os.Chmod(filepath.Join(dir, "f"), 0o600); err != nil {
		t.Fatal(err)
	}
	second := sum()
	if second == first {
		t.Error("a mode change kept the digest")
	}
	write(t, filepath.Join(dir, "f"), "two", 0o600)
	if sum() == second {
		t.Error("a content change kept the digest")
	}
}
