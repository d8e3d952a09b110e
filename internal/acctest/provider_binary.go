package acctest

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
)

// The provider binary the CLI tests run through dev_overrides.

var built struct {
	once sync.Once
	dir  string
	err  error
}

// providerDir builds the provider once per test run and returns the
// directory that holds it. Where SANDBOX_TEST_PROVIDER names a build of
// this tree (scripts/testacc.sh builds one for every pass), it copies that
// instead: each test binary has a binary of its own, whose processes are
// its own (ProviderProcesses).
func providerDir() (string, error) {
	built.once.Do(func() {
		if built.dir, built.err = os.MkdirTemp("", "tfsandbox-provider-"); built.err != nil {
			return
		}
		bin := filepath.Join(built.dir, "terraform-provider-sandbox")
		if prebuilt := os.Getenv("SANDBOX_TEST_PROVIDER"); prebuilt != "" {
			if err := copyExecutable(prebuilt, bin); err != nil {
				built.err = fmt.Errorf("SANDBOX_TEST_PROVIDER: %w", err)
			}
			return
		}
		root, err := moduleRoot()
		if err != nil {
			built.err = err
			return
		}
		build := exec.Command("go", "build", "-o", bin, ".")
		// Static, as a release build, and as every other build of the run
		// (nothing compiles twice); it embeds the helper programs `make
		// helpers` built (scripts/testacc.sh makes them first).
		build.Dir, build.Env = root, append(os.Environ(), "CGO_ENABLED=0")
		if out, err := build.CombinedOutput(); err != nil {
			built.err = fmt.Errorf("building the provider: %w\n%s", err, out)
		}
	})
	return built.dir, built.err
}

// copyExecutable copies the program at from to a new file to.
func copyExecutable(from, to string) error {
	src, err := os.Open(from)
	if err != nil {
		return err
	}
	defer func() { _ = src.Close() }()
	dst, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(dst, src); err != nil {
		_ = dst.Close()
		return err
	}
	return dst.Close()
}

func removeBuiltProvider() {
	if built.dir != "" {
		_ = os.RemoveAll(built.dir)
	}
}

// moduleRoot is the directory of this module's go.mod, found upwards from
// the test's working directory.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod above the test's directory")
		}
		dir = parent
	}
}

// ProviderProcesses lists the running processes of the provider binary the
// CLI tests use.
func ProviderProcesses() []int {
	if built.dir == "" {
		return nil
	}
	bin := filepath.Join(built.dir, "terraform-provider-sandbox")
	var pids []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if exe, err := os.Readlink(filepath.Join("/proc", e.Name(), "exe")); err == nil && exe == bin {
			pids = append(pids, pid)
		}
	}
	return pids
}
