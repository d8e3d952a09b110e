package containerresource_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/client"
	"github.com/hashicorp/terraform-plugin-testing/compare"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/acctest"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
)

// Files are written before the sandbox starts, again when it is recreated
// after drift, and a changed source file replaces the sandbox.
func TestAccContainer_filesWrittenBeforeStart(t *testing.T) {
	name := acctest.Name(t)
	src := filepath.Join(t.TempDir(), "run.sh")
	acctest.Write(t, src, "#!/bin/sh\necho first\n")
	config := acctest.Config(name, fmt.Sprintf(`
  network_mode = "none"
  files = {
    "/work/hello.txt" = { content = "hello\n" }
    "/work/bin.dat"   = { content_base64 = "AAEC/w==" }
    "/work/run.sh"    = { source = %q, mode = "0755" }
  }
`, src))
	filesInside := func(runOutput string) statecheck.StateCheck {
		return acctest.ExpectInside(t, addr, func(ctx context.Context, id string) error {
			for cmd, want := range map[string]string{
				"cat /work/hello.txt":        "hello\n",
				"base64 /work/bin.dat":       "AAEC/w==\n",
				"/work/run.sh":               runOutput + "\n",
				"stat -c %a /work/run.sh":    "755\n",
				"stat -c %a /work/bin.dat":   "644\n",
				"stat -c %u /work/hello.txt": "0\n",
			} {
				out, err := acctest.ExecOK(ctx, t, id, "sh", "-c", cmd)
				if err != nil || out != want {
					return fmt.Errorf("%s gave %q (%s), want %q", cmd, out, acctest.ErrText(err), want)
				}
			}
			return nil
		})
	}
	digest := func(content string) knownvalue.Check {
		sum := sha256.Sum256([]byte(content))
		return knownvalue.StringExact(hex.EncodeToString(sum[:]))
	}
	acctest.Test(t, []resource.TestStep{
		{
			Config: config,
			ConfigStateChecks: []statecheck.StateCheck{
				filesInside("first"),
				statecheck.ExpectKnownValue(addr, attr("files_sha256").AtMapKey("/work/run.sh"),
					digest("#!/bin/sh\necho first\n")),
			},
		},
		{
			PreConfig: acctest.OutOfBand(t, func(ctx context.Context, api *client.Client) error {
				return api.ContainerRemove(ctx, name, container.RemoveOptions{Force: true})
			}),
			Config: config,
			ConfigPlanChecks: resource.ConfigPlanChecks{
				PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionCreate)},
			},
			ConfigStateChecks: []statecheck.StateCheck{filesInside("first")},
		},
		{
			PreConfig: func() { acctest.Write(t, src, "#!/bin/sh\necho second\n") },
			Config:    config,
			ConfigPlanChecks: resource.ConfigPlanChecks{
				PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionDestroyBeforeCreate)},
			},
			ConfigStateChecks: []statecheck.StateCheck{filesInside("second")},
		},
		{
			Config: config,
			ConfigPlanChecks: resource.ConfigPlanChecks{
				PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
			},
		},
	})
}

// A hardened, read-only sandbox still receives its files: they are built
// into an image derived from its image, one per sandbox, which goes when
// the sandbox goes, also when the sandbox was removed behind Terraform's
// back; the root stays read-only and the sandbox isolated.
func TestAccContainer_filesWithReadOnlyRoot(t *testing.T) {
	name := acctest.Name(t)
	config := acctest.Config(name, `
  network_mode = "none"
  read_only    = true
  cap_drop     = ["ALL"]
  user         = "1000:1000"
  files = {
    "/etc/agent/config.json" = { content = "{\"model\":\"small\"}" }
    "/opt/agent/setup.sh"    = { content = "#!/bin/sh\necho ready\n", mode = "0755" }
  }
`)
	derived := map[string]bool{}
	var lastParent string // the image of the derived build's COPY step
	filesInside := acctest.ExpectInside(t, addr, func(ctx context.Context, id string) error {
		for cmd, want := range map[string]string{
			"cat /etc/agent/config.json":        `{"model":"small"}`,
			"/opt/agent/setup.sh":               "ready\n",
			"stat -c %a /opt/agent/setup.sh":    "755\n",
			"stat -c %a /etc/agent/config.json": "644\n",
		} {
			if out, err := acctest.ExecOK(ctx, t, id, "sh", "-c", cmd); err != nil || out != want {
				return fmt.Errorf("%s gave %q (%s), want %q", cmd, out, acctest.ErrText(err), want)
			}
		}
		if out, err := acctest.ExecOK(ctx, t, id, "sh", "-c", "echo x > /etc/agent/config.json"); err == nil {
			return fmt.Errorf("the read-only root was written: %s", out)
		}
		return nil
	})
	derivedImage := acctest.ExpectEngine(t, addr, func(c engine.Sandbox) error {
		img, err := acctest.Engine(t).InspectImage(context.Background(), c.Image)
		if err != nil {
			return err
		}
		base, err := acctest.Engine(t).InspectImage(context.Background(), acctest.TestImage)
		if err != nil {
			return err
		}
		if img.ID == base.ID || !engine.ManagedBy(img.Labels) || !c.HostConfig.ReadonlyRootfs {
			return fmt.Errorf("the sandbox runs %s (labels %v, read-only %t), not an image derived from %s",
				img.ID, img.Labels, c.HostConfig.ReadonlyRootfs, base.ID)
		}
		derived[img.ID] = true
		inspected, err := acctest.Docker(t).ImageInspect(context.Background(), img.ID)
		// Podman gives the ID without its sha256: prefix, and takes it
		// only with it. Parent is deprecated in the SDK, but both engines
		// still give the image a local build made below this one.
		lastParent = "sha256:" + strings.TrimPrefix(inspected.Parent, "sha256:") //nolint:staticcheck // as said above
		return err
	})
	acctest.Test(t, []resource.TestStep{{
		Config: config,
		ConfigStateChecks: []statecheck.StateCheck{
			statecheck.ExpectKnownValue(addr, attr("image"), knownvalue.StringExact(acctest.TestImage)),
			filesInside, derivedImage, acctest.ExpectIsolated(t, addr),
		},
	}, {
		// Removed behind Terraform's back: recreated with its files, and
		// the image derived for the removed one goes.
		PreConfig: acctest.OutOfBand(t, func(ctx context.Context, api *client.Client) error {
			return api.ContainerRemove(ctx, name, container.RemoveOptions{Force: true})
		}),
		Config: config,
		ConfigPlanChecks: resource.ConfigPlanChecks{
			PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionCreate)},
		},
		ConfigStateChecks: []statecheck.StateCheck{filesInside, derivedImage},
	}})
	if len(derived) != 2 {
		t.Fatalf("want a derived image per sandbox, got %v", derived)
	}
	for id := range derived {
		if _, err := acctest.Engine(t).InspectImage(context.Background(), id); !engine.IsNotFound(err) {
			t.Errorf("derived image %s is still on the engine (%v)", id, err)
		}
	}
	// The destroy removed the intermediate image its build made, which no
	// removal prunes (the base stays: the test image).
	if _, err := acctest.Engine(t).InspectImage(context.Background(), lastParent); lastParent == "sha256:" || !engine.IsNotFound(err) {
		t.Errorf("the intermediate image %q of the derived image is still on the engine (%v)", lastParent, err)
	}
}

// A file whose whole object is known only at apply plans as unknown beside
// the files known at plan, and is written like them; so is a mount.
func TestAccContainer_entriesKnownOnlyAtApply(t *testing.T) {
	name := acctest.Name(t)
	config := fmt.Sprintf(`
resource "terraform_data" "later" {
  input = { content = "later\n" }
}

resource "sandbox_volume" "later" {
  name = "%s-later"
}

resource "terraform_data" "mount" {
  input = { volume = sandbox_volume.later.name }
}
`, name) + acctest.Config(name, `
  network_mode = "none"
  files = {
    "/work/now.txt"   = { content = "now\n" }
    "/work/later.txt" = terraform_data.later.output
  }
  mounts = { "/data" = terraform_data.mount.output }
`)
	acctest.Test(t, []resource.TestStep{{
		Config: config,
		ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
			plancheck.ExpectUnknownValue(addr, attr("files").AtMapKey("/work/later.txt")),
			plancheck.ExpectKnownValue(addr, attr("files_sha256").AtMapKey("/work/now.txt"),
				knownvalue.StringExact(sha256Hex("now\n"))),
		}},
		ConfigStateChecks: []statecheck.StateCheck{
			acctest.ExpectInside(t, addr, func(ctx context.Context, id string) error {
				out, err := acctest.ExecOK(ctx, t, id, "cat", "/work/now.txt", "/work/later.txt")
				if err != nil || out != "now\nlater\n" {
					return fmt.Errorf("the files hold %q (%s), want now and later", out, acctest.ErrText(err))
				}
				if _, err := acctest.ExecOK(ctx, t, id, "sh", "-c", "echo kept >/data/note"); err != nil {
					return fmt.Errorf("writing into the mounted volume: %s", acctest.ErrText(err))
				}
				return nil
			}),
			statecheck.ExpectKnownValue(addr, attr("files_sha256").AtMapKey("/work/later.txt"),
				knownvalue.StringExact(sha256Hex("later\n"))),
		},
	}, {
		Config:             config,
		ConfigPlanChecks:   resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
		ExpectNonEmptyPlan: false,
	}})
}

func sha256Hex(content string) string {
	sum := sha256.Sum256([]byte(content))
	return hex.EncodeToString(sum[:])
}

// Files are the same files by what they hold, not by their type: moving
// them from a literal into a typed variable changes the attribute's type
// in place and keeps the sandbox; the default mode written out changes
// nothing that is applied, nor do the same bytes given in base64; a
// changed content through the variable replaces the sandbox.
func TestAccContainer_filesSameByContent(t *testing.T) {
	name := acctest.Name(t)
	literal := acctest.Config(name, `
  network_mode = "none"
  files = {
    "/work/a.txt" = { content = "a\n" }
    "/work/b.sh"  = { content = "#!/bin/sh\n", mode = "0755" }
  }
`)
	typed := func(a string) string {
		return fmt.Sprintf(`
variable "files" {
  type = map(object({ content = string, mode = optional(string, "0644") }))
  default = {
    "/work/a.txt" = { content = %q }
    "/work/b.sh"  = { content = "#!/bin/sh\n", mode = "0755" }
  }
}
`, a) + acctest.Config(name, `
  network_mode = "none"
  files        = var.files
`)
	}
	base64 := acctest.Config(name, `
  network_mode = "none"
  files = {
    "/work/a.txt" = { content_base64 = "YQo=" }
    "/work/b.sh"  = { content = "#!/bin/sh\n", mode = "0755" }
  }
`)
	sameSandbox := statecheck.CompareValue(compare.ValuesSame())
	inPlace := []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate)}
	acctest.Test(t, []resource.TestStep{
		{Config: literal, ConfigStateChecks: []statecheck.StateCheck{sameSandbox.AddStateValue(addr, attr("id"))}},
		{
			Config:            typed("a\n"),
			ConfigPlanChecks:  resource.ConfigPlanChecks{PreApply: inPlace},
			ConfigStateChecks: []statecheck.StateCheck{sameSandbox.AddStateValue(addr, attr("id"))},
		},
		{Config: typed("a\n"), ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}}},
		// The same bytes, given in base64.
		{
			Config:            base64,
			ConfigPlanChecks:  resource.ConfigPlanChecks{PreApply: inPlace},
			ConfigStateChecks: []statecheck.StateCheck{sameSandbox.AddStateValue(addr, attr("id"))},
		},
		{
			Config: typed("changed\n"),
			ConfigPlanChecks: resource.ConfigPlanChecks{
				PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionDestroyBeforeCreate)},
			},
			ConfigStateChecks: []statecheck.StateCheck{
				acctest.ExpectInside(t, addr, func(ctx context.Context, id string) error {
					out, err := acctest.ExecOK(ctx, t, id, "cat", "/work/a.txt")
					if err != nil || out != "changed\n" {
						return fmt.Errorf("/work/a.txt holds %q (%s), want the changed content", out, acctest.ErrText(err))
					}
					return nil
				}),
			},
		},
	})
}
