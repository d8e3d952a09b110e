package resources_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/client"
	"github.com/hashicorp/terraform-plugin-testing/compare"
	"github.com/hashicorp/terraform-plugin-testing/helper/acctest"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
)

const mib = 1 << 20

// The fully hardened sandbox of the docs, without gVisor (tested on its own).
const hardened = `
  network_mode = "none"
  user         = "65534:65534"
  cap_drop     = ["ALL"]
  read_only    = true
  tmpfs = {
    "/tmp"       = "rw,size=16m,mode=1777"
    "/workspace" = "rw,size=16m,uid=65534,gid=65534,mode=0700"
  }
  memory     = 64
  cpus       = 0.5
  pids_limit = 32
  shm_size   = 8
  ulimits = {
    nofile = { soft = 256, hard = 512 }
  }
  timeouts = {
    create = "2m"
    delete = "1m"
  }
`

func TestAccContainer_hardenedSandbox(t *testing.T) {
	name := sandboxName(t)
	config := sandboxConfig(name, hardened)
	sandboxTest(t, []resource.TestStep{
		{
			Config: config,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(addr, attr("no_new_privileges"), knownvalue.Bool(true)),
				statecheck.ExpectKnownValue(addr, attr("read_only"), knownvalue.Bool(true)),
				statecheck.ExpectKnownValue(addr, attr("cap_drop"),
					knownvalue.SetExact([]knownvalue.Check{knownvalue.StringExact("ALL")})),
				statecheck.ExpectKnownValue(addr, attr("memory"), knownvalue.Int64Exact(64)),
				statecheck.ExpectKnownValue(addr, attr("memory_swap"), knownvalue.Null()),
				statecheck.ExpectKnownValue(addr, attr("cpus"), knownvalue.Float64Exact(0.5)),
				statecheck.ExpectKnownValue(addr, attr("pids_limit"), knownvalue.Int64Exact(32)),
				expectIsolated(t),
				expectEngine(t, func(c container.InspectResponse) error {
					h := c.HostConfig
					switch {
					case !contains(h.CapDrop, "ALL"):
						return fmt.Errorf("cap drop %v", h.CapDrop)
					case !contains(h.SecurityOpt, "no-new-privileges"):
						return fmt.Errorf("security opts %v", h.SecurityOpt)
					case !h.ReadonlyRootfs:
						return fmt.Errorf("root filesystem is writable")
					case h.Tmpfs["/tmp"] != "rw,size=16m,mode=1777" || len(h.Tmpfs) != 2:
						return fmt.Errorf("tmpfs %v", h.Tmpfs)
					case h.Memory != 64*mib || h.MemorySwap != 64*mib:
						return fmt.Errorf("memory %d, memory+swap %d: want 64 MiB and no swap", h.Memory, h.MemorySwap)
					case h.NanoCPUs != 500_000_000:
						return fmt.Errorf("nano CPUs %d", h.NanoCPUs)
					case h.PidsLimit == nil || *h.PidsLimit != 32:
						return fmt.Errorf("pids limit %v", h.PidsLimit)
					case h.ShmSize != 8*mib:
						return fmt.Errorf("shm size %d", h.ShmSize)
					case len(h.Ulimits) != 1 || h.Ulimits[0].Name != "nofile" || h.Ulimits[0].Soft != 256 || h.Ulimits[0].Hard != 512:
						return fmt.Errorf("ulimits %v", h.Ulimits)
					case c.Config.User != "65534:65534":
						return fmt.Errorf("user %q", c.Config.User)
					}
					return nil
				}),
				expectInside(t, func(ctx context.Context, api *client.Client, id string) error {
					status, err := execIn(ctx, api, id, "cat", "/proc/self/status")
					if err != nil {
						return err
					}
					for _, want := range []string{"CapEff:\t0000000000000000", "CapBnd:\t0000000000000000", "NoNewPrivs:\t1", "Seccomp:\t2"} {
						if !strings.Contains(status, want) {
							return fmt.Errorf("/proc/self/status lacks %q:\n%s", want, status)
						}
					}
					if res, err := execRun(ctx, api, id, "touch", "/rootfs-write"); err != nil || res.exitCode == 0 {
						return fmt.Errorf("writing to / did not fail: %+v %s", res, errText(err))
					}
					for _, dir := range []string{"/tmp", "/workspace"} {
						if _, err := execIn(ctx, api, id, "touch", dir+"/ok"); err != nil {
							return fmt.Errorf("tmpfs %s is not writable: %w", dir, err)
						}
					}
					// The sandbox's own processes; the engine gives exec'd ones
					// the hard limit as their soft limit.
					limits, err := execIn(ctx, api, id, "cat", "/proc/1/limits")
					if err != nil || !regexp.MustCompile(`Max open files\s+256\s+512\s`).MatchString(limits) {
						return fmt.Errorf("open files limit is not 256/512 (%s):\n%s", errText(err), limits)
					}
					return nil
				}),
			},
		},
		{
			Config: config,
			ConfigPlanChecks: resource.ConfigPlanChecks{
				PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
			},
		},
		{
			ResourceName:            addr,
			ImportState:             true,
			ImportStateVerify:       true,
			ImportStateVerifyIgnore: []string{"timeouts"},
		},
	})
}

// The kernel enforces the limits: a fork loop stops at pids_limit, and a
// process that outgrows memory is killed (there is no swap to spill to).
func TestAccContainer_limitsEnforcedByKernel(t *testing.T) {
	name := sandboxName(t)
	sandboxTest(t, []resource.TestStep{{
		Config: sandboxConfig(name, `
  network_mode = "none"
  memory       = 32
  pids_limit   = 16
  cpus         = 0.5
`),
		ConfigStateChecks: []statecheck.StateCheck{
			expectInside(t, func(ctx context.Context, api *client.Client, id string) error {
				// What the kernel was told, in cgroup v1 or v2 files.
				for _, c := range []struct{ v1, v2, want string }{
					{"cat /sys/fs/cgroup/memory/memory.limit_in_bytes", "cat /sys/fs/cgroup/memory.max", "33554432"},
					{"cat /sys/fs/cgroup/cpu/cpu.cfs_quota_us /sys/fs/cgroup/cpu/cpu.cfs_period_us", "cat /sys/fs/cgroup/cpu.max", "50000 100000"},
					{"cat /sys/fs/cgroup/pids/pids.max", "cat /sys/fs/cgroup/pids.max", "16"},
				} {
					got, err := execIn(ctx, api, id, "sh", "-c", c.v1)
					if err != nil {
						got, err = execIn(ctx, api, id, "sh", "-c", c.v2)
					}
					if err != nil || strings.Join(strings.Fields(got), " ") != c.want {
						return fmt.Errorf("%s = %q (%s), want %s", c.v1, got, errText(err), c.want)
					}
				}
				fork, err := execRun(ctx, api, id, "sh", "-c", "for i in $(seq 1 40); do sleep 2 & done; wait")
				if err != nil {
					return err
				}
				if !strings.Contains(fork.stderr, "can't fork") {
					return fmt.Errorf("40 background processes started under pids_limit = 16: %+v", fork)
				}
				hog, err := execRun(ctx, api, id, "sh", "-c", "head -c 200000000 /dev/zero | sort >/dev/null")
				if err != nil {
					return err
				}
				if hog.exitCode != 137 {
					return fmt.Errorf("sorting 200 MB under memory = 32 exited %d, want 137 (killed): %s", hog.exitCode, hog.stderr)
				}
				return nil
			}),
		},
	}})
}

// no_new_privileges stops a setuid root binary from raising an unprivileged
// user's effective ID; without it the same binary does (which shows that the
// check can fail).
func TestAccContainer_noNewPrivilegesBlocksSetuid(t *testing.T) {
	name := sandboxName(t)
	config := func(nnp bool) string {
		return sandboxConfig(name, fmt.Sprintf(`
  network_mode      = "none"
  user              = "65534:65534"
  no_new_privileges = %t
`, nnp))
	}
	euid := func(want string) statecheck.StateCheck {
		return expectInside(t, func(ctx context.Context, api *client.Client, id string) error {
			out, err := execIn(ctx, api, id, "/bin/euid")
			if err != nil || strings.TrimSpace(out) != want {
				return fmt.Errorf("setuid root binary ran with effective ID %q (%s), want %s", out, errText(err), want)
			}
			return nil
		})
	}
	sandboxTest(t, []resource.TestStep{
		{Config: config(false), ConfigStateChecks: []statecheck.StateCheck{euid("0")}},
		{
			Config: config(true),
			ConfigPlanChecks: resource.ConfigPlanChecks{
				PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionDestroyBeforeCreate)},
			},
			ConfigStateChecks: []statecheck.StateCheck{euid("65534")},
		},
	})
}

// cap_drop ALL with cap_add grants exactly the added capabilities.
func TestAccContainer_capabilities(t *testing.T) {
	name := sandboxName(t)
	sandboxTest(t, []resource.TestStep{{
		Config: sandboxConfig(name, `
  network_mode = "none"
  cap_drop     = ["ALL"]
  cap_add      = ["CHOWN", "KILL"]
`),
		ConfigStateChecks: []statecheck.StateCheck{
			statecheck.ExpectKnownValue(addr, attr("cap_add"), knownvalue.SetExact([]knownvalue.Check{
				knownvalue.StringExact("CHOWN"), knownvalue.StringExact("KILL"),
			})),
			expectInside(t, func(ctx context.Context, api *client.Client, id string) error {
				status, err := execIn(ctx, api, id, "cat", "/proc/self/status")
				if err != nil {
					return err
				}
				// CAP_CHOWN is bit 0, CAP_KILL bit 5.
				if !strings.Contains(status, "CapEff:\t0000000000000021") {
					return fmt.Errorf("effective capabilities are not CHOWN and KILL:\n%s", status)
				}
				return nil
			}),
		},
	}})
}

// The escape hatch lets a confinement-disabling option through, and it takes
// effect: no seccomp filter inside.
func TestAccContainer_unconfinedNeedsEscapeHatch(t *testing.T) {
	name := sandboxName(t)
	sandboxTest(t, []resource.TestStep{
		{
			Config: sandboxConfig(name, `
  network_mode     = "none"
  security_opts    = ["seccomp=unconfined"]
  allow_unconfined = true
`),
			ConfigStateChecks: []statecheck.StateCheck{
				expectInside(t, func(ctx context.Context, api *client.Client, id string) error {
					status, err := execIn(ctx, api, id, "cat", "/proc/self/status")
					if err != nil {
						return err
					}
					if !strings.Contains(status, "Seccomp:\t0") {
						return fmt.Errorf("a seccomp filter is still active:\n%s", status)
					}
					return nil
				}),
			},
		},
		{
			ResourceName:      addr,
			ImportState:       true,
			ImportStateVerify: true,
		},
	})
}

// Limits the engine can change on a live container are applied in place and
// brought back after an out-of-band change; removing one replaces.
func TestAccContainer_limitsUpdatedInPlace(t *testing.T) {
	name := sandboxName(t)
	limits := func(body string) string { return sandboxConfig(name, "  network_mode = \"none\"\n"+body) }
	ids := statecheck.CompareValue(compare.ValuesSame())
	engineLimits := func(memory, swap, nanoCPUs, pids int64) statecheck.StateCheck {
		return expectEngine(t, func(c container.InspectResponse) error {
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
		PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate)},
	}
	sandboxTest(t, []resource.TestStep{
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
		{
			PreConfig: outOfBand(t, func(ctx context.Context, api *client.Client) error {
				pids := int64(4096)
				_, err := api.ContainerUpdate(ctx, name, container.UpdateConfig{Resources: container.Resources{
					Memory: 512 * mib, MemorySwap: 512 * mib, NanoCPUs: 1_500_000_000, PidsLimit: &pids,
				}})
				return err
			}),
			Config: second,
			ConfigPlanChecks: resource.ConfigPlanChecks{
				PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
					expectPriorValue{addr, "memory", 512},
					expectPriorValue{addr, "pids_limit", 4096},
				},
			},
			ConfigStateChecks: []statecheck.StateCheck{
				ids.AddStateValue(addr, attr("id")), engineLimits(128*mib, 256*mib, 1_000_000_000, 100),
			},
		},
		{
			// Lifting the CPU limit needs a new container.
			Config: limits("  memory = 128\n  memory_swap = 256\n  pids_limit = 100\n"),
			ConfigPlanChecks: resource.ConfigPlanChecks{
				PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionDestroyBeforeCreate)},
			},
		},
	})
}

// A sandbox with a network publishes its ports on loopback unless told
// otherwise.
func TestAccContainer_portsBindToLoopback(t *testing.T) {
	name := sandboxName(t)
	sandboxTest(t, []resource.TestStep{
		{
			Config: sandboxConfig(name, `
  ports = [
    { internal = 8080 },
    { internal = 5353, protocol = "udp", host_ip = "0.0.0.0" },
  ]
`),
			ConfigStateChecks: []statecheck.StateCheck{
				expectEngine(t, func(c container.InspectResponse) error {
					tcp, udp := c.HostConfig.PortBindings["8080/tcp"], c.HostConfig.PortBindings["5353/udp"]
					if len(tcp) != 1 || tcp[0].HostIP != "127.0.0.1" || len(udp) != 1 || udp[0].HostIP != "0.0.0.0" {
						return fmt.Errorf("port bindings %v", c.HostConfig.PortBindings)
					}
					return nil
				}),
			},
		},
		{
			ResourceName:      addr,
			ImportState:       true,
			ImportStateVerify: true,
			// Import spells out the defaults the configuration left out.
			ImportStateVerifyIgnore: []string{"ports"},
		},
	})
}

// Choosing a runtime runs the sandbox under it: with runsc, gVisor's kernel
// answers inside, not the host's.
func TestAccContainer_gVisorRuntime(t *testing.T) {
	name := sandboxName(t)
	sandboxTest(t, []resource.TestStep{{
		Config: sandboxConfig(name, `
  network_mode = "none"
  runtime      = "runsc"
`),
		ConfigStateChecks: []statecheck.StateCheck{
			statecheck.ExpectKnownValue(addr, attr("runtime"), knownvalue.StringExact("runsc")),
			expectIsolated(t),
			expectEngine(t, func(c container.InspectResponse) error {
				if c.HostConfig.Runtime != "runsc" {
					return fmt.Errorf("runtime %q", c.HostConfig.Runtime)
				}
				return nil
			}),
			expectInside(t, func(ctx context.Context, api *client.Client, id string) error {
				out, err := execIn(ctx, api, id, "dmesg")
				if err != nil || !strings.Contains(out, "gVisor") {
					return fmt.Errorf("dmesg inside does not come from gVisor (%s):\n%s", errText(err), out)
				}
				return nil
			}),
		},
	}, {
		// Import reads the runtime back.
		ResourceName:      addr,
		ImportState:       true,
		ImportStateVerify: true,
	}})
}

func TestAccContainer_createTimeout(t *testing.T) {
	name := sandboxName(t)
	sandboxTest(t, []resource.TestStep{{
		Config: sandboxConfig(name, `
  network_mode = "none"
  timeouts     = { create = "1ns" }
`),
		ExpectError: regexp.MustCompile(`(?s)Sandbox creation timed out.*timeouts.create`),
	}})
	if list := containersNamed(t, name); len(list) != 0 {
		t.Fatalf("a timed-out create left %d container(s)", len(list))
	}
}

// Files are written before the sandbox starts, again when it is recreated
// after drift, and a changed source file replaces the sandbox.
func TestAccContainer_filesWrittenBeforeStart(t *testing.T) {
	name := sandboxName(t)
	src := filepath.Join(t.TempDir(), "run.sh")
	write(t, src, "#!/bin/sh\necho first\n")
	config := sandboxConfig(name, fmt.Sprintf(`
  network_mode = "none"
  files = {
    "/work/hello.txt" = { content = "hello\n" }
    "/work/bin.dat"   = { content_base64 = "AAEC/w==" }
    "/work/run.sh"    = { source = %q, mode = "0755" }
  }
`, src))
	filesInside := func(runOutput string) statecheck.StateCheck {
		return expectInside(t, func(ctx context.Context, api *client.Client, id string) error {
			for cmd, want := range map[string]string{
				"cat /work/hello.txt":        "hello\n",
				"base64 /work/bin.dat":       "AAEC/w==\n",
				"/work/run.sh":               runOutput + "\n",
				"stat -c %a /work/run.sh":    "755\n",
				"stat -c %a /work/bin.dat":   "644\n",
				"stat -c %u /work/hello.txt": "0\n",
			} {
				out, err := execIn(ctx, api, id, "sh", "-c", cmd)
				if err != nil || out != want {
					return fmt.Errorf("%s gave %q (%s), want %q", cmd, out, errText(err), want)
				}
			}
			return nil
		})
	}
	digest := func(content string) knownvalue.Check {
		sum := sha256.Sum256([]byte(content))
		return knownvalue.StringExact(hex.EncodeToString(sum[:]))
	}
	sandboxTest(t, []resource.TestStep{
		{
			Config: config,
			ConfigStateChecks: []statecheck.StateCheck{
				filesInside("first"),
				statecheck.ExpectKnownValue(addr, attr("files").AtMapKey("/work/run.sh").AtMapKey("sha256"),
					digest("#!/bin/sh\necho first\n")),
			},
		},
		{
			PreConfig: outOfBand(t, func(ctx context.Context, api *client.Client) error {
				return api.ContainerRemove(ctx, name, container.RemoveOptions{Force: true})
			}),
			Config: config,
			ConfigPlanChecks: resource.ConfigPlanChecks{
				PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionCreate)},
			},
			ConfigStateChecks: []statecheck.StateCheck{filesInside("first")},
		},
		{
			PreConfig: func() { write(t, src, "#!/bin/sh\necho second\n") },
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

// env_wo reaches the sandbox but never the state; only a new
// env_wo_version applies new values.
func TestAccContainer_secretEnvNeverStored(t *testing.T) {
	name := sandboxName(t)
	first, second := "first-"+acctest.RandString(16), "second-"+acctest.RandString(16)
	config := func(secret string, version int) string {
		return sandboxConfig(name, fmt.Sprintf(`
  network_mode   = "none"
  env            = { PLAIN = "visible" }
  env_wo         = { API_TOKEN = %q }
  env_wo_version = %d
`, secret, version))
	}
	secretInside := func(secret string) statecheck.StateCheck {
		return expectEngine(t, func(c container.InspectResponse) error {
			if !contains(c.Config.Env, "API_TOKEN="+secret) {
				return fmt.Errorf("the sandbox's environment lacks the secret")
			}
			if c.Config.Labels["tfsandbox.secret-env-names"] != "API_TOKEN" {
				return fmt.Errorf("labels %v do not name the secret variable", c.Config.Labels)
			}
			return nil
		})
	}
	sandboxTest(t, []resource.TestStep{
		{
			Config: config(first, 1),
			ConfigStateChecks: []statecheck.StateCheck{
				secretInside(first),
				statecheck.ExpectKnownValue(addr, attr("env_wo"), knownvalue.Null()),
				stateLacks{first},
			},
		},
		{
			// Terraform cannot compare write-only values: nothing to do.
			Config: config(second, 1),
			ConfigPlanChecks: resource.ConfigPlanChecks{
				PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
			},
		},
		{
			Config: config(second, 2),
			ConfigPlanChecks: resource.ConfigPlanChecks{
				PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionDestroyBeforeCreate)},
			},
			ConfigStateChecks: []statecheck.StateCheck{secretInside(second), stateLacks{second}},
		},
		{
			// Import reads env from the engine but leaves the secret out.
			ResourceName:            addr,
			ImportState:             true,
			ImportStateVerify:       true,
			ImportStateVerifyIgnore: []string{"env_wo_version"},
		},
	})
}

// stateLacks checks that a string appears nowhere in the state.
type stateLacks struct{ secret string }

func (s stateLacks) CheckState(_ context.Context, req statecheck.CheckStateRequest, resp *statecheck.CheckStateResponse) {
	raw, err := json.Marshal(req.State)
	if err != nil {
		resp.Error = err
		return
	}
	if strings.Contains(string(raw), s.secret) {
		resp.Error = fmt.Errorf("the secret is in the state")
	}
}

func TestAccContainer_invalidHardeningRejectedAtPlan(t *testing.T) {
	name := sandboxName(t)
	source := filepath.Join(t.TempDir(), "exists")
	write(t, source, "x")
	cases := []struct{ body, want string }{
		{`memory = 0`, `Attribute memory value must be at least 6`},
		{`memory = -1`, `Attribute memory value must be at least 6`},
		{`cpus = 0`, `Attribute cpus value must be at least 0.01`},
		{`cpus = -0.5`, `Attribute cpus value must be at least 0.01`},
		{`pids_limit = 0`, `Attribute pids_limit value must be at least 1`},
		{`pids_limit = -1`, `Attribute pids_limit value must be at least 1`},
		{`shm_size = 0`, `Attribute shm_size value must be at least 1`},
		{`memory_swap = 64`, `Attribute "memory" must be specified when "memory_swap" is specified`},
		{"memory = 64\n  memory_swap = 32", `Memory plus swap below memory.*memory_swap = 32`},
		{`ulimits = { nofile = { soft = 10, hard = 5 } }`, `Soft limit above hard limit.*ulimits\["nofile"\].soft \(10\) cannot exceed`},
		{`ulimits = { nofile = { soft = -1, hard = 5 } }`, `Attribute ulimits\["nofile"\].soft value must be at least 0`},
		{`ulimits = { bogus = { soft = 1, hard = 1 } }`, `Attribute ulimits\["bogus"\] value must be one of`},
		{`cap_drop = ["NET_MAGIC"]`, `Attribute cap_drop\[Value\("NET_MAGIC"\)\] must be a Linux capability`},
		{`cap_add = ["cap_net_raw"]`, `Attribute cap_add\[Value\("cap_net_raw"\)\] must be a Linux capability`},
		{`cap_add = ["ALL"]`, `Attribute cap_add\[Value\("ALL"\)\] cannot add ALL capabilities`},
		{"cap_add = [\"NET_RAW\"]\n  cap_drop = [\"NET_RAW\"]", `Capability both added and dropped.*cap_drop both name NET_RAW`},
		{`security_opts = ["seccomp=unconfined"]`, `Security option disables confinement.*security_opts`},
		{`security_opts = ["apparmor=unconfined"]`, `Security option disables confinement.*security_opts`},
		{`security_opts = ["systempaths=unconfined"]`, `Security option disables confinement.*security_opts`},
		{`security_opts = ["label=disable"]`, `Security option disables confinement.*security_opts`},
		{`security_opts = ["label:disable"]`, `Security option disables confinement.*security_opts`},
		{"security_opts = [\"seccomp=unconfined\"]\n  allow_unconfined = false", `Security option disables confinement`},
		{`security_opts = ["no-new-privileges"]`, `Attribute security_opts\[Value\("no-new-privileges"\)\] must be key=value`},
		{`tmpfs = { "tmp" = "" }`, `Attribute tmpfs\["tmp"\] must be a clean absolute path`},
		{`runtime = ""`, `Attribute runtime string length must be at least 1`},
		{"network_mode = \"none\"\n  ports = [{ internal = 80 }]", `Ports need a network.*ports = `},
		{`ports = [{ internal = 0 }]`, `\.internal\s+value must be between 1 and 65535`},
		{`ports = [{ internal = 80, protocol = "icmp" }]`, `\.protocol\s+value must be one of`},
		{`files = { "/a" = { content = "x", content_base64 = "eA==" } }`, `Invalid Attribute Combination.*files\["/a"\]`},
		{`files = { "/a" = { mode = "0644" } }`, `Invalid Attribute Combination.*files\["/a"\]`},
		{`files = { "/a" = { source = "/nonexistent/tfsandbox-source" } }`, `Attribute files\["/a"\].source must name a readable regular file`},
		{fmt.Sprintf(`files = { "a" = { source = %q } }`, source), `Attribute files\["a"\] must be a clean absolute path`},
		{`files = { "/a" = { content_base64 = "%%%" } }`, `Attribute files\["/a"\].content_base64 must be standard base64`},
		{`files = { "/a" = { content = "x", mode = "999" } }`, `must be octal permission bits`},
		{"read_only = true\n  files = { \"/a\" = { content = \"x\" } }", `Files need a writable root filesystem.*files = `},
		{"tmpfs = { \"/work\" = \"\" }\n  files = { \"/work/a\" = { content = \"x\" } }", `File hidden by a tmpfs mount.*files\["/work/a"\] is under the tmpfs mount /work`},
		{"env = { A = \"1\" }\n  env_wo = { A = \"2\" }", `Variable set twice.*env_wo\["A"\] is also in env`},
		{`labels = { "tfsandbox.secret-env-names" = "A" }`, `labels.*value must be none of`},
	}
	steps := make([]resource.TestStep, len(cases))
	for i, c := range cases {
		steps[i] = resource.TestStep{
			Config:      sandboxConfig(name, "  "+c.body),
			PlanOnly:    true,
			ExpectError: regexp.MustCompile(`(?s)` + c.want),
		}
	}
	sandboxTest(t, steps)
	if list := containersNamed(t, name); len(list) != 0 {
		t.Fatalf("invalid arguments created %d container(s)", len(list))
	}
}

// The hardened example of the docs applies as written (with a unique name)
// and gives what it promises.
func TestAccContainer_hardenedExample(t *testing.T) {
	name := sandboxName(t)
	example, err := os.ReadFile(filepath.Join("..", "..", "examples", "resources", "sandbox_container", "hardened.tf"))
	if err != nil {
		t.Fatal(err)
	}
	config := strings.Replace(string(example), `"untrusted-code"`, fmt.Sprintf("%q", name), 1)
	config = strings.ReplaceAll(config, `"tfsandbox/busybox:latest"`, fmt.Sprintf("%q", testImage))
	const exampleAddr = "sandbox_container.untrusted"
	sandboxTest(t, []resource.TestStep{{
		Config: config,
		ConfigStateChecks: []statecheck.StateCheck{
			engineCheck{t: t, address: exampleAddr, check: func(ctx context.Context, c container.InspectResponse) error {
				h := c.HostConfig
				if h.Runtime != "runsc" || !h.ReadonlyRootfs || !contains(h.CapDrop, "ALL") || h.PidsLimit == nil {
					return fmt.Errorf("host config %+v", h)
				}
				names, err := interfaces(ctx, docker(t), c.ID)
				if err != nil || len(names) != 1 || names[0] != "lo" {
					return fmt.Errorf("interfaces %v (%s), want only lo", names, errText(err))
				}
				for _, cmd := range []string{"touch /workspace/ok", "touch /tmp/ok", "dmesg | grep -q gVisor"} {
					if _, err := execIn(ctx, docker(t), c.ID, "sh", "-c", cmd); err != nil {
						return fmt.Errorf("%s: %w", cmd, err)
					}
				}
				if res, err := execRun(ctx, docker(t), c.ID, "touch", "/rootfs-write"); err != nil || res.exitCode == 0 {
					return fmt.Errorf("writing to / did not fail: %+v %s", res, errText(err))
				}
				return nil
			}},
		},
	}})
}
