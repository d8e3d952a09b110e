package acctest

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
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

var built struct {
	once sync.Once
	dir  string
	err  error
}

// providerDir builds the provider once per test run and returns the
// directory that holds it.
func providerDir() (string, error) {
	built.once.Do(func() {
		root, err := moduleRoot()
		if err != nil {
			built.err = err
			return
		}
		if built.dir, built.err = os.MkdirTemp("", "tfsandbox-provider-"); built.err != nil {
			return
		}
		build := exec.Command("go", "build", "-o", filepath.Join(built.dir, "terraform-provider-sandbox"), ".")
		build.Dir = root
		if out, err := build.CombinedOutput(); err != nil {
			built.err = fmt.Errorf("building the provider: %w\n%s", err, out)
		}
	})
	return built.dir, built.err
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

// NewCLI prepares a working directory with config, for the terraform on
// TF_ACC_TERRAFORM_PATH or PATH. It skips without TF_ACC, and fails when
// the engine or the test image is missing.
func NewCLI(t *testing.T, config string) *CLI {
	t.Helper()
	RequireAcc(t)
	PreCheck(t)
	bin := os.Getenv("TF_ACC_TERRAFORM_PATH")
	if bin == "" {
		var err error
		if bin, err = exec.LookPath("terraform"); err != nil {
			t.Fatal("terraform is not on PATH and TF_ACC_TERRAFORM_PATH is not set")
		}
	}
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
	Write(t, filepath.Join(workDir, "main.tf"), `terraform {
  required_providers {
    sandbox = { source = "tfsandbox/sandbox" }
  }
}
`+config)
	env := append(os.Environ(), "TF_CLI_CONFIG_FILE="+cliConfig, "TF_IN_AUTOMATION=1", "CHECKPOINT_DISABLE=1")
	return &CLI{t: t, Dir: workDir, bin: bin, Env: env}
}

// Run runs terraform with args and returns its combined output, failing the
// test when it exits non-zero.
func (c *CLI) Run(args ...string) string {
	c.t.Helper()
	cmd := exec.Command(c.bin, append(args, "-no-color", "-input=false")...)
	cmd.Dir, cmd.Env = c.Dir, c.Env
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		c.t.Fatalf("terraform %s: %v\n%s", strings.Join(args, " "), err, out.String())
	}
	return out.String()
}

// Flatten undoes the CLI's line wrapping of diagnostics.
func Flatten(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// Write writes a file for a test, failing it when it cannot.
func Write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}
