package containersdatasource_test

import (
	"context"
	"fmt"
	"maps"
	"testing"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/mount"
	"github.com/docker/docker/client"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/acctest"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
)

// The data source reports each sandbox's mounts, flags the volumes that two
// sandboxes share where one can write (a channel between them), and the
// host paths mounted into a sandbox.
func TestAccContainersDataSource_reportsMountsAndSharing(t *testing.T) {
	name := acctest.Name(t)
	config := fmt.Sprintf(`
resource "sandbox_volume" "shared" {
  name = "%[1]s-shared"
}

resource "sandbox_volume" "own" {
  name = "%[1]s-own"
}

resource "sandbox_container" "writer" {
  name         = "%[1]s-a"
  image        = %[2]q
  network_mode = "none"
  mounts = {
    "/shared" = { volume = sandbox_volume.shared.name }
    "/own"    = { volume = sandbox_volume.own.name }
  }
}

resource "sandbox_container" "reader" {
  name         = "%[1]s-b"
  image        = %[2]q
  network_mode = "none"
  mounts = {
    "/shared" = { volume = sandbox_volume.shared.name, read_only = true }
  }
}

data "sandbox_containers" "test" {
  name_prefix = %[1]q
  depends_on  = [sandbox_container.writer, sandbox_container.reader]
}
`, name, acctest.TestImage)
	// A sandbox made as the provider makes them, outside any state, with a
	// host path mounted read-only.
	hostPathSandbox := acctest.OutOfBand(t, func(ctx context.Context, api *client.Client) error {
		labels := engine.OwnershipLabels("sandbox_container")
		maps.Copy(labels, map[string]string{engine.LabelCreateToken: engine.NewCreateToken()})
		c, err := api.ContainerCreate(ctx, &container.Config{
			Image: acctest.TestImage, Cmd: []string{"tail", "-f", "/dev/null"}, Labels: labels,
		}, &container.HostConfig{NetworkMode: "none", Mounts: []mount.Mount{
			{Type: mount.TypeBind, Source: "/usr/share", Target: "/host", ReadOnly: true},
		}}, nil, nil, name+"-c")
		if err != nil {
			return err
		}
		return api.ContainerStart(ctx, c.ID, container.StartOptions{})
	})
	sharedVolume := knownvalue.ListExact([]knownvalue.Check{knownvalue.StringExact(name + "-shared")})
	none := knownvalue.ListExact([]knownvalue.Check{})
	mountOf := func(target, volume string, readOnly bool) knownvalue.Check {
		return knownvalue.ObjectExact(map[string]knownvalue.Check{
			"target": knownvalue.StringExact(target), "volume": knownvalue.StringExact(volume),
			"host_path": knownvalue.Null(), "read_only": knownvalue.Bool(readOnly),
		})
	}
	acctest.Test(t, []resource.TestStep{{
		PreConfig: hostPathSandbox,
		Config:    config,
		ConfigStateChecks: []statecheck.StateCheck{
			statecheck.ExpectKnownValue(data, entry(0, "mounts"), knownvalue.ListExact([]knownvalue.Check{
				mountOf("/own", name+"-own", false), mountOf("/shared", name+"-shared", false),
			})),
			statecheck.ExpectKnownValue(data, entry(0, "shared_volumes"), sharedVolume),
			statecheck.ExpectKnownValue(data, entry(0, "host_paths"), none),
			statecheck.ExpectKnownValue(data, entry(1, "mounts"), knownvalue.ListExact([]knownvalue.Check{
				mountOf("/shared", name+"-shared", true),
			})),
			statecheck.ExpectKnownValue(data, entry(1, "shared_volumes"), sharedVolume),
			statecheck.ExpectKnownValue(data, entry(2, "name"), knownvalue.StringExact(name+"-c")),
			statecheck.ExpectKnownValue(data, entry(2, "host_paths"),
				knownvalue.ListExact([]knownvalue.Check{knownvalue.StringExact("/usr/share")})),
			statecheck.ExpectKnownValue(data, entry(2, "shared_volumes"), none),
		},
	}})
}
