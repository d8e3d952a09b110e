package acctest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
)

// CLI runs the real terraform CLI against the provider binary built from
// this tree, through dev_overrides, as a user would: no init, no registry.
// It shows what the test harness cannot, such as the plan as printed.
type CLI struct {
	t   *testing.T
	Dir string
	bin string
	Env []string
}

// NewCLI prepares a working directory with config, for the terraform on
// TF_ACC_TERRAFORM_PATH or PATH. It skips without TF_ACC, and fails when
// the engine or the test image is missing.
func NewCLI(t *testing.T, config string) *CLI {
	t.Helper()
	RequireAcc(t)
	PreCheck(t)
	bin := terraformBinary(t)
	pluginDir, err := providerDir()
	if err != nil {
		t.Fatal(err)
	}
	workDir := t.TempDir()
	cliConfig := filepath.Join(workDir, "dev.tfrc")
	Write(t, cliConfig, fmt.Sprintf(`provider_installation {
  dev_overrides {
    "tfsandbox/sandbox" = %q
  }
  direct {}
}
`, pluginDir))
	env := append(os.Environ(), "TF_CLI_CONFIG_FILE="+cliConfig, "TF_IN_AUTOMATION=1", "CHECKPOINT_DISABLE=1")
	c := &CLI{t: t, Dir: workDir, bin: bin, Env: env}
	c.SetConfig(config)
	return c
}

// SetConfig replaces the working directory's configuration with config,
// under the provider requirement every configuration here starts with.
func (c *CLI) SetConfig(config string) {
	c.t.Helper()
	Write(c.t, filepath.Join(c.Dir, "main.tf"), `terraform {
  required_providers {
    sandbox = { source = "tfsandbox/sandbox" }
  }
}
`+config)
}

// Run runs terraform with args and returns its combined output, failing the
// test when it exits non-zero.
func (c *CLI) Run(args ...string) string {
	c.t.Helper()
	return c.Exact(append(args, "-no-color", "-input=false")...)
}

// Exact runs terraform with exactly args, for commands that take neither
// -no-color nor -input (terraform state ...), as Run does.
func (c *CLI) Exact(args ...string) string {
	c.t.Helper()
	out, err := c.Try(args...)
	if err != nil {
		c.t.Fatalf("terraform %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

// Try runs terraform with exactly args, as Exact does, and returns its
// output and error rather than failing the test.
func (c *CLI) Try(args ...string) (string, error) {
	cmd := exec.Command(c.bin, args...)
	cmd.Dir, cmd.Env = c.Dir, c.Env
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.String(), err
}

// Query writes lists (list blocks) into the working directory's query
// file and runs terraform query -generate-config-out, returning the
// configuration it generated and what it printed; it fails the test when
// the query fails or writes none.
func (c *CLI) Query(lists string) (generated, out string) {
	c.t.Helper()
	Write(c.t, filepath.Join(c.Dir, "find.tfquery.hcl"), lists)
	out = c.Exact("query", "-generate-config-out=generated.tf", "-no-color")
	file, err := os.ReadFile(filepath.Join(c.Dir, "generated.tf"))
	if err != nil {
		c.t.Fatalf("terraform query wrote no configuration: %v\n%s", err, out)
	}
	return string(file), out
}

// Running is a terraform command started in the background.
type Running struct {
	Cmd *exec.Cmd
	out *lockedBuffer
	err chan error
}

// Start starts terraform with args without waiting for it.
func (c *CLI) Start(args ...string) *Running {
	c.t.Helper()
	cmd := exec.Command(c.bin, append(args, "-no-color", "-input=false")...)
	cmd.Dir, cmd.Env = c.Dir, c.Env
	out := &lockedBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		c.t.Fatalf("starting terraform %s: %v", strings.Join(args, " "), err)
	}
	r := &Running{Cmd: cmd, out: out, err: make(chan error, 1)}
	go func() { r.err <- cmd.Wait() }()
	return r
}

// WaitFor waits until the output contains s, failing the test when the
// command ends or timeout passes first.
func (r *Running) WaitFor(t *testing.T, s string, timeout time.Duration) {
	t.Helper()
	r.WaitForCount(t, s, 1, timeout)
}

// WaitForCount waits until the output contains s n times, as WaitFor
// waits for once.
func (r *Running) WaitForCount(t *testing.T, s string, n int, timeout time.Duration) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for strings.Count(r.out.String(), s) < n {
		select {
		case err := <-r.err:
			r.err <- err
			t.Fatalf("terraform ended (%v) before printing %q:\n%s", err, s, r.out.String())
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("terraform did not print %q within %s:\n%s", s, timeout, r.out.String())
		}
	}
}

// Wait waits for the command to end and returns its error and output.
func (r *Running) Wait(timeout time.Duration) (string, error) {
	select {
	case err := <-r.err:
		return r.out.String(), err
	case <-time.After(timeout):
		_ = r.Cmd.Process.Kill()
		return r.out.String(), fmt.Errorf("terraform did not end within %s", timeout)
	}
}

type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// StateIDs returns the id of every resource in the working directory's
// state, by address; none when there is no state.
func (c *CLI) StateIDs() map[string]string {
	c.t.Helper()
	var shown struct {
		Values struct {
			RootModule struct {
				Resources []struct {
					Address string         `json:"address"`
					Values  map[string]any `json:"values"`
				} `json:"resources"`
			} `json:"root_module"`
		} `json:"values"`
	}
	cmd := exec.Command(c.bin, "show", "-json", "-no-color")
	cmd.Dir, cmd.Env = c.Dir, c.Env
	out, err := cmd.Output()
	if err == nil {
		err = json.Unmarshal(out, &shown)
	}
	if err != nil {
		c.t.Fatalf("terraform show -json: %v\n%s", err, out)
	}
	ids := map[string]string{}
	for _, r := range shown.Values.RootModule.Resources {
		id, _ := r.Values["id"].(string)
		ids[r.Address] = id
	}
	return ids
}

// pendingCreate starts the ID a sandbox_container records, tainted, for a
// cut-off create it could not undo, with the create's token after it
// (containerresource/pending.go): the next apply replaces that container.
const pendingCreate = "pending-create:"

// ExpectOnlyStateContainers fails the test when a container named prefix*
// is not in the working directory's state, by its ID or, for a cut-off
// create recorded tainted, by its create token; and returns the IDs of
// those that are.
func (c *CLI) ExpectOnlyStateContainers(prefix string) []string {
	c.t.Helper()
	inState := map[string]bool{}
	for _, id := range c.StateIDs() {
		inState[id] = true
	}
	var ids []string
	for _, ctr := range ContainersNamed(c.t, prefix) {
		if token := ctr.Labels[engine.LabelCreateToken]; token != "" && inState[pendingCreate+token] {
			c.t.Logf("container %s (%v) is in the state as a cut-off create, tainted", ctr.ID, ctr.Names)
		} else if !inState[ctr.ID] {
			c.t.Fatalf("container %s (%v) is on the engine but not in the state", ctr.ID, ctr.Names)
		}
		ids = append(ids, ctr.ID)
	}
	return ids
}

// WaitForProviderExit waits for every provider process of the CLI tests to
// end, failing when one outlives terraform by more than timeout.
func WaitForProviderExit(t *testing.T, timeout time.Duration) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for len(ProviderProcesses()) > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("the provider (pids %v) outlived terraform by more than %s", ProviderProcesses(), timeout)
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// Flatten undoes the CLI's line wrapping of diagnostics.
func Flatten(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// Write writes a file for a test, with its missing directories, failing
// it when it cannot.
func Write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

// ModuleRoot is the directory of this module's go.mod, for tests that run
// its Makefile or read its files.
func ModuleRoot(t *testing.T) string {
	t.Helper()
	dir, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// TofuPath is the OpenTofu CLI the suite also runs under: SANDBOX_TOFU_PATH,
// which `make testacc` sets after building it with `make tofu`.
func TofuPath(t *testing.T) string {
	t.Helper()
	path := os.Getenv("SANDBOX_TOFU_PATH")
	if path == "" {
		t.Fatal("SANDBOX_TOFU_PATH is not set: build OpenTofu with `make tofu` and run the suite through " +
			"`make testacc`, which sets it")
	}
	if _, err := os.Stat(path); err != nil && os.Getenv("SANDBOX_AWAIT_BUILDS") == "1" {
		// .ci/run builds OpenTofu beside the passes that do not need it;
		// the OpenTofu pass, which waits for it, runs this test with it.
		t.Skipf("OpenTofu (%s) is still being built beside this pass; the OpenTofu pass runs this with it", path)
	}
	return path
}
