package containerresource_test

import (
	"context"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/image"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/acctest"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
)

// A killed apply's sandboxes, whatever state holds them (here none: the
// state is lost with the run's directory), are found by `terraform query`:
// every one the provider made, and no foreign container that inherited the
// provider's labels from an image. The configuration it generates imports
// each by its identity, and the plan after the import is empty.
func TestAccContainer_queryFindsWhatAKilledApplyLeft(t *testing.T) {
	const count = 4
	name := acctest.Name(t)
	killed := acctest.NewCLI(t, acctest.CountConfig(name, count))
	// One create at a time: the kill lands after two are complete.
	apply := killed.Start("apply", "-auto-approve", "-parallelism=1")
	apply.WaitForCount(t, ": Creation complete", 2, 2*time.Minute)
	if err := apply.Cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_, _ = apply.Wait(2 * time.Minute)
	acctest.WaitForProviderExit(t, 2*time.Minute)

	left := provenNamed(t, name)
	if len(left) < 2 {
		t.Fatalf("the killed apply left %d sandboxes, want at least the 2 it completed", len(left))
	}
	foreign := runFromCommit(t, name, left[0])

	// A new directory, as after a lost state.
	tf := acctest.NewCLI(t, "provider \"sandbox\" {}\n")
	t.Cleanup(func() { tf.Run("destroy", "-auto-approve") })
	generated, _ := tf.Query(`
list "sandbox_container" "left" {
  provider         = sandbox
  include_resource = true
  config {
    name_prefix = "` + name + `"
  }
}
`)
	t.Logf("generated:\n%s", generated)
	found := regexp.MustCompile(`id\s*=\s*"([0-9a-f]{64})"`).FindAllStringSubmatch(generated, -1)
	var ids []string
	for _, m := range found {
		if !slices.Contains(ids, m[1]) {
			ids = append(ids, m[1])
		}
	}
	slices.Sort(ids)
	if !slices.Equal(ids, left) {
		t.Fatalf("terraform query found %v, want every sandbox the killed apply left, %v", ids, left)
	}
	if strings.Contains(generated, foreign) {
		t.Errorf("terraform query found the container run from a commit of a sandbox, %s", foreign)
	}

	tf.Run("apply", "-auto-approve")
	ids = nil
	for _, id := range tf.StateIDs() {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	if !slices.Equal(ids, left) {
		t.Fatalf("the import adopted %v, want %v", ids, left)
	}
	if out, err := tf.Try("plan", "-detailed-exitcode", "-no-color", "-input=false"); err != nil {
		t.Fatalf("the plan after the import is not empty (%v):\n%s", err, out)
	}
}

// provenNamed are the IDs of the containers named prefix* that carry the
// provider's create token, sorted.
func provenNamed(t *testing.T, prefix string) []string {
	t.Helper()
	var ids []string
	for _, c := range acctest.ContainersNamed(t, prefix) {
		if c.Labels[engine.LabelCreateToken] != "" {
			ids = append(ids, c.ID)
		}
	}
	slices.Sort(ids)
	return ids
}

// runFromCommit commits the sandbox id and runs a container from the
// commit, named prefix-from-commit, which inherits the provider's labels;
// it returns the container's ID.
func runFromCommit(t *testing.T, prefix, id string) string {
	t.Helper()
	ctx := context.Background()
	api := acctest.Docker(t)
	ref := prefix + "-commit:latest"
	committed, err := api.ContainerCommit(ctx, id, container.CommitOptions{Reference: ref, Config: &container.Config{}})
	if err != nil {
		t.Fatalf("docker commit of a sandbox: %v", err)
	}
	t.Cleanup(func() {
		_, _ = api.ImageRemove(ctx, committed.ID, image.RemoveOptions{Force: true, PruneChildren: true})
	})
	c, err := api.ContainerCreate(ctx, &container.Config{Image: ref}, &container.HostConfig{NetworkMode: "none"},
		nil, nil, prefix+"-from-commit")
	if err != nil {
		t.Fatalf("docker run of the commit: %v", err)
	}
	t.Cleanup(func() { _ = api.ContainerRemove(ctx, c.ID, container.RemoveOptions{Force: true}) })
	if labels := acctest.Inspect(t, c.ID).Config.Labels; labels[engine.LabelCreateToken] == "" {
		t.Fatalf("the container run from the commit did not inherit the provider's labels: %v", labels)
	}
	return c.ID
}
