package containerresource_test

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/compare"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/acctest"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
)

// The kernel enforces the limits: a fork loop stops at pids_limit, and a
// process that outgrows memory is killed (there is no swap to spill to).
func TestAccContainer_limitsEnforcedByKernel(t *testing.T) {
	name := acctest.Name(t)
	config := acctest.Config(name, `
  network_mode = "none"
  memory       = 32
  pids_limit   = 16
  cpus         = 0.5
`)
	if !acctest.LimitsApplied(t, name, config) {
		return
	}
	acctest.Test(t, []resource.TestStep{{
		Config: config,
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
		return acctest.ExpectEngine(t, addr, func(c engine.Sandbox) error {
			h := c.HostConfig
			if h.Memory != memory || h.MemorySwap != swap || h.NanoCPUs != nanoCPUs || h.PidsLimit == nil || *h.PidsLimit != pids {
				return fmt.Errorf("engine shows memory %d, swap %d, nano CPUs %d, pids %v; want %d, %d, %d, %d",
					h.Memory, h.MemorySwap, h.NanoCPUs, h.PidsLimit, memory, swap, nanoCPUs, pids)
			}
			return nil
		})
	}
	second := limits("  memory = 128\n  memory_swap = 256\n  cpus = 1\n  pids_limit = 100\n")
	if !acctest.LimitsApplied(t, name, second) {
		return
	}
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

// pids_limit means the same under gVisor as under runc: the same fork loop
// stops after the same number of processes in a runc and in a gVisor
// sandbox, because gVisor's own kernel enforces the limit (the nproc
// ulimit) while the host keeps a larger backstop for gVisor's threads.
// Import reads the limit back as it was configured.
func TestAccContainer_gVisorPidsLimitCountsProcesses(t *testing.T) {
	name := acctest.Name(t)
	const pids = 16
	sandbox := func(label, runtime string) string {
		return fmt.Sprintf(`
resource "sandbox_container" %q {
  name         = "%s-%s"
  image        = %q
  network_mode = "none"
  runtime      = %q
  pids_limit   = %d
}
`, label, name, label, acctest.TestImage, runtime, pids)
	}
	runsc := "sandbox_container.gvisor"
	if acctest.RequireAcc(t); acctest.IsPodman(t) {
		acctest.Test(t, []resource.TestStep{{
			Config: sandbox("gvisor", "runsc"), PlanOnly: true,
			ExpectError: acctest.Phrase("whose Docker-compatible API ignores the runtime"),
		}})
		return
	}
	// started runs a fork loop in the sandbox and returns how many
	// background processes it started before the kernel refused a fork.
	started := map[string]int{}
	forkLoop := func(address string) statecheck.StateCheck {
		return acctest.ExpectInside(t, address, func(ctx context.Context, id string) error {
			res, err := acctest.Engine(t).Exec(ctx, id, "sh", "-c",
				"i=0; while [ $i -lt 40 ]; do sleep 3 & i=$((i+1)); echo $i; done")
			if err != nil {
				return err
			}
			lines := strings.Fields(res.Stdout)
			if !strings.Contains(res.Stderr, "can't fork") || len(lines) == 0 {
				return fmt.Errorf("40 background processes started under pids_limit = %d: %+v", pids, res)
			}
			started[address] = len(lines)
			time.Sleep(4 * time.Second) // the sleeps end and free their pids
			return nil
		})
	}
	acctest.Test(t, []resource.TestStep{{
		Config: sandbox("runc", "runc") + sandbox("gvisor", "runsc"),
		ConfigStateChecks: []statecheck.StateCheck{
			statecheck.ExpectKnownValue(runsc, attr("pids_limit"), knownvalue.Int64Exact(pids)),
			statecheck.ExpectKnownValue(runsc, attr("ulimits"), knownvalue.Null()),
			acctest.ExpectEngine(t, runsc, func(c engine.Sandbox) error {
				// What the engine holds, before the provider reads it.
				raw, err := acctest.Docker(t).ContainerInspect(context.Background(), c.ID)
				if err != nil {
					return err
				}
				h := raw.HostConfig
				if h.PidsLimit == nil || *h.PidsLimit != engine.GVisorHostPids(pids) {
					return fmt.Errorf("host pids limit %v, want the backstop %d", h.PidsLimit, engine.GVisorHostPids(pids))
				}
				if len(h.Ulimits) != 1 || h.Ulimits[0].Name != "nproc" || h.Ulimits[0].Hard != pids || h.Ulimits[0].Soft != pids {
					return fmt.Errorf("ulimits %v, want nproc = %d", h.Ulimits, pids)
				}
				return nil
			}),
			forkLoop("sandbox_container.runc"),
			forkLoop(runsc),
			statecheck.CompareValuePairs("sandbox_container.runc", attr("pids_limit"), runsc, attr("pids_limit"), compare.ValuesSame()),
			acctest.ExpectEngine(t, runsc, func(engine.Sandbox) error {
				if started["sandbox_container.runc"] != started[runsc] || started[runsc] >= pids {
					return fmt.Errorf("the fork loop started %d processes under runc and %d under gVisor with pids_limit = %d",
						started["sandbox_container.runc"], started[runsc], pids)
				}
				return nil
			}),
		},
	}, {
		ResourceName:      runsc,
		ImportState:       true,
		ImportStateVerify: true,
	}})
}

// A ulimits entry known only at apply (from another resource, here
// terraform_data) is planned and applied: the sandbox's processes get it.
// The framework's own check of required attributes refused it at plan.
// One that turns out to lack a limit is refused when it becomes known.
func TestAccContainer_ulimitKnownOnlyAtApply(t *testing.T) {
	name := acctest.Name(t)
	configWith := func(limits string) string {
		return `
resource "terraform_data" "nofile" {
  input = ` + limits + `
}
` + acctest.Config(name, `
  network_mode = "none"
  ulimits      = { nofile = terraform_data.nofile.output }
`)
	}
	config := configWith("{ soft = 100, hard = 200 }")
	acctest.Test(t, []resource.TestStep{{
		Config: config,
		ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
			// Terraform 1.11 plans the entry unknown; 1.16, converting the
			// dynamic output to the entry's object type, its limits.
			eitherCheck{
				plancheck.ExpectUnknownValue(addr, attr("ulimits").AtMapKey("nofile")),
				plancheck.ExpectUnknownValue(addr, attr("ulimits").AtMapKey("nofile").AtMapKey("soft")),
			},
		}},
		ConfigStateChecks: []statecheck.StateCheck{
			acctest.ExpectInside(t, addr, func(ctx context.Context, id string) error {
				// The sandbox's own processes, from PID 1: a process that
				// runc 1.1 execs may get its soft limit raised to the hard.
				out, err := acctest.ExecOK(ctx, t, id, "cat", "/proc/1/limits")
				if err != nil {
					return fmt.Errorf("reading the sandbox's limits: %s", acctest.ErrText(err))
				}
				for line := range strings.Lines(out) {
					if rest, ok := strings.CutPrefix(line, "Max open files"); ok {
						if f := strings.Fields(rest); len(f) < 2 || f[0] != "100" || f[1] != "200" {
							return fmt.Errorf("the sandbox's open-files limits are %q, want 100 and 200", strings.TrimSpace(line))
						}
						return nil
					}
				}
				return fmt.Errorf("no open-files limit in the sandbox's /proc/1/limits: %q", out)
			}),
		},
	}, {
		Config:           config,
		ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
	}, {
		Config:      configWith("{ hard = 200 }"),
		ExpectError: regexp.MustCompile(`Missing ulimit soft limit[\s\S]*ulimits\["nofile"\] sets no soft limit`),
	}})
}

// eitherCheck passes when one of its two plan checks does.
type eitherCheck [2]plancheck.PlanCheck

func (e eitherCheck) CheckPlan(ctx context.Context, req plancheck.CheckPlanRequest, resp *plancheck.CheckPlanResponse) {
	var first plancheck.CheckPlanResponse
	if e[0].CheckPlan(ctx, req, &first); first.Error == nil {
		return
	}
	if e[1].CheckPlan(ctx, req, resp); resp.Error != nil {
		resp.Error = fmt.Errorf("%w; and %w", first.Error, resp.Error)
	}
}
