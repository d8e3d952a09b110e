package container_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

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
	acctest.Test(t, []resource.TestStep{
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
	})
}

// Choosing a runtime runs the sandbox under it: with runsc, gVisor's kernel
// answers inside, not the host's.
func TestAccContainer_gVisorRuntime(t *testing.T) {
	name := acctest.Name(t)
	acctest.Test(t, []resource.TestStep{{
		Config: acctest.Config(name, `
  network_mode = "none"
  runtime      = "runsc"
`),
		ConfigStateChecks: []statecheck.StateCheck{
			statecheck.ExpectKnownValue(addr, attr("runtime"), knownvalue.StringExact("runsc")),
			acctest.ExpectIsolated(t, addr),
			acctest.ExpectEngine(t, addr, func(c engine.Container) error {
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
	}})
}
