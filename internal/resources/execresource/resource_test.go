package execresource_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/client"
	"github.com/hashicorp/terraform-plugin-testing/compare"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/acctest"
)

func attr(name string) tfjsonpath.Path { return tfjsonpath.New(name) }

// config is an isolated sandbox "test" (with extra container arguments)
// and a sandbox_exec "test" in it with the given arguments.
func config(name, containerExtra, execBody string) string {
	return acctest.Config(name, "  network_mode = \"none\"\n"+containerExtra) + fmt.Sprintf(`
resource "sandbox_exec" "test" {
  container_id = sandbox_container.test.id
%s
}
`, execBody)
}

// runs checks how many times the setup command has run in the sandbox.
func runs(t *testing.T, want int) statecheck.StateCheck {
	return acctest.ExpectInside(t, "sandbox_container.test", func(ctx context.Context, id string) error {
		out, err := acctest.ExecOK(ctx, t, id, "sh", "-c", "cat /work/runs 2>/dev/null | wc -l")
		if err != nil || strings.TrimSpace(out) != fmt.Sprint(want) {
			return fmt.Errorf("the command ran %q times (%s), want %d", strings.TrimSpace(out), acctest.ErrText(err), want)
		}
		return nil
	})
}

// The command runs once at create, with its environment, and its output is
// recorded; a plan runs nothing; a changed timeout is recorded in place; a
// changed trigger, a replaced sandbox and a sandbox removed behind
// Terraform's back each run it again; destroy leaves the sandbox alone.
func TestAccExec_runsOnceAndAgain(t *testing.T) {
	name := acctest.Name(t)
	setup := func(trigger, timeout, label string) string {
		return config(name, fmt.Sprintf("  labels = { round = %q }\n", label), fmt.Sprintf(`
  command  = ["sh", "-c", "mkdir -p /work && echo run >> /work/runs && echo \"setup $MARK in $(pwd)\" && echo careful >&2"]
  env      = { MARK = "a1" }
  working_dir = "/etc"
  triggers = { version = %q }
  timeout  = %q
`, trigger, timeout))
	}
	first := setup("1", "1m", "1")
	sameExec := statecheck.CompareValue(compareSame)
	acctest.Test(t, []resource.TestStep{{
		Config: first,
		ConfigStateChecks: []statecheck.StateCheck{
			statecheck.ExpectKnownValue(addr, attr("exit_code"), knownvalue.Int64Exact(0)),
			statecheck.ExpectKnownValue(addr, attr("stdout"), knownvalue.StringExact("setup a1 in /etc\n")),
			statecheck.ExpectKnownValue(addr, attr("stderr"), knownvalue.StringExact("careful\n")),
			statecheck.ExpectKnownValue(addr, attr("stdout_truncated"), knownvalue.Bool(false)),
			statecheck.ExpectKnownValue(addr, attr("sensitive_stdout"), knownvalue.Null()),
			sameExec.AddStateValue(addr, attr("id")),
			runs(t, 1),
		},
	}, {
		// Plans and refreshes run nothing.
		Config:            first,
		ConfigPlanChecks:  resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
		ConfigStateChecks: []statecheck.StateCheck{runs(t, 1)},
	}, {
		// A new timeout is recorded without running again.
		Config: setup("1", "2m", "1"),
		ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
			plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
		}},
		ConfigStateChecks: []statecheck.StateCheck{
			runs(t, 1), sameExec.AddStateValue(addr, attr("id")),
			statecheck.ExpectKnownValue(addr, attr("stdout"), knownvalue.StringExact("setup a1 in /etc\n")),
		},
	}, {
		// A changed trigger runs it again.
		Config: setup("2", "2m", "1"),
		ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
			plancheck.ExpectResourceAction(addr, plancheck.ResourceActionReplace),
			plancheck.ExpectResourceAction("sandbox_container.test", plancheck.ResourceActionNoop),
		}},
		ConfigStateChecks: []statecheck.StateCheck{runs(t, 2)},
	}, {
		// A replaced sandbox runs it again, in the new sandbox.
		Config: setup("2", "2m", "2"),
		ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
			plancheck.ExpectResourceAction("sandbox_container.test", plancheck.ResourceActionDestroyBeforeCreate),
			plancheck.ExpectResourceAction(addr, plancheck.ResourceActionReplace),
		}},
		ConfigStateChecks: []statecheck.StateCheck{runs(t, 1)},
	}, {
		// So does a sandbox removed behind Terraform's back.
		PreConfig: acctest.OutOfBand(t, func(ctx context.Context, api *client.Client) error {
			return api.ContainerRemove(ctx, name, container.RemoveOptions{Force: true})
		}),
		Config: setup("2", "2m", "2"),
		ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
			plancheck.ExpectResourceAction("sandbox_container.test", plancheck.ResourceActionCreate),
			plancheck.ExpectResourceAction(addr, plancheck.ResourceActionCreate),
		}},
		ConfigStateChecks: []statecheck.StateCheck{runs(t, 1)},
	}, {
		// Destroying the command leaves the sandbox as it is.
		Config:            acctest.Config(name, "  network_mode = \"none\"\n  labels = { round = \"2\" }\n"),
		ConfigPlanChecks:  resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction("sandbox_container.test", plancheck.ResourceActionNoop)}},
		ConfigStateChecks: []statecheck.StateCheck{runs(t, 1)},
	}})
}

// A non-zero exit fails the apply with the code and the end of the output,
// unless success_exit_codes accepts it; a command past its timeout is
// killed inside the sandbox, children included; a stopped sandbox is an
// error that says what to set.
func TestAccExec_failuresAndTimeouts(t *testing.T) {
	name := acctest.Name(t)
	failing := `  command = ["sh", "-c", "echo checking; echo 'boom: no config' >&2; exit 3"]`
	acctest.Test(t, []resource.TestStep{{
		Config: config(name, "", failing),
		ExpectError: regexp.MustCompile(`(?s)Command failed.*exited\s+3.*not\s+among\s+success_exit_codes\s+\[0\].*` +
			`End\s+of\s+its\s+standard\s+error:\s+boom: no config.*End\s+of\s+its\s+standard\s+output:\s+checking`),
	}, {
		Config: config(name, "", failing+"\n  success_exit_codes = [0, 3]"),
		ConfigStateChecks: []statecheck.StateCheck{
			statecheck.ExpectKnownValue(addr, attr("exit_code"), knownvalue.Int64Exact(3)),
			statecheck.ExpectKnownValue(addr, attr("stderr"), knownvalue.StringExact("boom: no config\n")),
		},
	}, {
		Config: config(name, "", `  command = ["sh", "-c", "sleep 300 & sleep 301"]
  timeout = "2s"`),
		ExpectError: regexp.MustCompile(`(?s)Command timed out.*longer\s+than\s+its\s+timeout\s+\(2s\).*its\s+processes\s+were\s+killed,\s+and\s+the\s+engine\s+lists\s+none\s+of\s+them\s+left`),
	}, {
		Config: acctest.Config(name, "  network_mode = \"none\"\n"),
		ConfigStateChecks: []statecheck.StateCheck{
			acctest.ExpectInside(t, "sandbox_container.test", func(ctx context.Context, id string) error {
				left, err := acctest.StillRunning(ctx, t, id, "sleep 30")
				if err != nil || len(left) > 0 {
					return fmt.Errorf("the timed-out command still runs (%s): %q", acctest.ErrText(err), left)
				}
				return nil
			}),
		},
	}, {
		Config:      config(name, "  running = false\n", `  command = ["true"]`),
		ExpectError: regexp.MustCompile(`(?s)Sandbox\s+is\s+not\s+running.*Set\s+running\s+=\s+true`),
	}})
}

// Output is bounded to 64 KiB a stream, with a flag saying it was cut, and
// sensitive_output keeps it out of the plain attributes and the errors.
func TestAccExec_output(t *testing.T) {
	name := acctest.Name(t)
	acctest.Test(t, []resource.TestStep{{
		Config: config(name, "", `  command = ["sh", "-c", "head -c 70000 /dev/zero | tr '\\0' a; echo short >&2"]`),
		ConfigStateChecks: []statecheck.StateCheck{
			statecheck.ExpectKnownValue(addr, attr("stdout"), knownvalue.StringExact(strings.Repeat("a", 64<<10))),
			statecheck.ExpectKnownValue(addr, attr("stdout_truncated"), knownvalue.Bool(true)),
			statecheck.ExpectKnownValue(addr, attr("stderr_truncated"), knownvalue.Bool(false)),
		},
	}, {
		Config: config(name, "", `  command = ["sh", "-c", "echo token-s3cr3t"]
  sensitive_output = true`),
		ConfigStateChecks: []statecheck.StateCheck{
			statecheck.ExpectKnownValue(addr, attr("stdout"), knownvalue.Null()),
			statecheck.ExpectKnownValue(addr, attr("sensitive_stdout"), knownvalue.StringExact("token-s3cr3t\n")),
		},
	}, {
		Config: config(name, "", `  command = ["sh", "-c", "echo token-s3cr3t; exit 1"]
  sensitive_output = true`),
		ExpectError: regexp.MustCompile(`(?s)Command failed.*standard\s+output\s+is\s+not\s+shown`),
	}})
}

var compareSame = compare.ValuesSame()

// The example of the docs applies as written (with a unique name) and
// gives the output it promises.
func TestAccExec_example(t *testing.T) {
	name := acctest.Name(t)
	example, err := os.ReadFile(filepath.Join(acctest.ModuleRoot(t), "examples", "resources", "sandbox_exec", "resource.tf"))
	if err != nil {
		t.Fatal(err)
	}
	config := strings.NewReplacer(
		`"agent-sandbox"`, fmt.Sprintf("%q", name),
		`"tfsandbox/busybox:latest"`, fmt.Sprintf("%q", acctest.TestImage),
	).Replace(string(example))
	acctest.Test(t, []resource.TestStep{{
		Config: config,
		ConfigStateChecks: []statecheck.StateCheck{
			statecheck.ExpectKnownOutputValue("setup_output", knownvalue.StringExact("set up\n")),
			acctest.ExpectInside(t, "sandbox_container.agent", func(ctx context.Context, id string) error {
				out, err := acctest.ExecOK(ctx, t, id, "cat", "/work/state")
				if err != nil || out != "ready\n" {
					return fmt.Errorf("/work/state = %q (%s)", out, acctest.ErrText(err))
				}
				return nil
			}),
		},
	}})
}

// Ctrl-C during a long command ends the apply and kills the command inside
// the sandbox, children included; it is not recorded, so the next apply
// runs it again.
func TestAccExec_ctrlCKillsTheCommand(t *testing.T) {
	name := acctest.Name(t)
	body := `  command = ["sh", "-c", "mkdir -p /work && echo run >> /work/runs && sleep 300 & sleep 301"]`
	tf := acctest.NewCLI(t, config(name, "", body))
	t.Cleanup(func() { tf.Run("destroy", "-auto-approve") })

	apply := tf.Start("apply", "-auto-approve")
	apply.WaitFor(t, "sandbox_exec.test: Creating...", time.Minute)
	time.Sleep(2 * time.Second)
	if err := apply.Cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	out, err := apply.Wait(time.Minute)
	if err == nil {
		t.Fatalf("the interrupted apply succeeded:\n%s", out)
	}
	left, err := acctest.StillRunning(context.Background(), t, name, "sleep 30")
	if err != nil || len(left) > 0 {
		t.Fatalf("the interrupted command still runs (%s): %q\napply said:\n%s", acctest.ErrText(err), left, out)
	}
	// Not recorded, so the next apply runs it again.
	if state := tf.Exact("state", "list"); strings.Contains(state, "sandbox_exec.test") {
		t.Fatalf("the interrupted command is in the state:\n%s", state)
	}
}
