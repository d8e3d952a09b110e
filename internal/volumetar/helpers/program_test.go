package helpers

import (
	"archive/tar"
	"bytes"
	"debug/elf"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/volumetar"
)

var (
	linuxAMD64  = Platform{OS: "linux", Arch: "amd64"}
	linuxARM64  = Platform{OS: "linux", Arch: "arm64"}
	darwinARM64 = Platform{OS: "darwin", Arch: "arm64"}
	windowsAMD  = Platform{OS: "windows", Arch: "amd64"}
	released    = []string{"386", "amd64", "arm", "arm64"}
)

// The helper a provider copies into a Linux helper is chosen by the
// engine's platform, never by the provider's own: the embedded build for
// the engine's architecture first, the provider's own executable only
// where it is a static build of the engine's platform, and otherwise a
// refusal that says why and what to build.
func TestChooseHelper(t *testing.T) {
	dynamic := errors.New("linked dynamically")
	for _, tc := range []struct {
		name         string
		target, self Platform
		selfStatic   error
		embedded     []string
		want         use
		wantErr      string
	}{
		{"macOS provider, amd64 engine, release", linuxAMD64, darwinARM64, nil, released, useEmbedded, ""},
		{"Windows provider, arm64 engine, release", linuxARM64, windowsAMD, nil, released, useEmbedded, ""},
		{"Linux cgo build, same engine, release", linuxAMD64, linuxAMD64, dynamic, released, useEmbedded, ""},
		{"Linux provider, other arch engine, release", linuxARM64, linuxAMD64, nil, released, useEmbedded, ""},
		{"same platform: the embedded one still", linuxAMD64, linuxAMD64, nil, released, useEmbedded, ""},
		{"go build, same platform, static", linuxAMD64, linuxAMD64, nil, nil, useSelf, ""},
		{"go build with cgo", linuxAMD64, linuxAMD64, dynamic, nil, 0, "linked dynamically (built with cgo)"},
		{"go build on macOS", linuxAMD64, darwinARM64, nil, nil, 0, "its own executable is a darwin/arm64 build"},
		{"go build, other arch engine", linuxARM64, linuxAMD64, nil, nil, 0, "is a linux/amd64 build"},
		{"an engine's arch no release holds", Platform{"linux", "s390x"}, linuxAMD64, nil, released, 0,
			"no helper program for linux/s390x"},
		{"a Windows node", windowsAMD, windowsAMD, nil, released, 0, "the helper runs only on Linux"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := choose(tc.target, tc.self, tc.selfStatic, tc.embedded)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("choose = %v, %v; want an error with %q", got, err, tc.wantErr)
				}
				// The refusal names the fix.
				if !strings.Contains(err.Error(), "make build") || !strings.Contains(err.Error(), "release build") {
					t.Errorf("the refusal names no fix: %v", err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("choose = %v, %v; want %v", got, err, tc.want)
			}
		})
	}
}

// The helper program does not import this package: a program that
// embedded the programs built before it would differ at every build, and
// so would every provider that embeds it (a lock file's checksum would
// change between two `make install`s).
func TestTheHelperDoesNotEmbedItself(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "../cmd/volume-tar").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	if strings.Contains(string(out), "internal/volumetar/helpers") {
		t.Fatalf("the helper program imports the package that embeds it:\n%s", out)
	}
}

// Engines and nodes name architectures their own way.
func TestEngineArch(t *testing.T) {
	for name, want := range map[string]string{"x86_64": "amd64", "amd64": "amd64", "aarch64": "arm64",
		"arm64": "arm64", "armv7l": "arm", "i686": "386", "s390x": "s390x", "PPC64LE": "ppc64le"} {
		if got := EngineArch(name); got != want {
			t.Errorf("EngineArch(%q) = %q, want %q", name, got, want)
		}
	}
}

// What `make helpers` embeds (as `make test`, `make build` and the release
// do) is a static Linux program for every architecture the release names,
// each for its own machine, and the host's reads a tree.
func TestEmbeddedHelpers(t *testing.T) {
	got := embeddedArches()
	slices.Sort(got)
	if !slices.Equal(got, released) {
		t.Fatalf("embedded helpers for %v, want %v: run `make helpers`", got, released)
	}
	machines := map[string]elf.Machine{"amd64": elf.EM_X86_64, "arm64": elf.EM_AARCH64, "arm": elf.EM_ARM,
		"386": elf.EM_386}
	for _, arch := range got {
		f, size, err := openEmbedded(arch)
		if err != nil {
			t.Fatal(err)
		}
		data, err := io.ReadAll(f)
		_ = f.Close()
		if err != nil || int64(len(data)) != size {
			t.Fatalf("reading linux/%s: %d of %d bytes, %v", arch, len(data), size, err)
		}
		e, err := elf.NewFile(bytes.NewReader(data))
		if err != nil {
			t.Fatalf("linux/%s: %v", arch, err)
		}
		if e.Machine != machines[arch] || e.OSABI != elf.ELFOSABI_NONE && e.OSABI != elf.ELFOSABI_LINUX {
			t.Errorf("linux/%s is for %v (%v)", arch, e.Machine, e.OSABI)
		}
		for _, p := range e.Progs {
			if p.Type == elf.PT_INTERP {
				t.Errorf("linux/%s is linked dynamically", arch)
			}
		}
	}
	if runtime.GOOS != "linux" {
		return
	}
	h, err := HelperFor(Self())
	if err != nil || !strings.Contains(h.Source, "embedded") {
		t.Fatalf("HelperFor(%v) = %+v, %v; want the embedded one", Self(), h, err)
	}
	dir := t.TempDir()
	rc, err := h.Tar("volume-tar")
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(rc)
	hdr, err := tr.Next()
	if err != nil || hdr.Name != "volume-tar" || hdr.Mode != 0o755 {
		t.Fatalf("the helper's tar: %+v, %v", hdr, err)
	}
	program := filepath.Join(dir, "volume-tar")
	out, err := os.OpenFile(program, os.O_CREATE|os.O_WRONLY, 0o755)
	if err == nil {
		_, err = io.Copy(out, tr)
		err = errors.Join(err, out.Close(), rc.Close())
	}
	if err != nil {
		t.Fatal(err)
	}
	tree := filepath.Join(dir, "tree")
	if err := os.MkdirAll(filepath.Join(tree, "a"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(tree, "a", "f"), []byte("hello"), 0o644); err != nil {
		t.Fatal(err)
	}
	archive, err := exec.Command(program, volumetar.Command, tree, "seed").Output()
	if err != nil {
		t.Fatalf("the embedded helper: %v", err)
	}
	var names []string
	for tr := tar.NewReader(bytes.NewReader(archive)); ; {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, hdr.Name)
	}
	if want := []string{"seed/", "seed/a/", "seed/a/f"}; !slices.Equal(names, want) {
		t.Errorf("the embedded helper wrote %v, want %v", names, want)
	}
}
