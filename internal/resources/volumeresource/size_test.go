package volumeresource_test

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/docker/docker/api/types/volume"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/acctest"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
)

// boundConfig is a volume with the bound given, and a hardened sandbox
// running as nobody that mounts it at /scratch.
func boundConfig(name, bound string) string {
	return fmt.Sprintf(`
resource "sandbox_volume" "test" {
  name  = %[1]q
  owner = "65534:65534"
%[2]s
}

resource "sandbox_container" "test" {
  name         = %[1]q
  image        = %[3]q
  network_mode = "none"
  user         = "65534:65534"
  cap_drop     = ["ALL"]
  read_only    = true
  mounts       = { "/scratch" = { volume = sandbox_volume.test.name } }
}
`, name, bound, acctest.TestImage)
}

// fillsUp checks, from inside the sandbox, that writing past the bound
// gives the writer ENOSPC and no more than the bound is kept, and that the
// engine still answers and the sandbox still runs.
func fillsUp(t *testing.T, sizeMB int) statecheck.StateCheck {
	return acctest.ExpectInside(t, sandboxAddr, func(ctx context.Context, id string) error {
		script := fmt.Sprintf(`stat -c '%%u:%%g' /scratch; dd if=/dev/zero of=/scratch/fill bs=1M count=%d 2>&1; `+
			`echo "exit $?"; du -k /scratch/fill`, sizeMB+2)
		res, err := acctest.Engine(t).Exec(ctx, id, "sh", "-c", script)
		if err != nil {
			return err
		}
		out := res.Stdout
		switch {
		case !strings.HasPrefix(out, "65534:65534\n"):
			return fmt.Errorf("the volume's root is not nobody's:\n%s", out)
		case !strings.Contains(out, "No space left on device") || strings.Contains(out, "exit 0"):
			return fmt.Errorf("writing %d MiB into a %d MiB volume did not fail with ENOSPC:\n%s", sizeMB+2, sizeMB, out)
		}
		var kept int
		_, _ = fmt.Sscanf(out[strings.LastIndex(strings.TrimSpace(out), "\n")+1:], "%d", &kept)
		if kept > sizeMB*1024 {
			return fmt.Errorf("the volume kept %d KiB past its %d MiB bound:\n%s", kept, sizeMB, out)
		}
		if err := acctest.Engine(t).Ping(ctx); err != nil {
			return fmt.Errorf("the engine stopped answering after the volume filled up: %w", err)
		}
		c, err := acctest.Engine(t).InspectContainer(ctx, id)
		if err != nil {
			return fmt.Errorf("inspecting the sandbox after its volume filled up: %w", err)
		}
		if !c.State.Running {
			return errors.New("the sandbox stopped after its volume filled up")
		}
		return nil
	})
}

// A memory volume is a tmpfs of size_mb, owned by owner: a process that
// writes past it gets ENOSPC and the engine goes on. Its bound is imported.
func TestAccVolume_memoryVolumeIsBounded(t *testing.T) {
	name := acctest.Name(t)
	cfg := boundConfig(name, `  medium  = "memory"
  size_mb = 2`)
	acctest.Test(t, []resource.TestStep{
		{
			Config: cfg,
			ConfigStateChecks: []statecheck.StateCheck{
				fillsUp(t, 2),
				statecheck.ExpectKnownValue(addr, tfjsonpath.New("source_digest"), knownvalue.Null()),
			},
		},
		{
			ResourceName: addr, ImportState: true, ImportStateId: name, ImportStateVerify: true,
			ImportStateVerifyIgnore: []string{"owner"},
		},
		{Config: cfg, PlanOnly: true},
	})
}

// quotasOn reports whether the engine bounds a disk volume, by asking it
// to create one bounded, as the provider would, and removing it.
func quotasOn(t *testing.T, name string) bool {
	acctest.RequireAcc(t)
	opts := map[string]string{"size": "1048576"}
	if acctest.IsPodman(t) {
		opts = map[string]string{"o": "size=1048576"}
	}
	api := acctest.Docker(t)
	_, err := api.VolumeCreate(context.Background(), volume.CreateOptions{Name: name + "-probe", DriverOpts: opts})
	if err == nil {
		if err := api.VolumeRemove(context.Background(), name+"-probe", true); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("the engine bounds disk volumes: %v (%v)", err == nil, err)
	return err == nil
}

// A disk volume's size_mb is the engine's project quota: enforced with
// ENOSPC where the engine's filesystem has quotas, and refused at apply,
// naming size_mb and creating nothing, where it does not (every engine
// here: the machine's kernel has no quota support).
func TestAccVolume_diskSizeIsEnforcedOrRefused(t *testing.T) {
	name := acctest.Name(t)
	cfg := boundConfig(name, "  size_mb = 2")
	if quotasOn(t, name) {
		acctest.Test(t, []resource.TestStep{{Config: cfg, ConfigStateChecks: []statecheck.StateCheck{fillsUp(t, 2)}}})
		return
	}
	acctest.Test(t, []resource.TestStep{
		{
			Config:      cfg,
			ExpectError: regexp.MustCompile(`(?s)Volume size not enforceable.*size_mb.*pquota`),
		},
		{
			PreConfig: func() {
				if _, err := acctest.Docker(t).VolumeInspect(context.Background(), name); !engine.IsNotFound(err) {
					t.Errorf("a refused bound left a volume behind (%v)", err)
				}
			},
			Config: config(name, ""),
		},
	})
}

// What a bound cannot be is refused at plan, naming the attribute.
func TestAccVolume_boundsRefusedAtPlan(t *testing.T) {
	name := acctest.Name(t)
	refused := map[string]string{
		`medium = "memory"`: `(?s)Memory volume without a size.*size_mb`,
		"medium = \"memory\"\n  size_mb = 8\n  source = \".\"": `(?s)Memory volume cannot be seeded.*source`,
		"medium = \"memory\"\n  size_mb = 8\n  reseed = \"1\"": `(?s)Memory volume cannot be seeded.*reseed`,
		`size_mb = 0`:     `(?s)size_mb.*at least 1`,
		`medium = "ssd"`:  `(?s)medium.*value must be one of`,
		`size_mb = -1024`: `(?s)size_mb.*at least 1`,
	}
	var steps []resource.TestStep
	for extra, want := range refused {
		steps = append(steps, resource.TestStep{Config: config(name, "  "+extra), PlanOnly: true,
			ExpectError: regexp.MustCompile(want)})
	}
	steps = append(steps, resource.TestStep{Config: config(name, "")})
	acctest.Test(t, steps)
}
