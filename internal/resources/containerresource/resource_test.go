package containerresource_test

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"testing"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/client"
	"github.com/hashicorp/terraform-plugin-testing/compare"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/acctest"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/resources/containerresource"
)

func attr(name string) tfjsonpath.Path { return tfjsonpath.New(name) }

func TestAccContainer_isolatedCreateAndImport(t *testing.T) {
	name := acctest.Name(t)
	config := acctest.Config(name, `
  network_mode = "none"
  env          = { GREETING = "hello", EMPTY = "" }
  labels       = { team = "platform" }
  working_dir  = "/tmp"
  user         = "65534:65534"
`)
	acctest.Test(t, []resource.TestStep{
		{
			Config: config,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(addr, attr("network_mode"), knownvalue.StringExact("none")),
				statecheck.ExpectKnownValue(addr, attr("networks"),
					knownvalue.SetExact([]knownvalue.Check{knownvalue.StringExact("none")})),
				statecheck.ExpectKnownValue(addr, attr("running"), knownvalue.Bool(true)),
				statecheck.ExpectKnownValue(addr, attr("name"), knownvalue.StringExact(name)),
				statecheck.ExpectKnownValue(addr, attr("image_id"), knownvalue.StringRegexp(regexp.MustCompile(`^sha256:`))),
				statecheck.ExpectSensitiveValue(addr, attr("env")),
				acctest.ExpectIsolated(t, addr),
				acctest.ExpectEngine(t, addr, func(c engine.Sandbox) error {
					if c.Config.Labels[engine.LabelManagedBy] != engine.ManagedByValue {
						return fmt.Errorf("ownership label missing: %v", c.Config.Labels)
					}
					if c.Config.User != "65534:65534" || c.Config.WorkingDir != "/tmp" {
						return fmt.Errorf("user %q, working dir %q", c.Config.User, c.Config.WorkingDir)
					}
					if !slices.Contains(c.Config.Env, "GREETING=hello") {
						return fmt.Errorf("env %v lacks GREETING=hello", c.Config.Env)
					}
					return nil
				}),
			},
		},
		{
			// A second plan with nothing changed is empty.
			Config: config,
			ConfigPlanChecks: resource.ConfigPlanChecks{
				PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
			},
		},
		{
			ResourceName:      addr,
			ImportState:       true,
			ImportStateVerify: true,
		},
		{
			ResourceName:      addr,
			ImportState:       true,
			ImportStateId:     name,
			ImportStateVerify: true,
		},
	})
}

func TestAccContainer_invalidNetworkModeRejectedAtPlan(t *testing.T) {
	name := acctest.Name(t)
	var steps []resource.TestStep
	for _, mode := range []string{"bridge", "host", "container:other", "", "NONE", " none", "default"} {
		steps = append(steps, resource.TestStep{
			Config:      acctest.Config(name, fmt.Sprintf("  network_mode = %q", mode)),
			PlanOnly:    true,
			ExpectError: regexp.MustCompile(`(?s)network_mode.*value must be one of:.*"none"`),
		})
	}
	acctest.Test(t, steps)
	acctest.ExpectNoContainers(t, name, "an invalid network_mode")
}

func TestAccContainer_removedOutOfBandIsRecreatedIsolated(t *testing.T) {
	name := acctest.Name(t)
	config := acctest.Config(name, `  network_mode = "none"`)
	ids := statecheck.CompareValue(compare.ValuesDiffer())
	acctest.Test(t, []resource.TestStep{
		{
			Config:            config,
			ConfigStateChecks: []statecheck.StateCheck{ids.AddStateValue(addr, attr("id"))},
		},
		{
			PreConfig: acctest.OutOfBand(t, func(ctx context.Context, api *client.Client) error {
				return api.ContainerRemove(ctx, name, container.RemoveOptions{Force: true})
			}),
			Config: config,
			ConfigPlanChecks: resource.ConfigPlanChecks{
				PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionCreate)},
			},
			ConfigStateChecks: []statecheck.StateCheck{
				ids.AddStateValue(addr, attr("id")),
				statecheck.ExpectKnownValue(addr, attr("network_mode"), knownvalue.StringExact("none")),
				acctest.ExpectIsolated(t, addr),
			},
		},
	})
}

func TestAccContainer_reattachedToNetworkIsReplacedIsolated(t *testing.T) {
	name := acctest.Name(t)
	config := acctest.Config(name, `  network_mode = "none"`)
	ids := statecheck.CompareValue(compare.ValuesDiffer())
	reattached := false
	acctest.Test(t, []resource.TestStep{
		{
			Config:            config,
			ConfigStateChecks: []statecheck.StateCheck{ids.AddStateValue(addr, attr("id")), acctest.ExpectIsolated(t, addr)},
		},
		{
			// Docker lets a network-less container leave "none" and join
			// another network while still reporting mode "none"; Podman
			// refuses, and then nothing is planned.
			PreConfig: func() { reattached = acctest.Reattach(context.Background(), t, name) },
			Config:    config,
			ConfigPlanChecks: resource.ConfigPlanChecks{
				PreApply: []plancheck.PlanCheck{planIf(&reattached,
					[]plancheck.PlanCheck{
						plancheck.ExpectResourceAction(addr, plancheck.ResourceActionDestroyBeforeCreate),
						acctest.ExpectPriorValue{Address: addr, Attribute: "network_mode", Want: "bridge"},
						plancheck.ExpectKnownValue(addr, attr("network_mode"), knownvalue.StringExact("none")),
					},
					[]plancheck.PlanCheck{plancheck.ExpectEmptyPlan()})},
			},
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(addr, attr("networks"),
					knownvalue.SetExact([]knownvalue.Check{knownvalue.StringExact("none")})),
				acctest.ExpectIsolated(t, addr),
			},
		},
	})
}

// planIf runs the first checks when *cond holds once the plan is made,
// else the second.
func planIf(cond *bool, then, otherwise []plancheck.PlanCheck) plancheck.PlanCheck {
	return planChoice{cond, then, otherwise}
}

type planChoice struct {
	cond            *bool
	then, otherwise []plancheck.PlanCheck
}

func (p planChoice) CheckPlan(ctx context.Context, req plancheck.CheckPlanRequest, resp *plancheck.CheckPlanResponse) {
	checks := p.otherwise
	if *p.cond {
		checks = p.then
	}
	for _, c := range checks {
		c.CheckPlan(ctx, req, resp)
		if resp.Error != nil {
			return
		}
	}
}

func TestAccContainer_stoppedOrPausedIsStartedInPlace(t *testing.T) {
	name := acctest.Name(t)
	config := acctest.Config(name, `  network_mode = "none"`)
	sameID := statecheck.CompareValue(compare.ValuesSame())
	inPlace := resource.ConfigPlanChecks{
		PreApply: []plancheck.PlanCheck{
			plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
			acctest.ExpectPriorValue{Address: addr, Attribute: "running", Want: false},
			plancheck.ExpectKnownValue(addr, attr("running"), knownvalue.Bool(true)),
		},
	}
	pausedInPlace := inPlace
	if acctest.RequireAcc(t); !acctest.Facts(t).Pausable {
		pausedInPlace = resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}}
	}
	acctest.Test(t, []resource.TestStep{
		{
			Config:            config,
			ConfigStateChecks: []statecheck.StateCheck{sameID.AddStateValue(addr, attr("id"))},
		},
		{
			PreConfig: acctest.OutOfBand(t, func(ctx context.Context, api *client.Client) error {
				return api.ContainerStop(ctx, name, container.StopOptions{})
			}),
			Config:           config,
			ConfigPlanChecks: inPlace,
			ConfigStateChecks: []statecheck.StateCheck{
				sameID.AddStateValue(addr, attr("id")),
				statecheck.ExpectKnownValue(addr, attr("running"), knownvalue.Bool(true)),
				acctest.ExpectIsolated(t, addr),
			},
		},
		{
			// Where the engine cannot pause (rootless Podman on cgroup
			// v1), nothing changes and the plan is empty.
			PreConfig: func() {
				if paused, err := acctest.Pause(context.Background(), t, name); err != nil {
					t.Fatalf("out-of-band change: %v", err)
				} else if !paused {
					t.Log("the engine cannot pause a container")
				}
			},
			Config:           config,
			ConfigPlanChecks: pausedInPlace,
			ConfigStateChecks: []statecheck.StateCheck{
				sameID.AddStateValue(addr, attr("id")),
				acctest.ExpectEngine(t, addr, func(c engine.Sandbox) error {
					if c.State.Paused || !c.State.Running {
						return fmt.Errorf("status %q after apply", c.State.Status)
					}
					return nil
				}),
			},
		},
	})
}

func TestAccContainer_runningFalseStopsAndStarts(t *testing.T) {
	name := acctest.Name(t)
	sameID := statecheck.CompareValue(compare.ValuesSame())
	isState := func(status string) statecheck.StateCheck {
		return acctest.ExpectEngine(t, addr, func(c engine.Sandbox) error {
			if c.State.Status != status {
				return fmt.Errorf("status %q, want %q", c.State.Status, status)
			}
			return nil
		})
	}
	acctest.Test(t, []resource.TestStep{
		{
			Config: acctest.Config(name, "  network_mode = \"none\"\n  running = false"),
			ConfigStateChecks: []statecheck.StateCheck{
				sameID.AddStateValue(addr, attr("id")),
				statecheck.ExpectKnownValue(addr, attr("running"), knownvalue.Bool(false)),
				isState("created"),
			},
		},
		{
			Config: acctest.Config(name, `  network_mode = "none"`),
			ConfigPlanChecks: resource.ConfigPlanChecks{
				PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate)},
			},
			ConfigStateChecks: []statecheck.StateCheck{sameID.AddStateValue(addr, attr("id")), acctest.ExpectIsolated(t, addr)},
		},
		{
			Config: acctest.Config(name, "  network_mode = \"none\"\n  running = false\n  stop_timeout = 0"),
			ConfigPlanChecks: resource.ConfigPlanChecks{
				PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate)},
			},
			ConfigStateChecks: []statecheck.StateCheck{
				sameID.AddStateValue(addr, attr("id")),
				statecheck.ExpectKnownValue(addr, attr("stop_timeout"), knownvalue.Int64Exact(0)),
				isState("exited"),
			},
		},
	})
}

func TestAccContainer_renameInPlace(t *testing.T) {
	name := acctest.Name(t)
	sameID := statecheck.CompareValue(compare.ValuesSame())
	acctest.Test(t, []resource.TestStep{
		{
			Config:            acctest.Config(name, `  network_mode = "none"`),
			ConfigStateChecks: []statecheck.StateCheck{sameID.AddStateValue(addr, attr("id"))},
		},
		{
			Config: acctest.Config(name+"-renamed", `  network_mode = "none"`),
			ConfigPlanChecks: resource.ConfigPlanChecks{
				PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate)},
			},
			ConfigStateChecks: []statecheck.StateCheck{
				sameID.AddStateValue(addr, attr("id")),
				acctest.ExpectEngine(t, addr, func(c engine.Sandbox) error {
					if c.Name != "/"+name+"-renamed" {
						return fmt.Errorf("engine name %q", c.Name)
					}
					return nil
				}),
			},
		},
		{
			// Renamed back outside Terraform: the plan renames it again.
			PreConfig: acctest.OutOfBand(t, func(ctx context.Context, api *client.Client) error {
				return api.ContainerRename(ctx, name+"-renamed", name+"-elsewhere")
			}),
			Config: acctest.Config(name+"-renamed", `  network_mode = "none"`),
			ConfigPlanChecks: resource.ConfigPlanChecks{
				PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
					acctest.ExpectPriorValue{Address: addr, Attribute: "name", Want: name + "-elsewhere"},
				},
			},
			ConfigStateChecks: []statecheck.StateCheck{sameID.AddStateValue(addr, attr("id"))},
		},
	})
}

func TestAccContainer_addingNetworkModeForcesReplacement(t *testing.T) {
	name := acctest.Name(t)
	ids := statecheck.CompareValue(compare.ValuesDiffer())
	acctest.Test(t, []resource.TestStep{
		{
			// Without network_mode the engine's default network applies.
			Config: acctest.Config(name, ""),
			ConfigStateChecks: []statecheck.StateCheck{
				ids.AddStateValue(addr, attr("id")),
				statecheck.ExpectKnownValue(addr, attr("network_mode"), knownvalue.Null()),
				statecheck.ExpectKnownValue(addr, attr("networks"),
					knownvalue.SetExact([]knownvalue.Check{knownvalue.StringExact(acctest.DefaultNetwork(t))})),
			},
		},
		{
			Config: acctest.Config(name, `  network_mode = "none"`),
			ConfigPlanChecks: resource.ConfigPlanChecks{
				PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionDestroyBeforeCreate),
				},
			},
			ConfigStateChecks: []statecheck.StateCheck{ids.AddStateValue(addr, attr("id")), acctest.ExpectIsolated(t, addr)},
		},
	})
}

func TestAccContainer_importForeignContainerReflectsEngine(t *testing.T) {
	name := acctest.Name(t)
	config := acctest.Config(name, "  command = [\"sleep\", \"3600\"]\n  network_mode = \"none\"")
	acctest.Test(t, []resource.TestStep{
		{
			// A container made outside Terraform, on the default network.
			PreConfig: acctest.OutOfBand(t, func(ctx context.Context, api *client.Client) error {
				_, err := acctest.StartForeign(ctx, api, name, nil, "sleep", "3600")
				return err
			}),
			Config:             config,
			ResourceName:       addr,
			ImportState:        true,
			ImportStateId:      name,
			ImportStatePersist: true,
			ImportStateCheck: func(states []*terraform.InstanceState) error {
				if len(states) != 1 {
					return fmt.Errorf("%d states imported", len(states))
				}
				s := states[0].Attributes
				if _, ok := s["network_mode"]; ok && s["network_mode"] != "" {
					return fmt.Errorf("network_mode imported as %q, want null", s["network_mode"])
				}
				if s["command.#"] != "2" || s["command.0"] != "sleep" || s["init"] != "false" || s["name"] != name {
					return fmt.Errorf("imported state does not reflect the engine: %v", s)
				}
				return nil
			},
		},
		{
			// The configuration asks for isolation the imported container
			// lacks: the plan replaces it.
			Config: config,
			ConfigPlanChecks: resource.ConfigPlanChecks{
				PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionDestroyBeforeCreate),
					acctest.ExpectPriorValue{Address: addr, Attribute: "network_mode", Want: nil},
				},
			},
			ConfigStateChecks: []statecheck.StateCheck{acctest.ExpectIsolated(t, addr)},
		},
	})
}

func TestAccContainer_nameConflictLeavesOtherContainerAlone(t *testing.T) {
	name := acctest.Name(t)
	var foreignID string
	acctest.Test(t, []resource.TestStep{
		{
			PreConfig: acctest.OutOfBand(t, func(ctx context.Context, api *client.Client) (err error) {
				foreignID, err = acctest.StartForeign(ctx, api, name, &container.HostConfig{NetworkMode: "none"}, "sleep", "3600")
				return err
			}),
			Config:      acctest.Config(name, `  network_mode = "none"`),
			ExpectError: regexp.MustCompile(`(?s)Sandbox name already in use.*` + regexp.QuoteMeta(name) + `.*never adopts`),
		},
	})
	c := acctest.Inspect(t, name)
	if c.ID != foreignID || !c.State.Running {
		t.Fatalf("the container holding the name was changed: id %s (want %s), status %s", c.ID, foreignID, c.State.Status)
	}
	if list := acctest.ContainersNamed(t, name); len(list) != 1 {
		t.Fatalf("%d containers carry the name, want 1", len(list))
	}
}

func TestAccContainer_missingImageIsAClearError(t *testing.T) {
	name := acctest.Name(t)
	acctest.Test(t, []resource.TestStep{
		{
			Config: fmt.Sprintf(`
resource "sandbox_container" "test" {
  name         = %q
  image        = "tfsandbox/not-built-here:1"
  network_mode = "none"
}`, name),
			ExpectError: regexp.MustCompile(`(?s)Image not available.*not present on the Docker engine.*docker load`),
		},
	})
	acctest.ExpectNoContainers(t, name, "a missing image")
}

// A sandbox removed behind Terraform's back is dropped from the state at
// refresh, so destroy succeeds; and destroy works by ID, so a container that
// took the name meanwhile is left alone.
func TestAccContainer_destroyAfterOutOfBandRemoval(t *testing.T) {
	name := acctest.Name(t)
	var sandboxID, foreignID string
	acctest.Test(t, []resource.TestStep{
		{
			Config: acctest.Config(name, `  network_mode = "none"`),
			Check: func(s *terraform.State) error {
				sandboxID = s.RootModule().Resources[addr].Primary.ID
				return nil
			},
		},
		{
			PreConfig: acctest.OutOfBand(t, func(ctx context.Context, api *client.Client) (err error) {
				if err := api.ContainerRemove(ctx, name, container.RemoveOptions{Force: true}); err != nil {
					return err
				}
				foreignID, err = acctest.StartForeign(ctx, api, name, &container.HostConfig{NetworkMode: "none"}, "sleep", "3600")
				return err
			}),
			Config:  acctest.Config(name, `  network_mode = "none"`),
			Destroy: true,
		},
	})
	if _, err := acctest.Engine(t).InspectContainer(context.Background(), sandboxID); !engine.IsNotFound(err) {
		t.Fatalf("the removed sandbox %s: %s, want not found", sandboxID, acctest.ErrText(err))
	}
	if c := acctest.Inspect(t, name); c.ID != foreignID || !c.State.Running {
		t.Fatalf("destroy touched the container that took the name: id %s (want %s), status %s",
			c.ID, foreignID, c.State.Status)
	}
}

func TestAccContainer_stateFromBeforeNetworkModeUpgrades(t *testing.T) {
	name := acctest.Name(t)
	sameID := statecheck.CompareValue(compare.ValuesSame())
	resource.ParallelTest(t, resource.TestCase{
		PreCheck:     func() { acctest.PreCheck(t) },
		CheckDestroy: acctest.CheckDestroyed(t),
		Steps: []resource.TestStep{
			{
				// Written by schema version 0, which had no network_mode.
				ProtoV6ProviderFactories: acctest.ProviderFactoriesWith(containerresource.NewLegacyResourceV0),
				Config:                   acctest.Config(name, ""),
				ConfigStateChecks:        []statecheck.StateCheck{sameID.AddStateValue(addr, attr("id"))},
			},
			{
				// Read by the current version: the state upgrades, and with
				// the configuration keeping what version 0 created (it had no
				// no_new_privileges and no restart policy) the plan is empty.
				ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
				Config:                   acctest.Config(name, "  no_new_privileges = false\n  restart = \"no\""),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					sameID.AddStateValue(addr, attr("id")),
					statecheck.ExpectKnownValue(addr, attr("network_mode"), knownvalue.Null()),
					statecheck.ExpectKnownValue(addr, attr("no_new_privileges"), knownvalue.Bool(false)),
				},
			},
			{
				// With the defaults, the sandbox is replaced by a hardened,
				// isolated one.
				ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
				Config:                   acctest.Config(name, `  network_mode = "none"`),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction(addr, plancheck.ResourceActionDestroyBeforeCreate),
					},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					acctest.ExpectIsolated(t, addr),
					statecheck.ExpectKnownValue(addr, attr("no_new_privileges"), knownvalue.Bool(true)),
				},
			},
		},
	})
}

func TestAccContainer_failedStartLeavesNothingBehind(t *testing.T) {
	name := acctest.Name(t)
	acctest.Test(t, []resource.TestStep{
		{
			// Without the init process the engine itself fails to start
			// a missing executable.
			Config:      acctest.Config(name, "  network_mode = \"none\"\n  init = false\n  entrypoint = [\"/no/such/program\"]"),
			ExpectError: regexp.MustCompile(`(?s)Cannot start sandbox.*could not start it`),
		},
	})
	acctest.ExpectNoContainers(t, name, "a failed start")
}

func TestAccContainer_invalidArgumentsRejectedAtPlan(t *testing.T) {
	name := acctest.Name(t)
	image := fmt.Sprintf("image = %q", acctest.TestImage)
	named := fmt.Sprintf("name = %q\n  %s", name, image)
	cases := []struct{ body, want string }{
		{image + "\n  name = \"-leading-dash\"", `Attribute name must be at least two characters`},
		{image + "\n  name = \"x\"", `Attribute name must be at least two characters`},
		{`image = ""`, `Attribute image must be an image reference`},
		{named + "\n  labels = { \"tfsandbox.managed-by\" = \"me\" }", `labels.*must not start with\s+"tfsandbox\."`},
		{named + "\n  labels = { \"tfsandbox.gvisor-pids-limit\" = \"1000\" }", `labels.*must not start with\s+"tfsandbox\."`},
		{named + "\n  env = { \"A=B\" = \"c\" }", `env.*must be non-empty and contain no '='`},
		{named + "\n  stop_timeout = -1", `stop_timeout value must be at least 0`},
		{named + "\n  entrypoint = []", `entrypoint list must contain at least 1`},
		{named + "\n  command = []", `command list must contain at least 1`},
		{named + "\n  user = \"\"", `Attribute user must be a user name or ID`},
		{named + "\n  working_dir = \"\"", `Attribute working_dir must be an absolute path`},
	}
	steps := make([]resource.TestStep, len(cases))
	for i, c := range cases {
		steps[i] = resource.TestStep{
			Config:      fmt.Sprintf("resource \"sandbox_container\" \"test\" {\n  %s\n}\n", c.body),
			PlanOnly:    true,
			ExpectError: regexp.MustCompile(`(?s)` + c.want),
		}
	}
	acctest.Test(t, steps)
	acctest.ExpectNoContainers(t, name, "invalid arguments")
}
