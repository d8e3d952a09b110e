package provider_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/acctest"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/isolation"
)

// `make install` puts the provider into the implicit local mirror of both
// CLIs: a configuration with only required_providers and a
// sandbox_container then runs `init` offline, without dev_overrides or any
// CLI configuration, writes a lock file, and applies; with Terraform and
// with OpenTofu. The CLIs report the version of CHANGELOG.md's top entry.
func TestAccInstall_initFromTheLocalMirror(t *testing.T) {
	acctest.RequireAcc(t)
	acctest.PreCheck(t)
	root := acctest.ModuleRoot(t)
	home := t.TempDir()
	version := strings.TrimSpace(run(t, root, nil, "scripts/version.sh"))
	// The Makefile's defaults: HOME's implicit mirror, CHANGELOG's version;
	// Go keeps its caches where they were.
	goEnv := strings.Fields(run(t, root, nil, "go", "env", "GOCACHE", "GOMODCACHE", "GOPATH"))
	run(t, root, []string{"HOME=" + home, "GOCACHE=" + goEnv[0], "GOMODCACHE=" + goEnv[1], "GOPATH=" + goEnv[2]},
		"make", "--no-print-directory", "install")

	// The pass under OpenTofu sets TF_ACC_TERRAFORM_PATH to tofu; this test
	// runs both CLIs in every pass.
	terraform := os.Getenv("SANDBOX_TERRAFORM_PATH")
	if terraform == "" {
		terraform = os.Getenv("TF_ACC_TERRAFORM_PATH")
	}
	if out := run(t, root, nil, terraform, "version"); !strings.Contains(out, "Terraform v") {
		t.Fatalf("%s is not Terraform (set SANDBOX_TERRAFORM_PATH): %s", terraform, out)
	}
	for _, cli := range []struct {
		name string
		path func(*testing.T) string
		host string
	}{
		{"terraform", func(*testing.T) string { return terraform }, "registry.terraform.io"},
		{"tofu", acctest.TofuPath, "registry.opentofu.org"},
	} {
		t.Run(cli.name, func(t *testing.T) {
			path := cli.path(t)
			name := acctest.Name(t)
			dir := t.TempDir()
			major, minor, _ := strings.Cut(version, ".")
			minor, _, _ = strings.Cut(minor, ".")
			acctest.Write(t, filepath.Join(dir, "main.tf"), fmt.Sprintf(`terraform {
  required_providers {
    sandbox = {
      source  = "tfsandbox/sandbox"
      version = "~> %s.%s"
    }
  }
}

resource "sandbox_container" "agent" {
  name         = %q
  image        = %q
  network_mode = "none"
}
`, major, minor, name, acctest.TestImage))
			env := []string{"HOME=" + home, "TF_CLI_CONFIG_FILE=", "TF_PLUGIN_CACHE_DIR=", "TF_IN_AUTOMATION=1",
				"CHECKPOINT_DISABLE=1"}
			tf := func(args ...string) string { return run(t, dir, env, path, append(args, "-no-color")...) }

			init := tf("init", "-input=false")
			if !strings.Contains(init, "Installing tfsandbox/sandbox v"+version) || strings.Contains(init, "overrides") {
				t.Fatalf("%s init did not install v%s from the local mirror:\n%s", cli.name, version, init)
			}
			lock, err := os.ReadFile(filepath.Join(dir, ".terraform.lock.hcl"))
			if err != nil {
				t.Fatalf("%s init wrote no lock file: %v", cli.name, err)
			}
			want := regexp.MustCompile(`(?s)provider "` + regexp.QuoteMeta(cli.host) + `/tfsandbox/sandbox" \{\s+version\s+= "` +
				regexp.QuoteMeta(version) + `".*"h1:`)
			if !want.Match(lock) {
				t.Fatalf("the lock file does not pin %s/tfsandbox/sandbox %s with a hash:\n%s", cli.host, version, lock)
			}
			if out := tf("version"); !strings.Contains(out, cli.host+"/tfsandbox/sandbox v"+version) {
				t.Errorf("%s version does not list the provider at v%s:\n%s", cli.name, version, out)
			}
			defer tf("destroy", "-auto-approve", "-input=false")
			tf("apply", "-auto-approve", "-input=false")
			if v := isolation.Assess(acctest.Inspect(t, name).Network); !v.Isolated {
				t.Errorf("the sandbox is not isolated: %s", v.Reason)
			}
			if plan := tf("plan", "-input=false", "-detailed-exitcode"); !strings.Contains(plan, "No changes") {
				t.Errorf("a second plan is not empty:\n%s", plan)
			}
		})
	}
}

// run runs a command in dir with env added to the test's (less any MIRROR
// or VERSION, which would override the Makefile's defaults), and returns
// its combined output, failing the test when it fails.
func run(t *testing.T, dir string, env []string, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	for _, kv := range os.Environ() {
		if key, _, _ := strings.Cut(kv, "="); key != "MIRROR" && key != "VERSION" {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Dir, cmd.Env = dir, append(cmd.Env, env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return string(out)
}
