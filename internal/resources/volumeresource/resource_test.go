package volumeresource_test

import (
	"context"
	"fmt"
	"regexp"
	"testing"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/mount"
	"github.com/docker/docker/api/types/volume"
	"github.com/docker/docker/client"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/acctest"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
)

func config(name, extra string) string {
	return fmt.Sprintf(`
resource "sandbox_volume" "test" {
  name = %q
%s
}
`, name, extra)
}

// provenOwn checks that the engine shows the volume with the user's labels,
// the provider's, and a create token.
func provenOwn(t *testing.T, name string) statecheck.StateCheck {
	return acctest.ExpectVolume(t, name, func(v engine.Volume) error {
		switch {
		case v.Labels["team"] != "agents":
			return fmt.Errorf("labels %v lack team=agents", v.Labels)
		case !engine.ManagedBy(v.Labels) || v.Labels[engine.LabelResourceType] != "sandbox_volume":
			return fmt.Errorf("labels %v lack the provider's", v.Labels)
		case len(v.Labels[engine.LabelCreateToken]) != 32:
			return fmt.Errorf("labels %v lack a create token", v.Labels)
		}
		return nil
	})
}

// A volume is created with its labels and the provider's, imported by
// name, created again (with a warning that its data is gone) when removed
// out of band, and left on destroy when asked to.
func TestAccVolume_lifecycle(t *testing.T) {
	name := acctest.Name(t)
	labelled := config(name, `  labels = { team = "agents" }`)
	acctest.Test(t, []resource.TestStep{
		{
			Config: labelled,
			ConfigStateChecks: []statecheck.StateCheck{
				provenOwn(t, name),
				statecheck.ExpectKnownValue(addr, tfjsonpath.New("id"), knownvalue.StringExact(name)),
				statecheck.ExpectKnownValue(addr, tfjsonpath.New("keep_on_destroy"), knownvalue.Bool(false)),
			},
		},
		{
			ResourceName: addr, ImportState: true, ImportStateId: name, ImportStateVerify: true,
		},
		{
			PreConfig: acctest.OutOfBand(t, func(ctx context.Context, api *client.Client) error {
				return api.VolumeRemove(ctx, name, false)
			}),
			Config: labelled,
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(addr, plancheck.ResourceActionCreate),
			}},
			ConfigStateChecks: []statecheck.StateCheck{provenOwn(t, name)},
		},
		{
			Config: config(name, "  labels = { team = \"agents\" }\n  keep_on_destroy = true"),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
			}},
		},
	})
	// keep_on_destroy left it (acctest.Name's cleanup removes it).
	if _, err := acctest.Engine(t).InspectVolume(context.Background(), name); err != nil {
		t.Fatalf("keep_on_destroy did not keep the volume: %v", err)
	}
}

// The plan of a volume removed out of band says that its data is gone.
func TestAccVolume_removedOutOfBandSaysDataIsGone(t *testing.T) {
	acctest.RequireAcc(t)
	name := acctest.Name(t)
	cli := acctest.NewCLI(t, config(name, ""))
	cli.Run("apply", "-auto-approve")
	if err := acctest.Docker(t).VolumeRemove(context.Background(), name, false); err != nil {
		t.Fatal(err)
	}
	out := acctest.Flatten(cli.Run("plan"))
	for _, want := range []string{"Volume removed outside Terraform", "its data is gone with it", "1 to add"} {
		if !acctest.Phrase(want).MatchString(out) {
			t.Errorf("the plan does not say %q:\n%s", want, out)
		}
	}
	cli.Run("destroy", "-auto-approve")
}

// A volume the provider did not make is never adopted, imported or
// removed: not one without labels, not one with the provider's labels
// copied onto it.
func TestAccVolume_foreignVolumeIsNeverTaken(t *testing.T) {
	for what, labels := range map[string]map[string]string{
		"unlabelled": {"tfsandbox.acctest": "foreign"},
		"copied-labels": {"tfsandbox.acctest": "foreign", engine.LabelManagedBy: engine.ManagedByValue,
			engine.LabelResourceType: "sandbox_volume"},
	} {
		t.Run(what, func(t *testing.T) { foreignVolumeIsNeverTaken(t, labels) })
	}
}

func foreignVolumeIsNeverTaken(t *testing.T, labels map[string]string) {
	acctest.RequireAcc(t)
	name := acctest.Name(t)
	{
		if _, err := acctest.Docker(t).VolumeCreate(context.Background(), volume.CreateOptions{Name: name, Labels: labels}); err != nil {
			t.Fatal(err)
		}
		want := "It was not made by this provider"
		if engine.ManagedBy(labels) {
			want = "It carries this provider's labels, but not this create's token"
		}
		acctest.Test(t, []resource.TestStep{
			{Config: config(name, ""), ExpectError: regexp.MustCompile(`(?s)Volume name taken.*` + acctest.Phrase(want).String() +
				`.*docker\s+-H\s+\S+\s+volume\s+rm\s+` + regexp.QuoteMeta(name))},
			{
				Config: config(name, ""), ResourceName: addr, ImportState: true, ImportStateId: name,
				ExpectError: acctest.Phrase("Volume not made by this provider"),
			},
		})
		v, err := acctest.Engine(t).InspectVolume(context.Background(), name)
		if err != nil || v.Labels["tfsandbox.acctest"] != "foreign" {
			t.Fatalf("the foreign volume was touched: %v %v", v.Labels, err)
		}
		if err := acctest.Docker(t).VolumeRemove(context.Background(), name, false); err != nil {
			t.Fatal(err)
		}
	}
}

// Destroying a volume that a container outside Terraform mounts is an
// error that names the container; the volume and its data stay.
func TestAccVolume_destroyInUseNamesTheContainers(t *testing.T) {
	name := acctest.Name(t)
	foreign := name + "-user"
	acctest.Test(t, []resource.TestStep{
		{Config: config(name, "")},
		{
			PreConfig: acctest.OutOfBand(t, func(ctx context.Context, api *client.Client) error {
				_, err := acctest.StartForeign(ctx, api, foreign, &container.HostConfig{
					NetworkMode: "none",
					Mounts:      []mount.Mount{{Type: mount.TypeVolume, Source: name, Target: "/data"}},
				}, "tail", "-f", "/dev/null")
				return err
			}),
			Config:      config(name, ""),
			Destroy:     true,
			ExpectError: regexp.MustCompile(`(?s)Volume in use.*` + regexp.QuoteMeta(foreign) + `.*keep_on_destroy`),
		},
		{
			PreConfig: acctest.OutOfBand(t, func(ctx context.Context, api *client.Client) error {
				return api.ContainerRemove(ctx, foreign, container.RemoveOptions{Force: true})
			}),
			Config:            config(name, ""),
			ConfigStateChecks: []statecheck.StateCheck{acctest.ExpectVolume(t, name, func(engine.Volume) error { return nil })},
		},
	})
}

// Names the engines refuse, names that read as an anonymous volume's, and
// the provider's own label keys are refused at plan.
func TestAccVolume_refusedAtPlan(t *testing.T) {
	cases := []struct{ name, extra, want string }{
		{"a", "", `must be two or more letters, digits`},
		{"-work", "", `must be two or more letters, digits`},
		{"my work", "", `must be two or more letters, digits`},
		{"0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef", "", `not 64 hex digits`},
		{"tfacc-ok", `  labels = { "tfsandbox.create-token" = "x" }`, `must not start with "tfsandbox."`},
	}
	var steps []resource.TestStep
	for _, c := range cases {
		steps = append(steps, resource.TestStep{
			Config: config(c.name, c.extra), PlanOnly: true,
			ExpectError: regexp.MustCompile(`(?s)` + regexp.QuoteMeta(c.want)),
		})
	}
	acctest.Test(t, steps)
}
