package imageresource

import (
	"archive/tar"
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

func write(t *testing.T, dir, name, content string, mode os.FileMode) {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, mode); err != nil {
		t.Fatal(err)
	}
}

func TestContextDigestFollowsContentNotTimes(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "Dockerfile", "FROM scratch\n", 0o644)
	write(t, dir, "app/main.sh", "echo hi\n", 0o755)
	write(t, dir, "cache/big.bin", "ignored", 0o644)
	write(t, dir, ".dockerignore", "cache\nDockerfile\n", 0o644)
	inputs := buildInputs{dockerfile: "Dockerfile", args: map[string]string{"A": "1"}}
	sum := func() string {
		t.Helper()
		files, err := walkContext(dir, "Dockerfile")
		if err != nil {
			t.Fatal(err)
		}
		d, err := digest(dir, files, inputs)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	files, _ := walkContext(dir, "Dockerfile")
	var names []string
	for _, f := range files {
		names = append(names, f.Rel)
	}
	if want := []string{".dockerignore", "Dockerfile", "app", "app/main.sh"}; !slices.Equal(names, want) {
		t.Errorf("sent %v, want %v (the Dockerfile despite .dockerignore, not cache/)", names, want)
	}

	first := sum()
	later := time.Now().Add(time.Hour)
	_ = os.Chtimes(filepath.Join(dir, "app/main.sh"), later, later)
	write(t, dir, "cache/big.bin", "changed", 0o644)
	if sum() != first {
		t.Error("a touched file or an ignored one changed the digest")
	}
	for _, change := range []func(){
		func() { write(t, dir, "app/main.sh", "echo bye\n", 0o755) },
		func() { write(t, dir, "app/main.sh", "echo bye\n", 0o644) },
		func() { write(t, dir, "app/new.txt", "", 0o644) },
		func() { inputs.args["A"] = "2" },
		func() { inputs.target = "tools" },
	} {
		before := sum()
		change()
		if sum() == before {
			t.Error("a change to the context or the inputs left the digest as it was")
		}
	}
}

func TestContextTarIsTheWalkedFiles(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "Dockerfile", "FROM scratch\n", 0o644)
	write(t, dir, "bin/run", "#!/bin/sh\n", 0o755)
	if err := os.Symlink("bin/run", filepath.Join(dir, "run")); err != nil {
		t.Fatal(err)
	}
	files, err := walkContext(dir, "Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := writeTar(&buf, dir, files); err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(&buf)
	got := map[string]string{}
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(tr)
		got[hdr.Name] = strings.Join([]string{string(rune(hdr.Typeflag)), hdr.FileInfo().Mode().Perm().String(), hdr.Linkname, string(body)}, "|")
		if !hdr.ModTime.Equal(time.Unix(0, 0)) || hdr.Uid != 0 {
			t.Errorf("%s: time %v, uid %d", hdr.Name, hdr.ModTime, hdr.Uid)
		}
	}
	want := map[string]string{
		"Dockerfile": "0|-rw-r--r--||FROM scratch\n",
		"bin/":       "5|-rwxr-xr-x||",
		"bin/run":    "0|-rwxr-xr-x||#!/bin/sh\n",
		"run":        "2|-rwxrwxrwx|bin/run|",
	}
	for name, w := range want {
		if got[name] != w {
			t.Errorf("%s: %q, want %q", name, got[name], w)
		}
	}
}

func TestContextErrorsSayWhatIsWrong(t *testing.T) {
	dir := t.TempDir()
	if _, err := walkContext(filepath.Join(dir, "missing"), "Dockerfile"); err == nil || !strings.Contains(err.Error(), "cannot be read") {
		t.Errorf("a missing context: %v", err)
	}
	if _, err := walkContext(dir, "Dockerfile"); err == nil || !strings.Contains(err.Error(), "set dockerfile") {
		t.Errorf("a context without Dockerfile: %v", err)
	}
}

// The plan digests the context only when every input is known, elements
// of build_args and labels included.
func TestFullyKnown(t *testing.T) {
	ctx := context.Background()
	known := types.MapValueMust(types.StringType, map[string]attr.Value{"A": types.StringValue("1")})
	partly := types.MapValueMust(types.StringType, map[string]attr.Value{"A": types.StringUnknown()})
	if !fullyKnown(ctx, types.StringValue("dir"), known, types.StringNull()) {
		t.Error("known values read as unknown")
	}
	if fullyKnown(ctx, types.StringValue("dir"), partly) || fullyKnown(ctx, types.StringUnknown()) {
		t.Error("an unknown value, or an unknown element, read as known")
	}
}

// A context that is a symlink to a directory is the directory it points
// to: the same files, the same digest.
func TestContextThroughASymlinkIsTheDirectory(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "Dockerfile", "FROM scratch\nCOPY a.txt /\n", 0o644)
	write(t, dir, "a.txt", "a\n", 0o644)
	link := filepath.Join(t.TempDir(), "context")
	if err := os.Symlink(dir, link); err != nil {
		t.Fatal(err)
	}
	inputs := buildInputs{dockerfile: "Dockerfile"}
	sumOf := func(d string) (string, int) {
		files, err := walkContext(d, "Dockerfile")
		if err != nil {
			t.Fatal(err)
		}
		sum, err := digest(d, files, inputs)
		if err != nil {
			t.Fatal(err)
		}
		return sum, len(files)
	}
	want, n := sumOf(dir)
	if got, m := sumOf(link); got != want || m != n || n != 2 {
		t.Errorf("through the symlink: %d files, digest %s; the directory: %d files, digest %s", m, got, n, want)
	}
}
