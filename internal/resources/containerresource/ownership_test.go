package containerresource_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/image"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/acctest"
)

// Labels the engine passes on prove nothing: a user's `docker commit` of a
// read-only sandbox with files (whose image carries the provider's labels
// for the derived image), and a container run from that commit (which
// inherits them, create token included), are neither listed by
// data "sandbox_containers" nor removed when the sandbox is replaced.
func TestAccContainer_inheritedLabelsProveNothing(t *testing.T) {
	name := acctest.Name(t)
	config := func(content string) string {
		return acctest.Config(name, `
  network_mode = "none"
  read_only    = true
  files        = { "/etc/agent.conf" = { content = "`+content+`" } }
`) + `
data "sandbox_containers" "mine" {
  name_prefix = "` + name + `"
  depends_on  = [sandbox_container.test]
}

output "listed" {
  value = [for c in data.sandbox_containers.mine.containers : c.name]
}
`
	}
	tf := acctest.NewCLI(t, config("v1"))
	t.Cleanup(func() { tf.Run("destroy", "-auto-approve") })
	tf.Run("apply", "-auto-approve")

	ctx := context.Background()
	api := acctest.Docker(t)
	commitRef := name + "-commit:latest"
	committed, err := api.ContainerCommit(ctx, name, container.CommitOptions{Reference: commitRef, Config: &container.Config{}})
	if err != nil {
		t.Fatalf("docker commit of the sandbox: %v", err)
	}
	// The replaced sandbox's derived image stays while the commit, its
	// child, does (below): it goes after the commit.
	var replacedDerived string
	t.Cleanup(func() {
		_, _ = api.ImageRemove(ctx, committed.ID, image.RemoveOptions{Force: true, PruneChildren: true})
		if replacedDerived != "" {
			_, _ = api.ImageRemove(ctx, replacedDerived, image.RemoveOptions{Force: true, PruneChildren: true})
		}
	})
	foreignName := name + "-from-commit"
	foreign, err := api.ContainerCreate(ctx, &container.Config{Image: commitRef}, &container.HostConfig{NetworkMode: "none"},
		nil, nil, foreignName)
	if err != nil {
		t.Fatalf("docker run of the commit: %v", err)
	}
	t.Cleanup(func() { _ = api.ContainerRemove(ctx, foreign.ID, container.RemoveOptions{Force: true}) })
	if labels := acctest.Inspect(t, foreign.ID).Config.Labels; labels["tfsandbox.create-token"] == "" {
		t.Fatalf("the container run from the commit did not inherit the provider's labels: %v", labels)
	}

	// The listing leaves it out.
	tf.Run("apply", "-auto-approve", "-refresh-only")
	var listed []string
	if err := json.Unmarshal([]byte(tf.Exact("output", "-json", "listed")), &listed); err != nil {
		t.Fatal(err)
	}
	if len(listed) != 1 || listed[0] != name {
		t.Errorf("data \"sandbox_containers\" lists %q, want only the sandbox %q", listed, name)
	}

	// New files replace the sandbox and its derived image; the commit and
	// the container run from it stay.
	before := acctest.Inspect(t, name).Image
	replacedDerived = before
	tf.SetConfig(config("v2"))
	tf.Run("apply", "-auto-approve")
	if _, err := api.ImageInspect(ctx, committed.ID); err != nil {
		t.Errorf("the user's commit of the sandbox is gone after the sandbox was replaced: %v", err)
	}
	if _, err := api.ContainerInspect(ctx, foreign.ID); err != nil {
		t.Errorf("the container run from the commit is gone after the sandbox was replaced: %v", err)
	}
	if after := acctest.Inspect(t, name).Image; after == before {
		t.Errorf("new files did not replace the sandbox's derived image (%s)", after)
	}
	// The replaced sandbox's own derived image stays too: the engine keeps
	// an image that has a child (the commit), and says so in a warning.
}
