package containerresource_test

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/acctest"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
)

// no_new_privileges stops a setuid root binary from raising an unprivileged
// user's effective ID; without it the same binary does (which shows that the
// check can fail).
func TestAccContainer_noNewPrivilegesBlocksSetuid(t *testing.T) {
	name := acctest.Name(t)
	config := func(nnp bool) string {
		return acctest.Config(name, fmt.Sprintf(`
  network_mode      = "none"
  user              = "65534:65534"
  no_new_privileges = %t
`, nnp))
	}
	euid := func(want string) statecheck.StateCheck {
		return acctest.ExpectInside(t, addr, func(ctx context.Context, id string) error {
			out, err := acctest.ExecOK(ctx, t, id, "/bin/euid")
			if err != nil || strings.TrimSpace(out) != want {
				return fmt.Errorf("setuid root binary ran with effective ID %q (%s), want %s", out, acctest.ErrText(err), want)
			}
			return nil
		})
	}
	acctest.Test(t, []resource.TestStep{
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
	name := acctest.Name(t)
	acctest.Test(t, []resource.TestStep{{
		Config: acctest.Config(name, `
  network_mode = "none"
  cap_drop     = ["ALL"]
  cap_add      = ["CHOWN", "KILL"]
`),
		ConfigStateChecks: []statecheck.StateCheck{
			statecheck.ExpectKnownValue(addr, attr("cap_add"), knownvalue.SetExact([]knownvalue.Check{
				knownvalue.StringExact("CHOWN"), knownvalue.StringExact("KILL"),
			})),
			acctest.ExpectInside(t, addr, func(ctx context.Context, id string) error {
				status, err := acctest.ExecOK(ctx, t, id, "cat", "/proc/self/status")
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
	name := acctest.Name(t)
	acctest.RequireAcc(t)
	steps := []resource.TestStep{
		{
			Config: acctest.Config(name, `
  network_mode     = "none"
  security_opts    = ["seccomp=unconfined"]
  allow_unconfined = true
`),
			ConfigStateChecks: []statecheck.StateCheck{
				acctest.ExpectInside(t, addr, func(ctx context.Context, id string) error {
					status, err := acctest.ExecOK(ctx, t, id, "cat", "/proc/self/status")
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
	}
	steps = append(steps, inlineProfileSteps(t, name)...)
	acctest.Test(t, steps)
}

// inlineProfileSteps apply an allow-by-default profile given inline, which
// is unconfined in effect: with the escape hatch, root in a user namespace
// is one call away. Podman refuses inline profiles at plan time.
func inlineProfileSteps(t *testing.T, name string) []resource.TestStep {
	config := acctest.Config(name, `
  network_mode     = "none"
  security_opts    = ["seccomp={\"defaultAction\":\"SCMP_ACT_ALLOW\"}"]
  allow_unconfined = true
`)
	if acctest.IsPodman(t) {
		return []resource.TestStep{{
			Config:      config,
			PlanOnly:    true,
			ExpectError: acctest.Phrase("reads a seccomp= value as the path of a profile"),
		}}
	}
	return []resource.TestStep{
		{
			Config: config,
			ConfigStateChecks: []statecheck.StateCheck{
				acctest.ExpectInside(t, addr, func(ctx context.Context, id string) error {
					out, err := acctest.ExecOK(ctx, t, id, "unshare", "-U", "-r", "id", "-u")
					if err != nil || strings.TrimSpace(out) != "0" {
						return fmt.Errorf("unshare -U -r under an allow-by-default profile gave %q (%s), want uid 0",
							out, acctest.ErrText(err))
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
	}
}

// unshareBlocked reports whether the sandbox named name is refused a user
// namespace (unshare -U -r), as Docker's default seccomp profile refuses
// one without CAP_SYS_ADMIN.
func unshareBlocked(ctx context.Context, t *testing.T, name string) (bool, error) {
	res, err := acctest.Exec(ctx, t, name, "unshare", "-U", "-r", "id", "-u")
	if err != nil {
		return false, err
	}
	return res.ExitCode != 0, nil
}

// Under Docker's default seccomp profile a sandbox cannot create a user
// namespace. Podman's stock profile lets one through: the plan of a new
// sandbox there says so, with the fix, and naming Docker's profile on the
// Podman host (security_opts = ["seccomp=/path"]) closes it.
func TestAccContainer_defaultSeccompBlocksUserNamespaces(t *testing.T) {
	name := acctest.Name(t)
	ctx := context.Background()
	tf := acctest.NewCLI(t, acctest.Config(name, `  network_mode = "none"`))
	t.Cleanup(func() { tf.Run("destroy", "-auto-approve") })
	plan := acctest.Flatten(tf.Run("plan"))
	weak := acctest.DefaultSeccomp(t).AllowsUserNamespaces
	if warned := strings.Contains(plan, "Sandbox can create user namespaces"); warned != weak {
		t.Fatalf("the engine's profile lets user namespaces through: %v; the plan warns: %v:\n%s", weak, warned, plan)
	}
	tf.Run("apply", "-auto-approve")
	if blocked, err := unshareBlocked(ctx, t, name); err != nil || blocked == weak {
		t.Fatalf("unshare -U -r refused: %v (%v), want %v", blocked, err, !weak)
	}
	if !weak {
		return
	}
	for _, want := range []string{"seccomp_profile", "seccomp=/"} {
		if !strings.Contains(plan, want) {
			t.Errorf("the warning does not give the fix %q:\n%s", want, plan)
		}
	}
	tf.SetConfig(acctest.Config(name, fmt.Sprintf("  network_mode = \"none\"\n  security_opts = [%q]\n",
		"seccomp="+acctest.DockerSeccompProfile(t))))
	if plan := acctest.Flatten(tf.Run("apply", "-auto-approve")); strings.Contains(plan, "user namespaces") {
		t.Errorf("the plan still warns with a profile named:\n%s", plan)
	}
	if blocked, err := unshareBlocked(ctx, t, name); err != nil || !blocked {
		t.Fatalf("with Docker's profile named on the Podman host, unshare -U -r was not refused (%v)", err)
	}
	if plan := tf.Run("plan"); !strings.Contains(plan, "No changes") {
		t.Errorf("the plan after naming the profile is not empty:\n%s", plan)
	}
}

// Choosing a runtime runs the sandbox under it: with runsc, gVisor's kernel
// answers inside, not the host's.
func TestAccContainer_gVisorRuntime(t *testing.T) {
	name := acctest.Name(t)
	if acctest.RequireAcc(t); acctest.IsPodman(t) {
		// Podman's Docker-compatible API would run runc instead: refused
		// at plan time, before anything is created.
		acctest.Test(t, []resource.TestStep{{
			Config: acctest.Config(name, `
  network_mode = "none"
  runtime      = "runsc"
`),
			PlanOnly:    true,
			ExpectError: acctest.Phrase("whose Docker-compatible API ignores the runtime"),
		}})
		acctest.ExpectNoContainers(t, name, "the refused plan")
		return
	}
	gvisor := func(memory int) string {
		return acctest.Config(name, fmt.Sprintf("  network_mode = \"none\"\n  runtime      = \"runsc\"\n  memory       = %d\n", memory))
	}
	acctest.Test(t, []resource.TestStep{{
		Config: gvisor(256),
		ConfigStateChecks: []statecheck.StateCheck{
			statecheck.ExpectKnownValue(addr, attr("runtime"), knownvalue.StringExact("runsc")),
			acctest.ExpectIsolated(t, addr),
			acctest.ExpectEngine(t, addr, func(c engine.Sandbox) error {
				if c.HostConfig.Runtime != "runsc" {
					return fmt.Errorf("runtime %q", c.HostConfig.Runtime)
				}
				return nil
			}),
			acctest.ExpectInside(t, addr, func(ctx context.Context, id string) error {
				out, err := acctest.ExecOK(ctx, t, id, "dmesg")
				if err != nil || !strings.Contains(out, "gVisor") {
					return fmt.Errorf("dmesg inside does not come from gVisor (%s):\n%s", acctest.ErrText(err), out)
				}
				return nil
			}),
		},
	}, {
		// Import reads the runtime back.
		ResourceName:      addr,
		ImportState:       true,
		ImportStateVerify: true,
	}, {
		// gVisor cannot change a running sandbox's limits: the engine says
		// the runtime is runsc, so the plan replaces it instead of failing
		// at apply.
		Config: gvisor(384),
		ConfigPlanChecks: resource.ConfigPlanChecks{
			PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionDestroyBeforeCreate)},
		},
		ConfigStateChecks: []statecheck.StateCheck{
			acctest.ExpectEngine(t, addr, func(c engine.Sandbox) error {
				if c.HostConfig.Runtime != "runsc" || c.HostConfig.Memory != 384*mib {
					return fmt.Errorf("runtime %q, memory %d", c.HostConfig.Runtime, c.HostConfig.Memory)
				}
				return nil
			}),
		},
	}})
}

// A capability that breaks containment is granted only with its escape
// hatch, and then really is; import reads the hatch back.
func TestAccContainer_unsafeCapabilityNeedsEscapeHatch(t *testing.T) {
	name := acctest.Name(t)
	acctest.Test(t, []resource.TestStep{
		{
			Config: acctest.Config(name, `
  network_mode              = "none"
  cap_add                   = ["SYS_ADMIN"]
  allow_unsafe_capabilities = true
`),
			ConfigStateChecks: []statecheck.StateCheck{
				acctest.ExpectInside(t, addr, func(ctx context.Context, id string) error {
					status, err := acctest.ExecOK(ctx, t, id, "cat", "/proc/self/status")
					if err != nil {
						return err
					}
					// CAP_SYS_ADMIN is bit 21.
					m := regexp.MustCompile(`CapEff:\s+([0-9a-f]+)`).FindStringSubmatch(status)
					if m == nil {
						return fmt.Errorf("no CapEff in:\n%s", status)
					}
					if caps, err := strconv.ParseUint(m[1], 16, 64); err != nil || caps&(1<<21) == 0 {
						return fmt.Errorf("SYS_ADMIN is not effective: CapEff %s", m[1])
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

// Under gVisor the limits cover the whole sandbox, gVisor's own kernel
// included: a process that outgrows memory takes the whole sandbox down
// (the engine's OOM kill of the sandbox), where under runc only that
// process dies (limitsEnforcedByKernel); with the default restart policy
// the sandbox comes back by itself.
func TestAccContainer_gVisorLimitsCoverTheWholeSandbox(t *testing.T) {
	name := acctest.Name(t)
	config := acctest.Config(name, `
  network_mode = "none"
  runtime      = "runsc"
  memory       = 64
  pids_limit   = 128
`)
	if acctest.RequireAcc(t); acctest.IsPodman(t) {
		acctest.Test(t, []resource.TestStep{{
			Config: config, PlanOnly: true,
			ExpectError: acctest.Phrase("whose Docker-compatible API ignores the runtime"),
		}})
		return
	}
	acctest.Test(t, []resource.TestStep{{
		Config: config,
		ConfigStateChecks: []statecheck.StateCheck{
			acctest.ExpectInside(t, addr, func(ctx context.Context, id string) error {
				// A detached exec, run by the engine alone: the provider's
				// exec restarts a gVisor sandbox when it is interrupted,
				// which would hide the engine's OOM kill.
				api := acctest.Docker(t)
				hog, err := api.ContainerExecCreate(ctx, id, container.ExecOptions{
					Cmd: []string{"sh", "-c", "head -c 200000000 /dev/zero | sort >/dev/null"},
				})
				if err == nil {
					err = api.ContainerExecStart(ctx, hog.ID, container.ExecStartOptions{Detach: true})
				}
				if err != nil {
					return err
				}
				for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(time.Second) {
					c := acctest.Inspect(t, id)
					if c.State.OOMKilled || c.RestartCount > 0 {
						return nil
					}
				}
				return fmt.Errorf("sorting 200 MB under memory = 64 did not take the gVisor sandbox down")
			}),
		},
	}})
}
