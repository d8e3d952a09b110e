package containerresource_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/image"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/acctest"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
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

// A container made by hand with every label of a sandbox copied onto it,
// create token included, is not the provider's: data "sandbox_containers"
// does not count it, terraform query does not list it, an import of it is
// refused, and the destroy of the sandbox leaves it as it was. The
// sandbox itself, renamed and stopped out of band, stays provably the
// provider's.
func TestAccContainer_copiedLabelsProveNothing(t *testing.T) {
	name := acctest.Name(t)
	tf := acctest.NewCLI(t, acctest.Config(name, `
  network_mode = "none"
`)+`
data "sandbox_containers" "mine" {
  name_prefix = "`+name+`"
  depends_on  = [sandbox_container.test]
}

output "listed" {
  value = [for c in data.sandbox_containers.mine.containers : c.id]
}
`)
	t.Cleanup(func() { tf.Run("destroy", "-auto-approve") })
	tf.Run("apply", "-auto-approve")
	original := acctest.Inspect(t, name)

	ctx := context.Background()
	api := acctest.Docker(t)
	copyName := name + "-copy"
	made, err := api.ContainerCreate(ctx, &container.Config{Image: original.Config.Image, Labels: original.Config.Labels,
		Cmd: []string{"tail", "-f", "/dev/null"}}, &container.HostConfig{NetworkMode: "none"}, nil, nil, copyName)
	if err != nil {
		t.Fatalf("docker run of the copy: %v", err)
	}
	copyID := made.ID
	t.Cleanup(func() { _ = api.ContainerRemove(ctx, copyID, container.RemoveOptions{Force: true}) })
	if err := api.ContainerStart(ctx, copyID, container.StartOptions{}); err != nil {
		t.Fatal(err)
	}
	if labels := acctest.Inspect(t, copyID).Config.Labels; labels[engine.LabelCreateToken] != original.Config.Labels[engine.LabelCreateToken] {
		t.Fatalf("the copy does not carry the sandbox's create token: %v", labels)
	}
	// The sandbox is renamed and stopped by hand: drift, but still the
	// provider's own.
	if err := api.ContainerRename(ctx, original.ID, name+"-renamed"); err != nil {
		t.Fatal(err)
	}
	if err := api.ContainerStop(ctx, original.ID, container.StopOptions{}); err != nil {
		t.Fatal(err)
	}

	tf.Run("apply", "-auto-approve", "-refresh-only")
	var listed []string
	if err := json.Unmarshal([]byte(tf.Exact("output", "-json", "listed")), &listed); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(listed, []string{original.ID}) {
		t.Errorf("data \"sandbox_containers\" lists %v, want only the sandbox %s, not the copy %s", listed, original.ID, copyID)
	}

	query := acctest.NewCLI(t, "provider \"sandbox\" {}\n")
	generated, _ := query.Query(`
list "sandbox_container" "found" {
  provider         = sandbox
  include_resource = true
  config {
    name_prefix = "` + name + `"
  }
}
`)
	if !strings.Contains(generated, original.ID) || strings.Contains(generated, copyID) {
		t.Errorf("terraform query must find the sandbox %s and not the copy %s:\n%s", original.ID, copyID, generated)
	}
	acctest.Write(t, filepath.Join(query.Dir, "generated.tf"), acctest.Config(copyName, ""))
	out, err := query.Try("import", "-no-color", "-input=false", "sandbox_container.test", copyID)
	if err == nil || !acctest.Phrase("Sandbox not made by this provider").MatchString(out) ||
		!acctest.Phrase("import it instead").MatchString(out) {
		t.Errorf("importing the copy did not fail as it should (%v):\n%s", err, out)
	}

	tf.Run("destroy", "-auto-approve")
	after := acctest.Inspect(t, copyID)
	if !after.State.Running || after.Name != "/"+copyName {
		t.Errorf("the destroy changed the copy: running %v, name %s", after.State.Running, after.Name)
	}
	if _, err := api.ContainerInspect(ctx, original.ID); err == nil {
		t.Errorf("the destroy left the sandbox %s", original.ID)
	}
}
