package containerresource_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/docker/docker/api/types/container"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/acctest"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine/docker"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/isolation"
)

// Two provider configurations, one per engine: the engine under test and,
// through an alias, another (the TLS engine, or the local socket when the
// TLS engine is under test). Each sandbox lands on its engine, drift on one
// engine is repaired there only, and destroy cleans both.
func TestAccContainer_twoEnginesOneConfiguration(t *testing.T) {
	acctest.RequireAcc(t)
	name := acctest.Name(t)
	remoteArgs, remote := acctest.OtherEngine(t, name)
	local := acctest.Engine(t)
	config := fmt.Sprintf(`
provider "sandbox" {
  alias = "remote"
%[1]s}

resource "sandbox_container" "local" {
  name         = "%[2]s-local"
  image        = %[3]q
  network_mode = "none"
}

resource "sandbox_container" "remote" {
  provider     = sandbox.remote
  name         = "%[2]s-remote"
  image        = %[3]q
  network_mode = "none"
}
`, remoteArgs, name, acctest.TestImage)

	// The real terraform CLI: Terraform runs one provider process per
	// provider configuration, as users get it. (In-process test providers
	// serve every configuration from one instance.)
	tf := acctest.NewCLI(t, config)
	t.Cleanup(func() { tf.Run("destroy", "-auto-approve") })

	on := func(c *docker.Client, address string) string {
		t.Helper()
		id := tf.StateIDs()[address]
		got, err := c.InspectContainer(context.Background(), id)
		if err != nil {
			t.Fatalf("%s (%s) is not on %s: %v", address, id, c.Endpoint(), err)
		}
		if v := isolation.Assess(got.Network); !v.Isolated || !engine.IsRunning(got) {
			t.Fatalf("%s on %s: isolated %v (%s), running %v", address, c.Endpoint(), v.Isolated, v.Reason,
				engine.IsRunning(got))
		}
		return id
	}
	planned := func(want ...string) {
		t.Helper()
		plan := acctest.Flatten(tf.Run("plan"))
		for _, w := range want {
			if !strings.Contains(plan, w) {
				t.Fatalf("plan lacks %q:\n%s", w, plan)
			}
		}
		if strings.Contains(plan, "sandbox_container.local will") || strings.Contains(plan, "sandbox_container.local must") {
			t.Fatalf("the local sandbox is planned though only the remote engine drifted:\n%s", plan)
		}
	}

	tf.Run("apply", "-auto-approve")
	localID, remoteID := on(local, "sandbox_container.local"), on(remote, "sandbox_container.remote")
	if _, err := remote.InspectContainer(context.Background(), localID); err == nil {
		t.Fatal("the local sandbox is on the remote engine too")
	}

	// Stopped behind Terraform's back on the remote engine: only it is
	// planned, and apply starts it again there.
	if err := remote.DockerAPI().ContainerStop(context.Background(), remoteID, container.StopOptions{}); err != nil {
		t.Fatal(err)
	}
	planned("sandbox_container.remote will be updated in-place", "Plan: 0 to add, 1 to change, 0 to destroy.")
	tf.Run("apply", "-auto-approve")
	if on(local, "sandbox_container.local") != localID || on(remote, "sandbox_container.remote") != remoteID {
		t.Fatal("a sandbox was replaced where starting one was enough")
	}

	// Removed on the remote engine: recreated there, the local one left be.
	if err := remote.DockerAPI().ContainerRemove(context.Background(), remoteID,
		container.RemoveOptions{Force: true}); err != nil {
		t.Fatal(err)
	}
	planned("sandbox_container.remote will be created", "Plan: 1 to add, 0 to change, 0 to destroy.")
	tf.Run("apply", "-auto-approve")
	if on(local, "sandbox_container.local") != localID {
		t.Fatal("the local sandbox was replaced")
	}
	on(remote, "sandbox_container.remote")

	tf.Run("destroy", "-auto-approve")
	acctest.ExpectNoneOn(t, local, name, "destroy")
	acctest.ExpectNoneOn(t, remote, name, "destroy")
}
