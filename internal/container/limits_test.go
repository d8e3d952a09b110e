package container_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/compare"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/acctest"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
)

// The kernel enforces the limits: a fork loop stops at pids_limit, and a
// process that outgrows memory is killed (there is no swap to spill to).
func TestAccContainer_limitsEnforcedByKernel(t *testing.T) {
	name := acctest.Name(t)
	acctest.Test(t, []resource.TestStep{{
		Config: acctest.Config(name, `
  network_mode = "none"
  memory       = 32
  pids_limit   = 16
  cpus         = 0.5
`),
		ConfigStateChecks: []statecheck.StateCheck{
			acctest.ExpectInside(t, addr, func(ctx context.Context, id string) error {
				// What the kernel was told, in cgroup v1 or v2 files.
				for _, c := range []struct{ v1, v2, want string }{
					{"cat /sys/fs/cgroup/memory/memory.limit_in_bytes", "cat /sys/fs/cgroup/memory.max", "33554432"},
					{"cat /sys/fs/cgroup/cpu/cpu.cfs_quota_us /sys/fs/cgroup/cpu/cpu.cfs_period_us", "cat /sys/fs/cgroup/cpu.max", "50000 100000"},
					{"cat /sys/fs/cgroup/pids/pids.max", "cat /sys/fs/cgroup/pids.max", "16"},
				} {
					got, err := acctest.ExecOK(ctx, t, id, "sh", "-c", c.v1)
					if err != nil {
						got, err = acctest.ExecOK(ctx, t, id, "sh", "-c", c.v2)
					}
					if err != nil || strings.Join(strings.Fields(got), " ") != c.want {
						return fmt.Errorf("%s = %q (%s), want %s", c.v1, got, acctest.ErrText(err), c.want)
					}
				}
				fork, err := acctest.Engine(t).Exec(ctx, id, "sh", "-c", "for i in $(seq 1 40); do sleep 2 & done; wait")
				if err != nil {
					return err
				}
				if !strings.Contains(fork.Stderr, "can't fork") {
					return fmt.Errorf("40 background processes started under pids_limit = 16: %+v", fork)
				}
				// The shell gave up at the failed fork; the sleeps it did
				// start hold the pids until they end, and an exec needs one.
				time.Sleep(3 * time.Second)
				hog, err := acctest.Engine(t).Exec(ctx, id, "sh", "-c", "head -c 200000000 /dev/zero | sort >/dev/null")
				if err != nil {
					return err
				}
				if hog.ExitCode != 137 {
					return fmt.Errorf("sorting 200 MB under memory = 32 exited %d, want 137 (killed): %s", hog.ExitCode, hog.Stderr)
				}
				return nil
			}),
		},
	}})
}

// Limits the engine can change on a live container are applied in place and
// brought back after an out-of-band change; removing one replaces.
func TestAccContainer_limitsUpdatedInPlace(t *testing.T) {
	name := acctest.Name(t)
	limits := func(body string) string { return acctest.Config(name, "  network_mode = \"none\"\n"+body) }
	// On an engine that cannot change limits in place (Podman), each
	// change replaces the sandbox instead.
	sameOrNew := compare.ValueComparer(compare.ValuesSame())
	if acctest.InPlaceLimits(t) != plancheck.ResourceActionUpdate {
		sameOrNew = compare.ValuesDiffer()
	}
	ids := statecheck.CompareValue(sameOrNew)
	engineLimits := func(memory, swap, nanoCPUs, pids int64) statecheck.StateCheck {
		return acctest.ExpectEngine(t, addr, func(c engine.Container) error {
			h := c.HostConfig
			if h.Memory != memory || h.MemorySwap != swap || h.NanoCPUs != nanoCPUs || h.PidsLimit == nil || *h.PidsLimit != pids {
				return fmt.Errorf("engine shows memory %d, swap %d, nano CPUs %d, pids %v; want %d, %d, %d, %d",
					h.Memory, h.MemorySwap, h.NanoCPUs, h.PidsLimit, memory, swap, nanoCPUs, pids)
			}
			return nil
		})
	}
	second := limits("  memory = 128\n  memory_swap = 256\n  cpus = 1\n  pids_limit = 100\n")
	update := resource.ConfigPlanChecks{
		PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, acctest.InPlaceLimits(t))},
	}
	// A change behind Terraform's back is brought back in place, where the
	// engine shows it (Podman 4 does not: cliPlanShowsChangedLimit).
	outOfBand := []resource.TestStep{
		{
			PreConfig: func() {
				if _, err := acctest.UpdateLimits(context.Background(), t, name, 512*mib, 4096, 1_500_000_000); err != nil {
					t.Fatalf("out-of-band change: %v", err)
				}
			},
			Config: second,
			ConfigPlanChecks: resource.ConfigPlanChecks{
				PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, acctest.InPlaceLimits(t)),
					acctest.ExpectPriorValue{Address: addr, Attribute: "memory", Want: 512},
					acctest.ExpectPriorValue{Address: addr, Attribute: "pids_limit", Want: 4096},
				},
			},
			ConfigStateChecks: []statecheck.StateCheck{
				ids.AddStateValue(addr, attr("id")), engineLimits(128*mib, 256*mib, 1_000_000_000, 100),
			},
		},
	}
	if acctest.InPlaceLimits(t) != plancheck.ResourceActionUpdate {
		outOfBand = nil
	}
	acctest.Test(t, slices.Concat([]resource.TestStep{
		{
			Config: limits("  memory = 64\n  cpus = 0.5\n  pids_limit = 50\n"),
			ConfigStateChecks: []statecheck.StateCheck{
				ids.AddStateValue(addr, attr("id")), engineLimits(64*mib, 64*mib, 500_000_000, 50),
			},
		},
		{
			Config:           second,
			ConfigPlanChecks: update,
			ConfigStateChecks: []statecheck.StateCheck{
				ids.AddStateValue(addr, attr("id")), engineLimits(128*mib, 256*mib, 1_000_000_000, 100),
			},
		},
	}, outOfBand, []resource.TestStep{
		{
			// Lifting the CPU limit needs a new container.
			Config: limits("  memory = 128\n  memory_swap = 256\n  pids_limit = 100\n"),
			ConfigPlanChecks: resource.ConfigPlanChecks{
				PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionDestroyBeforeCreate)},
			},
		},
	}))
}
