package volumeresource_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/compare"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/acctest"
)

// seedSource writes a directory to seed a volume from: nested files, a
// private file (0600, as acctest.Write makes them), an executable, a
// symbolic link, and a secret its .dockerignore excludes, as it excludes
// itself.
func seedSource(t *testing.T) string {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "src", "pkg"), 0o755); err != nil {
		t.Fatal(err)
	}
	acctest.Write(t, filepath.Join(dir, "README.md"), "task: fix the bug\n")
	acctest.Write(t, filepath.Join(dir, "src", "pkg", "main.go"), "package main\n")
	acctest.Write(t, filepath.Join(dir, ".env"), "TOKEN=never-copied\n")
	acctest.Write(t, filepath.Join(dir, ".dockerignore"), ".env\n.dockerignore\n")
	acctest.Write(t, filepath.Join(dir, "run.sh"), "#!/bin/sh\necho ran\n")
	if err := os.Chmod(filepath.Join(dir, "run.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("src/pkg/main.go", filepath.Join(dir, "main.go")); err != nil {
		t.Fatal(err)
	}
	return dir
}

// seededConfig is a volume seeded from source as nobody, and a sandbox
// running as nobody that mounts it.
func seededConfig(name, source, reseed string) string {
	return fmt.Sprintf(`
resource "sandbox_volume" "test" {
  name   = %[1]q
  source = %[2]q
  owner  = "65534:65534"
  reseed = %[3]q
}

resource "sandbox_container" "test" {
  name         = %[1]q
  image        = %[4]q
  network_mode = "none"
  user         = "65534:65534"
  cap_drop     = ["ALL"]
  read_only    = true
  mounts       = { "/workspace" = { volume = sandbox_volume.test.name } }
}
`, name, source, reseed, acctest.TestImage)
}

const sandboxAddr = "sandbox_container.test"

// inside runs a shell command in the sandbox and compares its output.
func inside(t *testing.T, script, want string) statecheck.StateCheck {
	return acctest.ExpectInside(t, sandboxAddr, func(ctx context.Context, id string) error {
		got, err := acctest.ExecOK(ctx, t, id, "sh", "-c", script)
		if err != nil {
			return err
		}
		if got != want {
			return fmt.Errorf("%s gave:\n%s\nwant:\n%s", script, got, want)
		}
		return nil
	})
}

// A volume is seeded from a local directory as its owner: paths, modes and
// links kept, .dockerignore applied, writable by a sandbox running as that
// owner. A change to the source changes source_digest and is not copied in
// (the agent's work stays); changing reseed copies it in, over the files of
// the same paths only.
func TestAccVolume_seededFromSource(t *testing.T) {
	name := acctest.Name(t)
	source := seedSource(t)
	listing := `cd /workspace && find . | sort && stat -c '%n %a %u:%g' . run.sh README.md src && readlink main.go`
	digests := statecheck.CompareValue(compare.ValuesDiffer())
	acctest.Test(t, []resource.TestStep{
		{
			Config: seededConfig(name, source, "0"),
			ConfigStateChecks: []statecheck.StateCheck{
				inside(t, listing, ".\n./README.md\n./main.go\n./run.sh\n./src\n./src/pkg\n./src/pkg/main.go\n"+
					". 755 65534:65534\nrun.sh 755 65534:65534\nREADME.md 600 65534:65534\nsrc 755 65534:65534\nsrc/pkg/main.go\n"),
				inside(t, "/workspace/run.sh && echo agent work > /workspace/notes && cat /workspace/main.go", "ran\npackage main\n"),
				digests.AddStateValue(addr, tfjsonpath.New("source_digest")),
				statecheck.CompareValuePairs(addr, tfjsonpath.New("source_digest"), addr, tfjsonpath.New("seeded_digest"), compare.ValuesSame()),
			},
		},
		{
			PreConfig: func() { acctest.Write(t, filepath.Join(source, "README.md"), "task: a new task\n") },
			Config:    seededConfig(name, source, "0"),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
				plancheck.ExpectResourceAction(sandboxAddr, plancheck.ResourceActionNoop),
			}},
			ConfigStateChecks: []statecheck.StateCheck{
				inside(t, "cat /workspace/README.md /workspace/notes", "task: fix the bug\nagent work\n"),
				digests.AddStateValue(addr, tfjsonpath.New("source_digest")),
			},
		},
		{
			Config: seededConfig(name, source, "1"),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
			}},
			ConfigStateChecks: []statecheck.StateCheck{
				inside(t, "cat /workspace/README.md /workspace/notes", "task: a new task\nagent work\n"),
				statecheck.CompareValuePairs(addr, tfjsonpath.New("source_digest"), addr, tfjsonpath.New("seeded_digest"), compare.ValuesSame()),
			},
		},
		{
			Config:           seededConfig(name, source, "1"),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
			// Each seeding removed its helper, on every engine.
			Check: helpersLeft(t, name),
		},
	})
}

// The plan of a volume whose source changed says it is not reseeded and
// how to reseed it.
func TestAccVolume_changedSourceWarnsNotReseeded(t *testing.T) {
	acctest.RequireAcc(t)
	name := acctest.Name(t)
	source := seedSource(t)
	cli := acctest.NewCLI(t, seededConfig(name, source, "0"))
	cli.Run("apply", "-auto-approve")
	acctest.Write(t, filepath.Join(source, "src", "new.go"), "package main\n")
	out := acctest.Flatten(cli.Run("plan"))
	for _, want := range []string{"Volume not reseeded", "keeps what the sandboxes wrote", "change reseed", "1 to change"} {
		if !acctest.Phrase(want).MatchString(out) {
			t.Errorf("the plan does not say %q:\n%s", want, out)
		}
	}
	cli.Run("destroy", "-auto-approve")
}

// A source that is not a readable directory fails the plan on source.
func TestAccVolume_badSourceRefusedAtPlan(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	acctest.Write(t, file, "x")
	cases := []struct{ source, want string }{
		{filepath.Join(t.TempDir(), "missing"), `Cannot read the source.*cannot be read`},
		{file, `Cannot read the source.*is not a directory`},
	}
	var steps []resource.TestStep
	for _, c := range cases {
		steps = append(steps, resource.TestStep{
			Config: config("tfacc-badsource", fmt.Sprintf("  source = %q", c.source)), PlanOnly: true,
			ExpectError: regexp.MustCompile(`(?s)` + strings.ReplaceAll(c.want, " ", `\s+`)),
		})
	}
	steps = append(steps, resource.TestStep{
		Config: config("tfacc-badsource", `  owner = "nobody"`), PlanOnly: true,
		ExpectError: regexp.MustCompile(`(?s)` + `must be a numeric uid and gid`),
	})
	acctest.Test(t, steps)
}
