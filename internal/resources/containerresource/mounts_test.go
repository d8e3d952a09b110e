package containerresource_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/client"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/acctest"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
)

// workspace is a hardened, network-less sandbox of a given image revision
// and runtime (a runtime = line, or none), running as nobody with a volume mounted at /workspace. With
// sandbox false the configuration holds the volume and the image only; with
// other set, a second sandbox "other" mounts the volume.
type workspace struct {
	name, context    string
	revision         int
	runtime          string
	sandbox, another bool
}

func (w workspace) config() string {
	config := fmt.Sprintf(`
resource "sandbox_volume" "work" {
  name  = %[1]q
  owner = "65534:65534"
}

resource "sandbox_image" "agent" {
  name    = "%[1]s:latest"
  context = %[2]q
  labels  = { revision = "%[3]d" }
}
`, w.name, w.context, w.revision)
	sandbox := func(resourceName, name string) string {
		return fmt.Sprintf(`
resource "sandbox_container" %[1]q {
  name              = %[2]q
  image             = sandbox_image.agent.image_id
  network_mode      = "none"
  user              = "65534:65534"
  read_only         = true
  cap_drop          = ["ALL"]
  no_new_privileges = true
  %[3]s
  mounts = {
    "/workspace" = { volume = sandbox_volume.work.name }
  }
}
`, resourceName, name, w.runtime)
	}
	if w.sandbox {
		config += sandbox("test", w.name)
	}
	if w.another {
		config += sandbox("other", w.name+"-other")
	}
	return config
}

// agentImage writes a build context whose image has a /workspace of its
// own, owned by root: the volume mounted there is not copied from it.
func agentImage(t *testing.T) string {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "workspace"), 0o755); err != nil {
		t.Fatal(err)
	}
	acctest.Write(t, filepath.Join(dir, "workspace", "from-the-image"), "")
	acctest.Write(t, filepath.Join(dir, "Dockerfile"), fmt.Sprintf("FROM %s\nCOPY workspace/ /workspace/\n", acctest.TestImage))
	return dir
}

// agentResult is what the agent writes into its workspace: bytes of every
// kind, a newline, a NUL and bytes above 0x7f included; writeResult is the
// printf format that writes it.
const (
	agentResult = "result of step 1\n\x00\x01\xfe\xff done"
	writeResult = `result of step 1\n\000\001\376\377 done`
)

// writesResult writes agentResult into the workspace, as the sandbox's
// user, and reads it back.
func writesResult(t *testing.T, address string) statecheck.StateCheck {
	return acctest.ExpectInside(t, address, func(ctx context.Context, id string) error {
		if _, err := acctest.ExecOK(ctx, t, id, "sh", "-c", `printf "$1" > /workspace/result`, "sh", writeResult); err != nil {
			return fmt.Errorf("the sandbox's user cannot write to its workspace: %w", err)
		}
		if list, err := acctest.ExecOK(ctx, t, id, "ls", "-A", "/workspace"); err != nil || list != "result\n" {
			return fmt.Errorf("the workspace holds %q (%s), want only the result: nothing copied from the image", list, acctest.ErrText(err))
		}
		return keptResult(ctx, t, id)
	})
}

// keepsResult checks that the sandbox at address, isolated, reads the
// bytes written at the start.
func keepsResult(t *testing.T, address string) []statecheck.StateCheck {
	return []statecheck.StateCheck{
		acctest.ExpectIsolated(t, address),
		acctest.ExpectInside(t, address, func(ctx context.Context, id string) error { return keptResult(ctx, t, id) }),
	}
}

func keptResult(ctx context.Context, t *testing.T, id string) error {
	got, err := acctest.ExecOK(ctx, t, id, "cat", "/workspace/result")
	if err != nil {
		return err
	}
	if got != agentResult {
		return fmt.Errorf("the workspace holds %q, want %q", got, agentResult)
	}
	return nil
}

// An agent's work in a mounted volume survives every replacement of its
// sandbox: removal out of band, apply -replace, a rebuilt image, a repaired
// network breach, a runtime change, and a destroy followed by a new sandbox
// mounting the same volume. Each new sandbox is still isolated, hardened
// and running as nobody.
func TestAccContainer_workspaceSurvivesEveryReplacement(t *testing.T) {
	name := acctest.ImageName(t)
	w := workspace{name: name, context: agentImage(t), revision: 1, sandbox: true}
	replaced := plancheck.ExpectResourceAction(addr, plancheck.ResourceActionDestroyBeforeCreate)
	reattached := false
	steps := []resource.TestStep{
		{
			Config: w.config(),
			ConfigStateChecks: []statecheck.StateCheck{
				writesResult(t, addr), acctest.ExpectIsolated(t, addr),
				statecheck.ExpectKnownValue(addr, attr("mounts"), knownvalue.MapExact(map[string]knownvalue.Check{
					"/workspace": knownvalue.ObjectExact(map[string]knownvalue.Check{
						"volume": knownvalue.StringExact(name), "host_path": knownvalue.Null(), "read_only": knownvalue.Null(),
					}),
				})),
			},
		},
		{
			Config:            w.config(),
			ConfigPlanChecks:  resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
			ConfigStateChecks: keepsResult(t, addr),
		},
		{
			// Import reads the mount back as the configuration says it.
			Config: w.config(), ResourceName: addr, ImportState: true, ImportStateVerify: true,
			ImportStateVerifyIgnore: []string{"timeouts"},
		},
		{
			PreConfig: acctest.OutOfBand(t, func(ctx context.Context, api *client.Client) error {
				return api.ContainerRemove(ctx, name, container.RemoveOptions{Force: true})
			}),
			Config: w.config(),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(addr, plancheck.ResourceActionCreate),
			}},
			ConfigStateChecks: keepsResult(t, addr),
		},
		{
			Taint:             []string{addr},
			Config:            w.config(),
			ConfigPlanChecks:  resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{replaced}},
			ConfigStateChecks: keepsResult(t, addr),
		},
	}
	w.revision = 2
	steps = append(steps, resource.TestStep{
		Config:            w.config(),
		ConfigPlanChecks:  resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{replaced}},
		ConfigStateChecks: keepsResult(t, addr),
	}, resource.TestStep{
		// Podman refuses the breach (acctest.Reattach): nothing to repair.
		PreConfig: func() { reattached = acctest.Reattach(context.Background(), t, name) },
		Config:    w.config(),
		ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
			planIf(&reattached, []plancheck.PlanCheck{replaced}, []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}),
		}},
		ConfigStateChecks: keepsResult(t, addr),
	})
	if acctest.RequireAcc(t); !acctest.IsPodman(t) {
		// Podman's Docker-compatible API ignores the runtime, which is
		// refused there (TestAccContainer_hardenedExample).
		w.runtime = `runtime = "runsc"`
		steps = append(steps, resource.TestStep{
			Config:            w.config(),
			ConfigPlanChecks:  resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{replaced}},
			ConfigStateChecks: keepsResult(t, addr),
		})
	}
	w.sandbox = false
	destroyed := w.config()
	w.another = true
	steps = append(steps, resource.TestStep{
		Config:            destroyed,
		ConfigStateChecks: []statecheck.StateCheck{acctest.ExpectVolume(t, name, func(engine.Volume) error { return nil })},
	}, resource.TestStep{
		Config:            w.config(),
		ConfigStateChecks: keepsResult(t, "sandbox_container.other"),
	})
	acctest.Test(t, steps)
}

// A mount that changes (here to read-only) replaces the sandbox, and the
// volume's data stays; a read-only mount cannot be written.
func TestAccContainer_readOnlyMountReplacesAndKeepsData(t *testing.T) {
	name := acctest.Name(t)
	config := func(readOnly bool) string {
		return fmt.Sprintf(`
resource "sandbox_volume" "work" {
  name = %[1]q
}
`, name) + acctest.Config(name, fmt.Sprintf(`  network_mode = "none"
  mounts = { "/data" = { volume = sandbox_volume.work.name, read_only = %t } }`, readOnly))
	}
	acctest.Test(t, []resource.TestStep{
		{
			Config: config(false),
			ConfigStateChecks: []statecheck.StateCheck{acctest.ExpectInside(t, addr, func(ctx context.Context, id string) error {
				_, err := acctest.ExecOK(ctx, t, id, "sh", "-c", "echo kept > /data/f")
				return err
			})},
		},
		{
			Config: config(true),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(addr, plancheck.ResourceActionDestroyBeforeCreate),
			}},
			ConfigStateChecks: []statecheck.StateCheck{acctest.ExpectInside(t, addr, func(ctx context.Context, id string) error {
				if got, err := acctest.ExecOK(ctx, t, id, "cat", "/data/f"); err != nil || got != "kept\n" {
					return fmt.Errorf("the volume holds %q (%s), want \"kept\\n\"", got, acctest.ErrText(err))
				}
				if res, err := acctest.Exec(ctx, t, id, "touch", "/data/g"); err != nil || res.ExitCode == 0 {
					return fmt.Errorf("writing to the read-only mount did not fail: %+v %s", res, acctest.ErrText(err))
				}
				return nil
			})},
		},
	})
}

// Mounts that would hide the kernel's or the engine's files, or hide or be
// hidden by a tmpfs mount or a file, are refused at plan.
func TestAccContainer_mountsRefusedAtPlan(t *testing.T) {
	name := acctest.Name(t)
	cases := []struct{ body, want string }{
		{`mounts = { "/proc/x" = { volume = "v1" } }`, `must not be under /proc, /sys, /dev`},
		{`mounts = { "/dev" = { volume = "v1" } }`, `must not be under /proc, /sys, /dev`},
		{`mounts = { "/etc/hosts" = { volume = "v1" } }`, `or one of /etc/hosts`},
		{`mounts = { "workspace" = { volume = "v1" } }`, `must be a clean absolute path`},
		{`mounts = { "/workspace/../etc" = { volume = "v1" } }`, `must be a clean absolute path`},
		{`mounts = { "/" = { volume = "v1" } }`, `must be a clean absolute path other than /`},
		{`mounts = { "/workspace" = { volume = "" } }`, `must not be empty`},
		{`mounts = {}`, `must contain at least 1 elements`},
		{"mounts = { \"/work\" = { volume = \"v1\" } }\n  tmpfs = { \"/work/tmp\" = \"\" }", `Mount overlaps a tmpfs mount.*mounts\["/work"\]`},
		{"mounts = { \"/work/cache\" = { volume = \"v1\" } }\n  tmpfs = { \"/work\" = \"\" }", `Mount overlaps a tmpfs mount`},
		{"mounts = { \"/work\" = { volume = \"v1\" } }\n  files = { \"/work/task.md\" = { content = \"x\" } }", `Mount overlaps a file.*files\["/work/task.md"\] is under the mount /work`},
	}
	var steps []resource.TestStep
	for _, c := range cases {
		steps = append(steps, resource.TestStep{
			Config: acctest.Config(name, "  network_mode = \"none\"\n  "+c.body), PlanOnly: true,
			ExpectError: regexp.MustCompile(`(?s)` + strings.ReplaceAll(c.want, " ", `\s+`)),
		})
	}
	acctest.Test(t, steps)
}
