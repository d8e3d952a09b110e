package containersdatasource_test

import (
	"context"
	"fmt"
	"maps"
	"regexp"
	"testing"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/client"
	"github.com/hashicorp/terraform-plugin-testing/compare"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/acctest"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
)

const data = "data.sandbox_containers.test"

func entry(i int, name string) tfjsonpath.Path {
	return tfjsonpath.New("containers").AtSliceIndex(i).AtMapKey(name)
}

// The data source lists the sandboxes the provider made, whether or not a
// state holds them, with the isolation verdict of the resource: one that
// lost its isolation reads isolated = false with the reason. A container
// the provider did not make is never listed; filters by name prefix and
// labels narrow the list; a sandbox_container's own shows its type.
func TestAccContainersDataSource_auditsIsolation(t *testing.T) {
	name := acctest.Name(t)
	acctest.RequireAcc(t)
	// Two sandboxes outside any state, made as the provider makes them,
	// and a container that is not the provider's.
	start := func(ctx context.Context, api *client.Client, suffix, team string, mode container.NetworkMode) error {
		labels := engine.OwnershipLabels("sandbox_container")
		maps.Copy(labels, map[string]string{"team": team, engine.LabelCreateToken: engine.NewCreateToken()})
		c, err := api.ContainerCreate(ctx, &container.Config{Image: acctest.TestImage, Cmd: []string{"tail", "-f", "/dev/null"},
			Labels: labels}, &container.HostConfig{NetworkMode: mode}, nil, nil, name+suffix)
		if err != nil {
			return err
		}
		return api.ContainerStart(ctx, c.ID, container.StartOptions{})
	}
	breach := "the engine has attached it to network \"bridge\""
	if acctest.IsPodman(t) {
		breach = "the engine reports network mode"
	}
	setUp := acctest.OutOfBand(t, func(ctx context.Context, api *client.Client) error {
		if err := start(ctx, api, "-a-isolated", "a", "none"); err != nil {
			return err
		}
		if acctest.IsPodman(t) {
			// Podman refuses to re-attach an isolated container: this one
			// was made with a network.
			if err := start(ctx, api, "-b-breached", "b", container.NetworkMode(acctest.DefaultNetwork(t))); err != nil {
				return err
			}
		} else {
			if err := start(ctx, api, "-b-breached", "b", "none"); err != nil {
				return err
			}
			acctest.Reattach(ctx, t, name+"-b-breached")
		}
		_, err := acctest.StartForeign(ctx, api, name+"-c-foreign", nil, "tail", "-f", "/dev/null")
		return err
	})
	dataConfig := func(filters string) string {
		return fmt.Sprintf("data \"sandbox_containers\" \"test\" {\n  name_prefix = %q\n%s\n}\n", name, filters)
	}
	acctest.Test(t, []resource.TestStep{{
		PreConfig: setUp,
		Config:    dataConfig(""),
		ConfigStateChecks: []statecheck.StateCheck{
			statecheck.ExpectKnownValue(data, tfjsonpath.New("containers"), knownvalue.ListSizeExact(2)),
			statecheck.ExpectKnownValue(data, entry(0, "name"), knownvalue.StringExact(name+"-a-isolated")),
			statecheck.ExpectKnownValue(data, entry(0, "isolated"), knownvalue.Bool(true)),
			statecheck.ExpectKnownValue(data, entry(0, "network_mode"), knownvalue.StringExact("none")),
			statecheck.ExpectKnownValue(data, entry(0, "reason"), knownvalue.Null()),
			statecheck.ExpectKnownValue(data, entry(0, "running"), knownvalue.Bool(true)),
			// Its own labels (the image's included), not the provider's.
			statecheck.ExpectKnownValue(data, entry(0, "labels"), knownvalue.MapPartial(map[string]knownvalue.Check{
				"team": knownvalue.StringExact("a"),
			})),
			statecheck.ExpectKnownValue(data, entry(1, "name"), knownvalue.StringExact(name+"-b-breached")),
			statecheck.ExpectKnownValue(data, entry(1, "isolated"), knownvalue.Bool(false)),
			statecheck.ExpectKnownValue(data, entry(1, "reason"), knownvalue.StringRegexp(regexp.MustCompile(regexp.QuoteMeta(breach)))),
			statecheck.ExpectKnownValue(data, entry(0, "labels"), noProviderLabels{}),
		},
	}, {
		Config: dataConfig("  labels = { team = \"b\" }"),
		ConfigStateChecks: []statecheck.StateCheck{
			statecheck.ExpectKnownValue(data, tfjsonpath.New("containers"), knownvalue.ListSizeExact(1)),
			statecheck.ExpectKnownValue(data, entry(0, "name"), knownvalue.StringExact(name+"-b-breached")),
		},
	}, {
		// A sandbox of this configuration is listed too, once it exists.
		Config: acctest.Config(name+"-d-managed", "  network_mode = \"none\"\n") +
			dataConfig("  depends_on = [sandbox_container.test]"),
		ConfigStateChecks: []statecheck.StateCheck{
			statecheck.ExpectKnownValue(data, tfjsonpath.New("containers"), knownvalue.ListSizeExact(3)),
			statecheck.ExpectKnownValue(data, entry(2, "name"), knownvalue.StringExact(name+"-d-managed")),
			statecheck.ExpectKnownValue(data, entry(2, "isolated"), knownvalue.Bool(true)),
			statecheck.ExpectKnownValue(data, entry(2, "resource_type"), knownvalue.StringExact("sandbox_container")),
			statecheck.CompareValuePairs(data, entry(2, "id"), "sandbox_container.test", tfjsonpath.New("id"), compareSame),
		},
	}})
}

var compareSame = compare.ValuesSame()

// noProviderLabels checks that a map of labels holds none of the
// provider's own.
type noProviderLabels struct{}

func (noProviderLabels) CheckValue(v any) error {
	labels, ok := v.(map[string]any)
	if !ok {
		return fmt.Errorf("labels are %T, not a map", v)
	}
	for k := range labels {
		if engine.IsProviderLabel(k) {
			return fmt.Errorf("the provider's label %s is listed", k)
		}
	}
	return nil
}

func (noProviderLabels) String() string { return "no provider labels" }
