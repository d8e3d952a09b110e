package containerresource_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/acctest"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
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

// hardenedFor is the hardened sandbox as the engine under test takes it.
// Podman 4 refuses the uid= and gid= tmpfs options, so its /workspace is
// writable by everyone (mode=1777) instead; and a container that sets any
// ulimit loses the ulimits of Podman's containers.conf for Podman's
// built-in ones, whose nproc can exceed the host's hard limit, so nproc is
// set too (the Podman guide says so).
func hardenedFor(t *testing.T) string {
	if acctest.RequireAcc(t); acctest.IsPodman(t) {
		h := strings.Replace(hardened, "uid=65534,gid=65534,mode=0700", "mode=1777", 1)
		return strings.Replace(h, "    nofile = { soft = 256, hard = 512 }\n",
			"    nofile = { soft = 256, hard = 512 }\n    nproc  = { soft = 1024, hard = 1024 }\n", 1)
	}
	return hardened
}

// withoutLimits is a sandbox's body without memory, cpus, pids_limit and
// ulimits (a block of its own).
func withoutLimits(body string) string {
	var kept []string
	inUlimits := false
	for _, l := range strings.Split(body, "\n") {
		f := strings.Fields(l)
		switch {
		case inUlimits:
			inUlimits = strings.TrimSpace(l) != "}"
		case len(f) > 0 && f[0] == "ulimits":
			inUlimits = true
		case len(f) == 0 || !slices.Contains([]string{"memory", "cpus", "pids_limit"}, f[0]):
			kept = append(kept, l)
		}
	}
	return strings.Join(kept, "\n")
}

// The hardened sandbox holds every layer. On an engine that cannot apply
// limits (rootless Podman on cgroup v1), the hardened configuration is
// refused at plan, and every other layer still holds without the limits.
func TestAccContainer_hardenedSandbox(t *testing.T) {
	name := acctest.Name(t)
	config := acctest.Config(name, hardenedFor(t))
	limited := acctest.LimitsApplied(t, name, config)
	limit := func(want knownvalue.Check) knownvalue.Check {
		if !limited {
			return knownvalue.Null()
		}
		return want
	}
	if !limited {
		config = acctest.Config(name, withoutLimits(hardenedFor(t)))
	}
	acctest.Test(t, []resource.TestStep{
		{
			Config: config,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(addr, attr("no_new_privileges"), knownvalue.Bool(true)),
				statecheck.ExpectKnownValue(addr, attr("read_only"), knownvalue.Bool(true)),
				statecheck.ExpectKnownValue(addr, attr("cap_drop"),
					knownvalue.SetExact([]knownvalue.Check{knownvalue.StringExact("ALL")})),
				statecheck.ExpectKnownValue(addr, attr("memory"), limit(knownvalue.Int64Exact(64))),
				statecheck.ExpectKnownValue(addr, attr("memory_swap"), knownvalue.Null()),
				statecheck.ExpectKnownValue(addr, attr("cpus"), limit(knownvalue.Float64Exact(0.5))),
				statecheck.ExpectKnownValue(addr, attr("pids_limit"), limit(knownvalue.Int64Exact(32))),
				acctest.ExpectIsolated(t, addr),
				acctest.ExpectEngine(t, addr, func(c engine.Sandbox) error {
					h := c.HostConfig
					switch {
					case !acctest.NoCapabilities(h):
						return fmt.Errorf("cap drop %v", h.CapDrop)
					case !slices.Contains(h.SecurityOpt, "no-new-privileges"):
						return fmt.Errorf("security opts %v", h.SecurityOpt)
					case !h.ReadonlyRootfs:
						return fmt.Errorf("root filesystem is writable")
					// Podman adds options of its own, and mounts of its own
					// in a read-only container.
					case !strings.HasPrefix(h.Tmpfs["/tmp"], "rw,size=16m,mode=1777") || h.Tmpfs["/workspace"] == "":
						return fmt.Errorf("tmpfs %v", h.Tmpfs)
					case limited && (h.Memory != 64*mib || h.MemorySwap != 64*mib):
						return fmt.Errorf("memory %d, memory+swap %d: want 64 MiB and no swap", h.Memory, h.MemorySwap)
					case limited && h.NanoCPUs != 500_000_000:
						return fmt.Errorf("nano CPUs %d", h.NanoCPUs)
					case limited && (h.PidsLimit == nil || *h.PidsLimit != 32):
						return fmt.Errorf("pids limit %v", h.PidsLimit)
					case h.ShmSize != 8*mib:
						return fmt.Errorf("shm size %d", h.ShmSize)
					case limited && !slices.Contains(engine.ObservedUlimits(h), engine.Ulimit{Name: "nofile", Soft: 256, Hard: 512}):
						return fmt.Errorf("ulimits %v", h.Ulimits)
					case c.Config.User != "65534:65534":
						return fmt.Errorf("user %q", c.Config.User)
					}
					return nil
				}),
				acctest.ExpectInside(t, addr, func(ctx context.Context, id string) error {
					status, err := acctest.ExecOK(ctx, t, id, "cat", "/proc/self/status")
					if err != nil {
						return err
					}
					for _, want := range []string{"CapEff:\t0000000000000000", "CapBnd:\t0000000000000000", "NoNewPrivs:\t1", "Seccomp:\t2"} {
						if !strings.Contains(status, want) {
							return fmt.Errorf("/proc/self/status lacks %q:\n%s", want, status)
						}
					}
					if res, err := acctest.Exec(ctx, t, id, "touch", "/rootfs-write"); err != nil || res.ExitCode == 0 {
						return fmt.Errorf("writing to / did not fail: %+v %s", res, acctest.ErrText(err))
					}
					for _, dir := range []string{"/tmp", "/workspace"} {
						if _, err := acctest.ExecOK(ctx, t, id, "touch", dir+"/ok"); err != nil {
							return fmt.Errorf("tmpfs %s is not writable: %w", dir, err)
						}
					}
					// The sandbox's own processes; the engine gives exec'd ones
					// the hard limit as their soft limit.
					if !limited {
						return nil
					}
					limits, err := acctest.ExecOK(ctx, t, id, "cat", "/proc/1/limits")
					if err != nil || !regexp.MustCompile(`Max open files\s+256\s+512\s`).MatchString(limits) {
						return fmt.Errorf("open files limit is not 256/512 (%s):\n%s", acctest.ErrText(err), limits)
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

func TestAccContainer_invalidHardeningRejectedAtPlan(t *testing.T) {
	name := acctest.Name(t)
	source := filepath.Join(t.TempDir(), "exists")
	acctest.Write(t, source, "x")
	cases := []struct{ body, want string }{
		{`memory = 0`, `Attribute memory value must be between 6 and 16777216`},
		{`memory = -1`, `Attribute memory value must be between 6 and 16777216`},
		{`cpus = 0`, `Attribute cpus value must be between 0.010000 and 1024.000000`},
		{`cpus = -0.5`, `Attribute cpus value must be between 0.010000 and 1024.000000`},
		{`pids_limit = 0`, `Attribute pids_limit value must be between 1 and 4194304`},
		{`pids_limit = -1`, `Attribute pids_limit value must be between 1 and 4194304`},
		{`shm_size = 0`, `Attribute shm_size value must be between 1 and 16777216`},
		{`memory_swap = 64`, `Attribute "memory" must be specified when "memory_swap" is specified`},
		{"memory = 64\n  memory_swap = 32", `Memory plus swap below memory.*memory_swap = 32`},
		{`ulimits = { nofile = { soft = 10, hard = 5 } }`, `Soft limit above hard limit.*ulimits\["nofile"\].soft \(10\) cannot exceed`},
		{`ulimits = { nofile = { soft = -1, hard = 5 } }`, `Attribute ulimits\["nofile"\].soft value must be at least 0`},
		{`ulimits = { bogus = { soft = 1, hard = 1 } }`, `Attribute ulimits\["bogus"\] value must be one of`},
		{`ulimits = { nofile = { soft = 1 } }`, `Missing ulimit hard limit.*ulimits\["nofile"\] sets no hard limit`},
		{`ulimits = { nofile = {} }`, `Missing ulimit soft limit.*ulimits\["nofile"\] sets no soft limit`},
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
		{`tmpfs = { "/w" = "rw,size=64MB" }`, `tmpfs\["/w"\]\s+has\s+the\s+option\s+"size=64MB",\s+which\s+tmpfs\s+does\s+not\s+take`},
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
		{`files = { "/a" = { contnet = "x" } }`, `files\["/a"\]\s+has\s+"contnet",\s+which\s+a\s+file\s+does\s+not\s+take`},
		{`files = { "/a" = { content = ["x"] } }`, `files\["/a"\]\.content\s+must\s+be\s+a\s+string`},
		{`files = { "/a" = "x" }`, `files\["/a"\]\s+must\s+be\s+an\s+object\s+with\s+one\s+of\s+content`},
		{`files = ["/a"]`, `files\s+must\s+be\s+a\s+map\s+of\s+files\s+by\s+absolute\s+path`},
		{`files = {}`, `Attribute\s+files\s+has\s+no\s+file`},
		{"tmpfs = { \"/work\" = \"\" }\n  files = { \"/work/a\" = { content = \"x\" } }", `File hidden by a tmpfs mount.*files\["/work/a"\] is under the tmpfs mount /work`},
		{"env = { A = \"1\" }\n  env_wo = { A = \"2\" }\n  env_wo_version = 1", `Variable set twice.*env_wo\["A"\] is also in env`},
		{`env_wo = { A = "2" }`, `Secret\s+version\s+missing.*env_wo\s+needs\s+env_wo_version.*raise\s+env_wo_version`},
		{`labels = { "tfsandbox.secret-env-names" = "A" }`, `labels.*must not start with\s+"tfsandbox\."`},
	}
	steps := make([]resource.TestStep, len(cases))
	for i, c := range cases {
		steps[i] = resource.TestStep{
			Config:      acctest.Config(name, "  "+c.body),
			PlanOnly:    true,
			ExpectError: regexp.MustCompile(`(?s)` + c.want),
		}
	}
	acctest.Test(t, steps)
	acctest.ExpectNoContainers(t, name, "invalid arguments")
}

// The hardened example of the docs applies as written (with a unique name)
// and gives what it promises.
func TestAccContainer_hardenedExample(t *testing.T) {
	name := acctest.Name(t)
	example, err := os.ReadFile(filepath.Join(acctest.ModuleRoot(t), "examples", "resources", "sandbox_container", "hardened.tf"))
	if err != nil {
		t.Fatal(err)
	}
	config := strings.Replace(string(example), `"untrusted-code"`, fmt.Sprintf("%q", name), 1)
	config = strings.ReplaceAll(config, `"tfsandbox/busybox:latest"`, fmt.Sprintf("%q", acctest.TestImage))
	const exampleAddr = "sandbox_container.untrusted"
	if acctest.RequireAcc(t); acctest.IsPodman(t) {
		// The example asks for gVisor, which Podman's Docker-compatible
		// API would not honour: refused at plan time, as the docs say.
		acctest.Test(t, []resource.TestStep{{
			Config:      config,
			PlanOnly:    true,
			ExpectError: acctest.Phrase("whose Docker-compatible API ignores the runtime"),
		}})
		acctest.ExpectNoContainers(t, name, "the refused plan")
		return
	}
	acctest.Test(t, []resource.TestStep{{
		Config: config,
		ConfigStateChecks: []statecheck.StateCheck{
			acctest.EngineCheck{T: t, Address: exampleAddr, Check: func(ctx context.Context, c engine.Sandbox) error {
				h := c.HostConfig
				if h.Runtime != "runsc" || !h.ReadonlyRootfs || !acctest.NoCapabilities(h) || h.PidsLimit == nil {
					return fmt.Errorf("host config %+v", h)
				}
				if err := acctest.OnlyLoopbackInside(ctx, t, c.ID); err != nil {
					return err
				}
				for _, cmd := range []string{"touch /workspace/ok", "touch /tmp/ok", "dmesg | grep -q gVisor"} {
					if _, err := acctest.ExecOK(ctx, t, c.ID, "sh", "-c", cmd); err != nil {
						return fmt.Errorf("%s: %w", cmd, err)
					}
				}
				if res, err := acctest.Exec(ctx, t, c.ID, "touch", "/rootfs-write"); err != nil || res.ExitCode == 0 {
					return fmt.Errorf("writing to / did not fail: %+v %s", res, acctest.ErrText(err))
				}
				return nil
			}},
		},
	}})
}

// Inputs that would widen a sandbox, overflow, or fail only at apply are
// refused at plan time, each naming the attribute, the rule and the fix.
func TestAccContainer_wideningOrBrokenInputsRejectedAtPlan(t *testing.T) {
	name := acctest.Name(t)
	cases := []struct{ body, want string }{
		{`ports = [{ internal = 80, host_ip = "localhost" }]`, `host_ip must be an IP address such as 127.0.0.1`},
		{`ports = [{ internal = 80, host_ip = "999.1.1.1" }]`, `host_ip must be an IP address such as 127.0.0.1`},
		{`ports = [{ internal = 80, host_ip = "127.0.0.1 " }]`, `host_ip must be an IP address such as 127.0.0.1`},
		{`security_opts = ["seccomp={\"defaultAction\":\"SCMP_ACT_ALLOW\"}"]`,
			`Security option disables confinement.*defaultAction SCMP_ACT_ALLOW lets through every system call.*set allow_unconfined = true`},
		{`security_opts = ["seccomp=profile.json"]`, `must give seccomp "unconfined", a seccomp profile in JSON`},
		{`cap_add = ["SYS_ADMIN"]`, `Capability breaks containment.*names SYS_ADMIN.*mount filesystems.*set allow_unsafe_capabilities = true`},
		// Each capability that acts on the host as a whole, not only the
		// few best known.
		{`cap_add = ["SYS_TIME"]`, `Capability breaks containment.*names SYS_TIME.*set the host's clock`},
		{`cap_add = ["AUDIT_CONTROL", "NET_BIND_SERVICE"]`, `Capability breaks containment.*names AUDIT_CONTROL.*audit rules`},
		{`cap_add = ["SYS_RESOURCE"]`, `Capability breaks containment.*names SYS_RESOURCE.*reserved space`},
		{`cap_add = ["WAKE_ALARM"]`, `Capability breaks containment.*names WAKE_ALARM.*wake the host`},
		{"cap_add = [\"SYS_PTRACE\"]\n  allow_unsafe_capabilities = false", `Capability breaks containment.*names SYS_PTRACE`},
		{`memory = 17592186044426`, `Attribute memory value must be between 6 and 16777216`},
		{`shm_size = 17592186044416`, `Attribute shm_size value must be between 1 and 16777216`},
		{`cpus = 1000000000000`, `Attribute cpus value must be between 0.010000 and 1024.000000`},
		// Checked against what the engine reports (2 CPUs and 24 GiB here).
		{`memory = 1048576`, `More memory than the engine has.*memory = 1048576 MiB is more than the \d+ MiB`},
		{`cpus = 500`, `More CPUs than the engine has.*not 500 millicores`},
		{`runtime = "gvisor"`, `(runtime = "gvisor" is not among the runtimes of the engine|ignores the runtime)`},
		{"runtime = \"runsc\"\n  pids_limit = 64\n  ulimits = { nproc = { soft = 64, hard = 100 } }", `(nproc above pids_limit under gVisor.*at most 64|ignores the runtime)`},
		{"runtime = \"runsc\"\n  memory = 16", `(memory too small for gVisor.*at least 32|ignores the runtime)`},
		{`files = { "/proc/sys/x" = { content = "x" } }`, `files\["/proc/sys/x"\] must not be under /proc, /sys, /dev`},
		{`files = { "/dev/x" = { content = "x" } }`, `files\["/dev/x"\] must not be under /proc, /sys, /dev`},
		{`user = "root;rm"`, `Attribute user must be a user name or ID`},
		{`user = "99999999999"`, `Attribute user must be a user name or ID.*IDs up to 4294967294`},
		{`working_dir = "relative"`, `Attribute working_dir must be an absolute path`},
		{`timeouts = { create = "-1s" }`, `timeouts.create must be a duration greater than zero`},
		{`timeouts = { delete = "0s" }`, `timeouts.delete must be a duration greater than zero`},
	}
	steps := make([]resource.TestStep, 0, len(cases)+1)
	for _, c := range cases {
		steps = append(steps, resource.TestStep{
			Config:      acctest.Config(name, "  "+c.body),
			PlanOnly:    true,
			ExpectError: regexp.MustCompile(`(?s)` + strings.ReplaceAll(c.want, " ", `\s+`)),
		})
	}
	steps = append(steps, resource.TestStep{
		Config: fmt.Sprintf(`
resource "sandbox_container" "test" {
  name  = %q
  image = "--privileged"
}
`, name),
		PlanOnly:    true,
		ExpectError: regexp.MustCompile(`(?s)Attribute\s+image\s+must\s+be\s+an\s+image\s+reference`),
	})
	acctest.Test(t, steps)
	acctest.ExpectNoContainers(t, name, "inputs refused at plan time")
}

// Docker mounts tmpfs noexec unless the options say exec, as the docs say;
// Podman mounts it exec unless they say noexec. A script written there
// runs accordingly.
func TestAccContainer_tmpfsExecOnlyWhenAsked(t *testing.T) {
	name := acctest.Name(t)
	acctest.RequireAcc(t)
	podman := acctest.IsPodman(t)
	acctest.Test(t, []resource.TestStep{{
		Config: acctest.Config(name, `
  network_mode = "none"
  tmpfs = {
    "/scratch"   = "rw,size=8m"
    "/workspace" = "rw,exec,size=8m"
    "/locked"    = "rw,noexec,size=8m"
  }
`),
		ConfigStateChecks: []statecheck.StateCheck{
			acctest.ExpectInside(t, addr, func(ctx context.Context, id string) error {
				const script = `printf '#!/bin/sh\necho ran\n' > %[1]s/s && chmod +x %[1]s/s && %[1]s/s`
				for dir, runs := range map[string]bool{"/workspace": true, "/locked": false, "/scratch": podman} {
					out, err := acctest.ExecOK(ctx, t, id, "sh", "-c", fmt.Sprintf(script, dir))
					if ran := err == nil && strings.Contains(out, "ran"); ran != runs {
						return fmt.Errorf("a script in %s ran: %v, want %v (%s)", dir, ran, runs, acctest.ErrText(err))
					}
				}
				return nil
			}),
		},
	}})
}
