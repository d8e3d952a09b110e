package resources_test

import (
	"context"
	"fmt"
	"regexp"
	"testing"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/network"
	"github.com/docker/docker/client"
	"github.com/hashicorp/terraform-plugin-testing/compare"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/resources"
)

const addr = "sandbox_container.test"

func attr(name string) tfjsonpath.Path { return tfjsonpath.New(name) }

func TestAccContainer_isolatedCreateAndImport(t *testing.T) {
	name := sandboxName(t)
	config := sandboxConfig(name, `
  network_mode = "none"
  env          = { GREETING = "hello", EMPTY = "" }
  labels       = { team = "platform" }
  working_dir  = "/tmp"
  user         = "65534:65534"
`)
	sandboxTest(t, []resource.TestStep{
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
				expectIsolated(t),
				expectEngine(t, func(c container.InspectResponse) error {
					if c.Config.Labels[resources.LabelManagedBy] != resources.ManagedByValue {
						return fmt.Errorf("ownership label missing: %v", c.Config.Labels)
					}
					if c.Config.User != "65534:65534" || c.Config.WorkingDir != "/tmp" {
						return fmt.Errorf("user %q, working dir %q", c.Config.User, c.Config.WorkingDir)
					}
					if !contains(c.Config.Env, "GREETING=hello") {
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
	name := sandboxName(t)
	var steps []resource.TestStep
	for _, mode := range []string{"bridge", "host", "container:other", "", "NONE", " none", "default"} {
		steps = append(steps, resource.TestStep{
			Config:      sandboxConfig(name, fmt.Sprintf("  network_mode = %q", mode)),
			PlanOnly:    true,
			ExpectError: regexp.MustCompile(`(?s)network_mode.*value must be one of:.*"none"`),
		})
	}
	sandboxTest(t, steps)
	if list := containersNamed(t, name); len(list) != 0 {
		t.Fatalf("an invalid network_mode created %d container(s)", len(list))
	}
}

func TestAccContainer_removedOutOfBandIsRecreatedIsolated(t *testing.T) {
	name := sandboxName(t)
	config := sandboxConfig(name, `  network_mode = "none"`)
	ids := statecheck.CompareValue(compare.ValuesDiffer())
	sandboxTest(t, []resource.TestStep{
		{
			Config:            config,
			ConfigStateChecks: []statecheck.StateCheck{ids.AddStateValue(addr, attr("id"))},
		},
		{
			PreConfig: outOfBand(t, func(ctx context.Context, api *client.Client) error {
				return api.ContainerRemove(ctx, name, container.RemoveOptions{Force: true})
			}),
			Config: config,
			ConfigPlanChecks: resource.ConfigPlanChecks{
				PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionCreate)},
			},
			ConfigStateChecks: []statecheck.StateCheck{
				ids.AddStateValue(addr, attr("id")),
				statecheck.ExpectKnownValue(addr, attr("network_mode"), knownvalue.StringExact("none")),
				expectIsolated(t),
			},
		},
	})
}

func TestAccContainer_reattachedToNetworkIsReplacedIsolated(t *testing.T) {
	name := sandboxName(t)
	config := sandboxConfig(name, `  network_mode = "none"`)
	ids := statecheck.CompareValue(compare.ValuesDiffer())
	sandboxTest(t, []resource.TestStep{
		{
			Config:            config,
			ConfigStateChecks: []statecheck.StateCheck{ids.AddStateValue(addr, attr("id")), expectIsolated(t)},
		},
		{
			// The engine lets a network-less container leave "none" and
			// join another network while still reporting mode "none".
			PreConfig: outOfBand(t, func(ctx context.Context, api *client.Client) error {
				if err := api.NetworkDisconnect(ctx, "none", name, false); err != nil {
					return err
				}
				return api.NetworkConnect(ctx, "bridge", name, &network.EndpointSettings{})
			}),
			Config: config,
			ConfigPlanChecks: resource.ConfigPlanChecks{
				PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionDestroyBeforeCreate),
					expectPriorValue{address: addr, attribute: "network_mode", want: "bridge"},
					plancheck.ExpectKnownValue(addr, attr("network_mode"), knownvalue.StringExact("none")),
				},
			},
			ConfigStateChecks: []statecheck.StateCheck{
				ids.AddStateValue(addr, attr("id")),
				statecheck.ExpectKnownValue(addr, attr("networks"),
					knownvalue.SetExact([]knownvalue.Check{knownvalue.StringExact("none")})),
				expectIsolated(t),
			},
		},
	})
}

func TestAccContainer_stoppedOrPausedIsStartedInPlace(t *testing.T) {
	name := sandboxName(t)
	config := sandboxConfig(name, `  network_mode = "none"`)
	sameID := statecheck.CompareValue(compare.ValuesSame())
	inPlace := resource.ConfigPlanChecks{
		PreApply: []plancheck.PlanCheck{
			plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
			expectPriorValue{address: addr, attribute: "running", want: false},
			plancheck.ExpectKnownValue(addr, attr("running"), knownvalue.Bool(true)),
		},
	}
	sandboxTest(t, []resource.TestStep{
		{
			Config:            config,
			ConfigStateChecks: []statecheck.StateCheck{sameID.AddStateValue(addr, attr("id"))},
		},
		{
			PreConfig: outOfBand(t, func(ctx context.Context, api *client.Client) error {
				return api.ContainerStop(ctx, name, container.StopOptions{})
			}),
			Config:           config,
			ConfigPlanChecks: inPlace,
			ConfigStateChecks: []statecheck.StateCheck{
				sameID.AddStateValue(addr, attr("id")),
				statecheck.ExpectKnownValue(addr, attr("running"), knownvalue.Bool(true)),
				expectIsolated(t),
			},
		},
		{
			PreConfig: outOfBand(t, func(ctx context.Context, api *client.Client) error {
				return api.ContainerPause(ctx, name)
			}),
			Config:           config,
			ConfigPlanChecks: inPlace,
			ConfigStateChecks: []statecheck.StateCheck{
				sameID.AddStateValue(addr, attr("id")),
				expectEngine(t, func(c container.InspectResponse) error {
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
	name := sandboxName(t)
	sameID := statecheck.CompareValue(compare.ValuesSame())
	isState := func(status string) statecheck.StateCheck {
		return expectEngine(t, func(c container.InspectResponse) error {
			if c.State.Status != status {
				return fmt.Errorf("status %q, want %q", c.State.Status, status)
			}
			return nil
		})
	}
	sandboxTest(t, []resource.TestStep{
		{
			Config: sandboxConfig(name, "  network_mode = \"none\"\n  running = false"),
			ConfigStateChecks: []statecheck.StateCheck{
				sameID.AddStateValue(addr, attr("id")),
				statecheck.ExpectKnownValue(addr, attr("running"), knownvalue.Bool(false)),
				isState("created"),
			},
		},
		{
			Config: sandboxConfig(name, `  network_mode = "none"`),
			ConfigPlanChecks: resource.ConfigPlanChecks{
				PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate)},
			},
			ConfigStateChecks: []statecheck.StateCheck{sameID.AddStateValue(addr, attr("id")), expectIsolated(t)},
		},
		{
			Config: sandboxConfig(name, "  network_mode = \"none\"\n  running = false\n  stop_timeout = 0"),
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
	name := sandboxName(t)
	sameID := statecheck.CompareValue(compare.ValuesSame())
	sandboxTest(t, []resource.TestStep{
		{
			Config:            sandboxConfig(name, `  network_mode = "none"`),
			ConfigStateChecks: []statecheck.StateCheck{sameID.AddStateValue(addr, attr("id"))},
		},
		{
			Config: sandboxConfig(name+"-renamed", `  network_mode = "none"`),
			ConfigPlanChecks: resource.ConfigPlanChecks{
				PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate)},
			},
			ConfigStateChecks: []statecheck.StateCheck{
				sameID.AddStateValue(addr, attr("id")),
				expectEngine(t, func(c container.InspectResponse) error {
					if c.Name != "/"+name+"-renamed" {
						return fmt.Errorf("engine name %q", c.Name)
					}
					return nil
				}),
			},
		},
		{
			// Renamed back outside Terraform: the plan renames it again.
			PreConfig: outOfBand(t, func(ctx context.Context, api *client.Client) error {
				return api.ContainerRename(ctx, name+"-renamed", name+"-elsewhere")
			}),
			Config: sandboxConfig(name+"-renamed", `  network_mode = "none"`),
			ConfigPlanChecks: resource.ConfigPlanChecks{
				PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
					expectPriorValue{address: addr, attribute: "name", want: name + "-elsewhere"},
				},
			},
			ConfigStateChecks: []statecheck.StateCheck{sameID.AddStateValue(addr, attr("id"))},
		},
	})
}

func TestAccContainer_addingNetworkModeForcesReplacement(t *testing.T) {
	name := sandboxName(t)
	ids := statecheck.CompareValue(compare.ValuesDiffer())
	sandboxTest(t, []resource.TestStep{
		{
			// Without network_mode the engine's default network applies.
			Config: sandboxConfig(name, ""),
			ConfigStateChecks: []statecheck.StateCheck{
				ids.AddStateValue(addr, attr("id")),
				statecheck.ExpectKnownValue(addr, attr("network_mode"), knownvalue.Null()),
				statecheck.ExpectKnownValue(addr, attr("networks"),
					knownvalue.SetExact([]knownvalue.Check{knownvalue.StringExact("bridge")})),
			},
		},
		{
			Config: sandboxConfig(name, `  network_mode = "none"`),
			ConfigPlanChecks: resource.ConfigPlanChecks{
				PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionDestroyBeforeCreate),
				},
			},
			ConfigStateChecks: []statecheck.StateCheck{ids.AddStateValue(addr, attr("id")), expectIsolated(t)},
		},
	})
}

func TestAccContainer_importForeignContainerReflectsEngine(t *testing.T) {
	name := sandboxName(t)
	config := sandboxConfig(name, "  command = [\"sleep\", \"3600\"]\n  network_mode = \"none\"")
	sandboxTest(t, []resource.TestStep{
		{
			// A container made outside Terraform, on the default network.
			PreConfig: outOfBand(t, func(ctx context.Context, api *client.Client) error {
				c, err := api.ContainerCreate(ctx, &container.Config{Image: testImage, Cmd: []string{"sleep", "3600"}},
					nil, nil, nil, name)
				if err != nil {
					return err
				}
				return api.ContainerStart(ctx, c.ID, container.StartOptions{})
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
					expectPriorValue{address: addr, attribute: "network_mode", want: nil},
				},
			},
			ConfigStateChecks: []statecheck.StateCheck{expectIsolated(t)},
		},
	})
}

func TestAccContainer_nameConflictLeavesOtherContainerAlone(t *testing.T) {
	name := sandboxName(t)
	var foreignID string
	sandboxTest(t, []resource.TestStep{
		{
			PreConfig: outOfBand(t, func(ctx context.Context, api *client.Client) error {
				c, err := api.ContainerCreate(ctx, &container.Config{Image: testImage, Cmd: []string{"sleep", "3600"}},
					&container.HostConfig{NetworkMode: "none"}, nil, nil, name)
				if err != nil {
					return err
				}
				foreignID = c.ID
				return api.ContainerStart(ctx, c.ID, container.StartOptions{})
			}),
			Config:      sandboxConfig(name, `  network_mode = "none"`),
			ExpectError: regexp.MustCompile(`(?s)Sandbox name already in use.*` + regexp.QuoteMeta(name) + `.*never adopts`),
		},
	})
	c := inspect(t, name)
	if c.ID != foreignID || !c.State.Running {
		t.Fatalf("the container holding the name was changed: id %s (want %s), status %s", c.ID, foreignID, c.State.Status)
	}
	if list := containersNamed(t, name); len(list) != 1 {
		t.Fatalf("%d containers carry the name, want 1", len(list))
	}
}

func TestAccContainer_missingImageIsAClearError(t *testing.T) {
	name := sandboxName(t)
	sandboxTest(t, []resource.TestStep{
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
	if list := containersNamed(t, name); len(list) != 0 {
		t.Fatalf("a missing image left %d container(s)", len(list))
	}
}

func TestAccContainer_destroyAfterOutOfBandRemoval(t *testing.T) {
	name := sandboxName(t)
	sandboxTest(t, []resource.TestStep{
		{Config: sandboxConfig(name, `  network_mode = "none"`)},
		{
			PreConfig: outOfBand(t, func(ctx context.Context, api *client.Client) error {
				return api.ContainerRemove(ctx, name, container.RemoveOptions{Force: true})
			}),
			Config:  sandboxConfig(name, `  network_mode = "none"`),
			Destroy: true,
		},
	})
}

func TestAccContainer_stateFromBeforeNetworkModeUpgrades(t *testing.T) {
	name := sandboxName(t)
	sameID := statecheck.CompareValue(compare.ValuesSame())
	resource.ParallelTest(t, resource.TestCase{
		PreCheck:     func() { preCheck(t) },
		CheckDestroy: checkDestroyed(t),
		Steps: []resource.TestStep{
			{
				// Written by schema version 0, which had no network_mode.
				ProtoV6ProviderFactories: legacyProviderFactories,
				Config:                   sandboxConfig(name, ""),
				ConfigStateChecks:        []statecheck.StateCheck{sameID.AddStateValue(addr, attr("id"))},
			},
			{
				// Read by the current version: the state upgrades, and with
				// the configuration keeping what version 0 created (it had no
				// no_new_privileges) the plan is empty.
				ProtoV6ProviderFactories: protoV6ProviderFactories,
				Config:                   sandboxConfig(name, `  no_new_privileges = false`),
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
				ProtoV6ProviderFactories: protoV6ProviderFactories,
				Config:                   sandboxConfig(name, `  network_mode = "none"`),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction(addr, plancheck.ResourceActionDestroyBeforeCreate),
					},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					expectIsolated(t),
					statecheck.ExpectKnownValue(addr, attr("no_new_privileges"), knownvalue.Bool(true)),
				},
			},
		},
	})
}

// sandboxTest runs acceptance steps with the current provider, failing
// without an engine and asking the engine at the end that every sandbox is
// gone.
func sandboxTest(t *testing.T, steps []resource.TestStep) {
	t.Helper()
	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { preCheck(t) },
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		CheckDestroy:             checkDestroyed(t),
		Steps:                    steps,
	})
}

func contains(list []string, s string) bool {
	for _, e := range list {
		if e == s {
			return true
		}
	}
	return false
}

func TestAccContainer_failedStartLeavesNothingBehind(t *testing.T) {
	name := sandboxName(t)
	sandboxTest(t, []resource.TestStep{
		{
			// Without the init process the engine itself fails to start
			// a missing executable.
			Config:      sandboxConfig(name, "  network_mode = \"none\"\n  init = false\n  entrypoint = [\"/no/such/program\"]"),
			ExpectError: regexp.MustCompile(`(?s)Cannot start sandbox.*could not start it`),
		},
	})
	if list := containersNamed(t, name); len(list) != 0 {
		t.Fatalf("a failed start left %d container(s)", len(list))
	}
}

func TestAccContainer_invalidArgumentsRejectedAtPlan(t *testing.T) {
	name := sandboxName(t)
	image := fmt.Sprintf("image = %q", testImage)
	named := fmt.Sprintf("name = %q\n  %s", name, image)
	cases := []struct{ body, want string }{
		{image + "\n  name = \"-leading-dash\"", `Attribute name must be at least two characters`},
		{image + "\n  name = \"x\"", `Attribute name must be at least two characters`},
		{`image = ""`, `image string length must be at least 1`},
		{named + "\n  labels = { \"tfsandbox.managed-by\" = \"me\" }", `labels.*value must be none of`},
		{named + "\n  env = { \"A=B\" = \"c\" }", `env.*must be non-empty and contain no '='`},
		{named + "\n  stop_timeout = -1", `stop_timeout value must be at least 0`},
		{named + "\n  entrypoint = []", `entrypoint list must contain at least 1`},
		{named + "\n  command = []", `command list must contain at least 1`},
		{named + "\n  user = \"\"", `user string length must be at least 1`},
		{named + "\n  working_dir = \"\"", `working_dir string length must be at least 1`},
	}
	steps := make([]resource.TestStep, len(cases))
	for i, c := range cases {
		steps[i] = resource.TestStep{
			Config:      fmt.Sprintf("resource \"sandbox_container\" \"test\" {\n  %s\n}\n", c.body),
			PlanOnly:    true,
			ExpectError: regexp.MustCompile(`(?s)` + c.want),
		}
	}
	sandboxTest(t, steps)
	if list := containersNamed(t, name); len(list) != 0 {
		t.Fatalf("invalid arguments created %d container(s)", len(list))
	}
}
