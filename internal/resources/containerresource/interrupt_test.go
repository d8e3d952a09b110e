package containerresource_test

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/acctest"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/isolation"
)

// The engine makes the container but the answer never reaches the
// provider: the create fails, and what the engine made is found by its
// create token and removed.
func TestAccContainer_createCutOffAfterTheEngineMadeItLeavesNothing(t *testing.T) {
	name := acctest.Name(t)
	proxy := acctest.NewFaultyEngine(t)
	proxy.SetRule(acctest.On(acctest.IsContainerCreate, acctest.CutAfterForward))
	acctest.Test(t, []resource.TestStep{{
		Config:      proxy.ProviderBlock() + acctest.Config(name, `  network_mode = "none"`),
		ExpectError: regexp.MustCompile(`(?s)Cannot create sandbox.*` + regexp.QuoteMeta(proxy.Host)),
	}})
	if proxy.Count(acctest.CutAfterForward) != 1 {
		t.Fatalf("%d create requests were cut off, want 1", proxy.Count(acctest.CutAfterForward))
	}
	acctest.ExpectNoContainers(t, name, "a create whose answer was lost")
}

// The create is cut off and the engine is gone before the provider can
// remove what it made: the sandbox is recorded as tainted with the create's
// token, and the next apply, with the engine back, replaces that container
// with one isolated sandbox. Under a CLI that cannot save a failed create
// (Terraform 1.14 and later) it is not recorded instead
// (createCutOffNotRecorded).
func TestAccContainer_createCutOffWithTheEngineGoneConvergesOnTheNextApply(t *testing.T) {
	acctest.RequireAcc(t)
	name := acctest.Name(t)
	proxy := acctest.NewFaultyEngine(t)
	var gone atomic.Bool
	proxy.SetRule(func(r *http.Request) acctest.Fault {
		switch {
		case gone.Load():
			return acctest.Refuse
		case acctest.IsContainerCreate(r):
			gone.Store(true)
			return acctest.CutAfterForward
		}
		return acctest.Forward
	})
	config := proxy.ProviderBlock() + acctest.Config(name, `  network_mode = "none"`)
	if tf := acctest.TerraformCLI(t); !tf.SavesFailedCreates() {
		createCutOffNotRecorded(t, name, proxy, config)
		return
	}
	var leaked string
	acctest.Test(t, []resource.TestStep{
		{
			Config: config,
			ExpectError: regexp.MustCompile(`(?s)Cannot remove what the failed create left.*recorded in the state as ` +
				`tainted.*` + regexp.QuoteMeta(engine.LabelCreateToken)),
		},
		{
			PreConfig: func() {
				proxy.SetRule(func(*http.Request) acctest.Fault { return acctest.Forward })
				list := acctest.ContainersNamed(t, name)
				if len(list) != 1 || list[0].Labels[engine.LabelCreateToken] == "" {
					t.Fatalf("the cut-off create left %d containers named %s, want the one it made, with its token", len(list), name)
				}
				leaked = list[0].ID
			},
			Config: config,
			ConfigPlanChecks: resource.ConfigPlanChecks{
				PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionReplace)},
			},
			ConfigStateChecks: []statecheck.StateCheck{
				acctest.ExpectIsolated(t, addr),
				acctest.ExpectEngine(t, addr, func(c engine.Sandbox) error {
					if c.ID == leaked {
						return fmt.Errorf("the container the cut-off create left was kept")
					}
					if list := acctest.ContainersNamed(t, name); len(list) != 1 {
						return fmt.Errorf("%d containers named %s, want 1", len(list), name)
					}
					if _, err := acctest.Engine(t).InspectContainer(context.Background(), leaked); !engine.IsNotFound(err) {
						return fmt.Errorf("the leaked container %s: %s, want it removed", leaked, acctest.ErrText(err))
					}
					return nil
				}),
			},
		},
	})
}

// createCutOffNotRecorded: under a CLI that cannot save a failed create,
// the sandbox is not recorded, Terraform still writes its state, and the
// error gives the command that removes the container the create left.
// Once it is run, as a user would, the next apply creates one isolated
// sandbox.
func createCutOffNotRecorded(t *testing.T, name string, proxy *acctest.FaultyEngine, config string) {
	tf := acctest.NewCLI(t, config)
	t.Cleanup(func() { tf.Run("destroy", "-auto-approve") })
	out, err := tf.Try("apply", "-auto-approve", "-no-color", "-input=false")
	flat := acctest.Flatten(out)
	if err == nil || !strings.Contains(flat, "the sandbox is not recorded") || strings.Contains(flat, "Failed to serialize") {
		t.Fatalf("the cut-off create did not fail as it should (%v):\n%s", err, out)
	}
	if ids := tf.StateIDs(); len(ids) != 0 {
		t.Errorf("the cut-off create is in the state: %v", ids)
	}
	command := acctest.LeftByCreate.FindString(flat)
	if command == "" {
		t.Fatalf("the error gives no command that removes the container:\n%s", out)
	}
	proxy.SetRule(func(*http.Request) acctest.Fault { return acctest.Forward })
	if list := acctest.ContainersNamed(t, name); len(list) != 1 {
		t.Fatalf("the cut-off create left %d containers named %s, want the one it made", len(list), name)
	}
	acctest.RunByHand(t, command)
	acctest.ExpectNoContainers(t, name, "a create whose container was removed by hand")
	tf.Run("apply", "-auto-approve")
	ids := tf.ExpectOnlyStateContainers(name)
	if len(ids) != 1 || !isolation.Assess(acctest.Inspect(t, ids[0]).Network).Isolated {
		t.Errorf("after the next apply: %v, want one isolated sandbox", ids)
	}
}

// An apply of several sandboxes interrupted while they are being created,
// by Ctrl-C or by killing terraform, leaves no container of the provider's
// outside the state, and the provider does not outlive terraform; the next
// apply converges on every sandbox, once and isolated.
func TestAccContainer_cliInterruptedApplyConverges(t *testing.T) {
	for _, c := range []struct {
		name   string
		signal os.Signal
	}{{"ctrl-c", os.Interrupt}, {"kill", os.Kill}} {
		t.Run(c.name, func(t *testing.T) {
			const count = 6
			name := acctest.Name(t)
			proxy := acctest.NewFaultyEngine(t)
			// Slow starts keep every create under way when the signal lands.
			proxy.SetRule(acctest.On(acctest.IsContainerStart, acctest.Slow))
			tf := acctest.NewCLI(t, proxy.ProviderBlock()+acctest.CountConfig(name, count))
			t.Cleanup(func() { tf.Run("destroy", "-auto-approve") })

			apply := tf.Start("apply", "-auto-approve")
			apply.WaitFor(t, "Creating...", time.Minute)
			time.Sleep(time.Second)
			if err := apply.Cmd.Process.Signal(c.signal); err != nil {
				t.Fatal(err)
			}
			if out, err := apply.Wait(2 * time.Minute); err == nil {
				t.Fatalf("the interrupted apply succeeded:\n%s", out)
			}
			acctest.WaitForProviderExit(t, 2*time.Minute)
			tf.ExpectOnlyStateContainers(name)

			tf.Run("apply", "-auto-approve")
			ids := tf.ExpectOnlyStateContainers(name)
			if len(ids) != count {
				t.Fatalf("%d sandboxes after the second apply, want %d", len(ids), count)
			}
			for _, id := range ids {
				if v := isolation.Assess(acctest.Inspect(t, id).Network); !v.Isolated {
					t.Errorf("sandbox %s is not isolated: %s", id, v.Reason)
				}
			}
		})
	}
}

// A Ctrl-C during creates on an engine so loaded that removing a container
// takes longer than 10 s: each create's undo waits for the removal, so no
// container is left outside the state, and the apply still ends.
func TestAccContainer_ctrlCOnALoadedEngineLeavesNothing(t *testing.T) {
	const count = 3
	name := acctest.Name(t)
	proxy := acctest.NewFaultyEngine(t)
	proxy.SetRule(func(r *http.Request) acctest.Fault {
		switch {
		case acctest.IsContainerStart(r):
			return acctest.Slow
		case acctest.IsContainerRemove(r):
			return acctest.Loaded
		}
		return acctest.Forward
	})
	tf := acctest.NewCLI(t, proxy.ProviderBlock()+acctest.CountConfig(name, count))
	t.Cleanup(func() {
		proxy.SetRule(func(*http.Request) acctest.Fault { return acctest.Forward })
		tf.Run("destroy", "-auto-approve")
	})
	apply := tf.Start("apply", "-auto-approve")
	apply.WaitFor(t, "Creating...", time.Minute)
	time.Sleep(time.Second)
	if err := apply.Cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	if out, err := apply.Wait(2 * time.Minute); err == nil {
		t.Fatalf("the interrupted apply succeeded:\n%s", out)
	}
	acctest.WaitForProviderExit(t, time.Minute)
	if proxy.Count(acctest.Loaded) == 0 {
		t.Fatal("no removal met the loaded engine: the test proves nothing")
	}
	tf.ExpectOnlyStateContainers(name)
}
