package acctest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/filters"
	"github.com/docker/docker/api/types/image"
	"github.com/docker/docker/api/types/volume"
	"github.com/docker/docker/client"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
)

// namePrefix starts the name of every container the tests create.
const namePrefix = "tfacc-"

// labelTest marks the containers the tests create behind Terraform's back
// (the provider's own carry its ownership labels), so that the sweeper can
// tell them from containers that are not the tests'.
const labelTest = "tfsandbox.acctest"

// Name returns a container name unique to this test run and, when the test
// ends however it ends, removes every container whose name starts with it.
// A test skipped for want of TF_ACC contacts no engine.
func Name(t *testing.T) string {
	t.Helper()
	short := strings.ToLower(strings.TrimPrefix(t.Name(), "TestAcc"))
	short = strings.NewReplacer("/", "-", "_", "-").Replace(short)
	if len(short) > 30 {
		short = short[:30]
	}
	name := namePrefix + short + "-" + RandString(6)
	t.Cleanup(func() {
		if t.Skipped() || os.Getenv(resource.EnvTfAcc) == "" {
			return
		}
		ctx := context.Background()
		if err := removeNamed(ctx, Docker(t), name, false); err != nil {
			t.Errorf("cleanup: %v", err)
		}
		if err := removeVolumesNamed(ctx, Docker(t), name, false); err != nil {
			t.Errorf("cleanup: %v", err)
		}
	})
	return name
}

// removeVolumesNamed removes the volumes whose name starts with prefix;
// with provenOnly, only those that carry the provider's ownership label or
// the tests' own label.
func removeVolumesNamed(ctx context.Context, api *client.Client, prefix string, provenOnly bool) error {
	list, err := api.VolumeList(ctx, volume.ListOptions{})
	if err != nil {
		return fmt.Errorf("listing volumes: %w", err)
	}
	var errs []error
	for _, v := range list.Volumes {
		if !strings.HasPrefix(v.Name, prefix) || provenOnly && !engine.ManagedBy(v.Labels) && v.Labels[labelTest] == "" {
			continue
		}
		if err := api.VolumeRemove(ctx, v.Name, true); err != nil && !engine.IsNotFound(err) {
			errs = append(errs, fmt.Errorf("removing volume %s: %w", v.Name, err))
		}
	}
	return errors.Join(errs...)
}

// ContainersNamed lists the containers whose name starts with prefix.
func ContainersNamed(t *testing.T, prefix string) []container.Summary {
	t.Helper()
	list, err := listNamed(context.Background(), Docker(t), prefix)
	if err != nil {
		t.Fatal(err)
	}
	return list
}

// listNamed lists the containers, running or not, whose name starts with
// prefix.
func listNamed(ctx context.Context, api *client.Client, prefix string) ([]container.Summary, error) {
	list, err := api.ContainerList(ctx, container.ListOptions{
		// Docker matches the name with its leading slash, Podman without.
		All: true, Filters: filters.NewArgs(filters.Arg("name", "^/?"+prefix)),
	})
	if err != nil {
		return nil, fmt.Errorf("listing containers named %s*: %w", prefix, err)
	}
	return list, nil
}

// ExpectNoContainers fails the test when any container's name starts with
// prefix: what went before must have left nothing behind.
func ExpectNoContainers(t *testing.T, prefix, what string) {
	t.Helper()
	if list := ContainersNamed(t, prefix); len(list) != 0 {
		t.Fatalf("%s left %d container(s) named %s*", what, len(list), prefix)
	}
}

// removeNamed force-removes the containers whose name starts with prefix;
// with provenOnly, only those that carry the provider's ownership label or
// the tests' own label.
func removeNamed(ctx context.Context, api *client.Client, prefix string, provenOnly bool) error {
	list, err := listNamed(ctx, api, prefix)
	if err != nil {
		return err
	}
	var errs []error
	for _, c := range list {
		if provenOnly && !engine.ManagedBy(c.Labels) && c.Labels[labelTest] == "" {
			continue
		}
		if err := api.ContainerRemove(ctx, c.ID, container.RemoveOptions{Force: true}); err != nil {
			errs = append(errs, fmt.Errorf("removing %s: %w", c.ID, err))
		}
	}
	return errors.Join(errs...)
}

// sweep removes what crashed acceptance runs left on the engine: containers
// and volumes named with namePrefix that the provider's or the tests'
// labels prove are theirs, and the tags starting with namePrefix (only test runs make
// those). Run it with `make sweep`.
func sweep(string) error {
	if err := connect(); err != nil {
		return err
	}
	ctx := context.Background()
	return errors.Join(removeNamed(ctx, dockerAPI, namePrefix, true), removeHelpers(ctx, dockerAPI, "sandbox_volume"),
		removeHelpers(ctx, dockerAPI, "warden"), removeImagesNamed(ctx, dockerAPI, namePrefix),
		removeVolumesNamed(ctx, dockerAPI, namePrefix, true))
}

// RemoveIdleWarden removes now the expiry warden of the engine under
// test, for a test of how the provider makes one, which runs when no other
// test's sandbox with an expiry is there. A sandbox with an expiry that is
// still to come, or that runs, is another test's: the test fails naming
// it, since the warden it needs would serve this test instead of the one
// it means to make. One stopped past its expiry (left by a run that was
// killed) needs no warden now.
func RemoveIdleWarden(t *testing.T) {
	t.Helper()
	ctx := context.Background()
	expiring, err := expiringSandboxes(ctx, Docker(t))
	if err != nil {
		t.Fatalf("listing the sandboxes with an expiry: %v", err)
	}
	var guarded []string
	for _, c := range expiring {
		at, _ := time.Parse(time.RFC3339, c.Labels[engine.LabelExpiresAt])
		if c.State == container.StateRunning || c.State == container.StatePaused || at.After(time.Now()) {
			guarded = append(guarded, fmt.Sprintf("%v (%s, expires at %s)", c.Names, c.State, at.Format(time.RFC3339)))
		}
	}
	if len(guarded) > 0 {
		t.Fatalf("the engine has sandboxes with an expiry that its expiry warden guards, so this test cannot "+
			"begin without one: %s", strings.Join(guarded, ", "))
	}
	if err := removeHelpers(ctx, Docker(t), "warden"); err != nil {
		t.Fatalf("removing the expiry warden: %v", err)
	}
}

// expiringSandboxes are the containers, running or not, with an expiry.
func expiringSandboxes(ctx context.Context, api *client.Client) ([]container.Summary, error) {
	return api.ContainerList(ctx, container.ListOptions{All: true,
		Filters: filters.NewArgs(filters.Arg("label", engine.LabelExpiresAt))})
}

func removeIdleWarden(ctx context.Context, api *client.Client) error {
	expiring, err := expiringSandboxes(ctx, api)
	if err == nil && len(expiring) == 0 {
		err = removeHelpers(ctx, api, "warden")
	}
	return err
}

// RemoveWarden removes, when the test ends, the expiry warden its
// sandboxes had (a container and its image) on the engine under test,
// unless another test's sandbox with an expiry is still there: that
// test's cleanup removes it.
func RemoveWarden(t *testing.T) {
	t.Cleanup(func() {
		if err := removeIdleWarden(context.Background(), Docker(t)); err != nil {
			t.Errorf("cleanup: removing the expiry warden: %v", err)
		}
	})
}

// removeHelpers removes the containers and images the provider made
// beside the sandboxes with the resource type: the helpers that a
// volume's seeding left when a run crashed (sweep: no run is under way),
// or the expiry warden. Each listed one is checked for both labels: Podman
// 4.3 lists an image that carries either (it ORs label filters), and this
// removal, forced, took a sandbox_image of another test, and the sandbox
// that ran it, when a test with an expiry ended.
func removeHelpers(ctx context.Context, api *client.Client, resourceType string) error {
	want := map[string]string{engine.LabelManagedBy: engine.ManagedByValue, engine.LabelResourceType: resourceType}
	helpers := filters.NewArgs()
	for k, v := range want {
		helpers.Add("label", k+"="+v)
	}
	var errs []error
	list, err := api.ContainerList(ctx, container.ListOptions{All: true, Filters: helpers})
	errs = append(errs, err)
	for _, c := range list {
		if engine.HasLabels(c.Labels, want) {
			errs = append(errs, api.ContainerRemove(ctx, c.ID, container.RemoveOptions{Force: true}))
		}
	}
	images, err := listImages(ctx, api, image.ListOptions{Filters: helpers})
	errs = append(errs, err)
	for _, img := range images {
		if !engine.HasLabels(img.Labels, want) {
			continue
		}
		if _, err := api.ImageRemove(ctx, img.ID, image.RemoveOptions{Force: true, PruneChildren: true}); err != nil && !engine.IsNotFound(err) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// ImageName returns a name unique to this test run for the images a test
// builds (as Name, whose containers it also removes) and, when the test
// ends however it ends, removes every image tagged with a repository that
// starts with it.
func ImageName(t *testing.T) string {
	t.Helper()
	name := Name(t)
	t.Cleanup(func() {
		if t.Skipped() || os.Getenv(resource.EnvTfAcc) == "" {
			return
		}
		if err := removeImagesNamed(context.Background(), Docker(t), name); err != nil {
			t.Errorf("cleanup: %v", err)
		}
	})
	return name
}

// ImagesNamed lists the IDs of the images tagged with a repository that
// starts with prefix.
func ImagesNamed(t *testing.T, prefix string) []string {
	t.Helper()
	tags, err := tagsNamed(context.Background(), Docker(t), prefix)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, id := range tags {
		if !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	return ids
}

// tagsNamed maps the tags whose repository starts with prefix to the IDs
// of their images.
func tagsNamed(ctx context.Context, api *client.Client, prefix string) (map[string]string, error) {
	list, err := listImages(ctx, api, image.ListOptions{})
	if err != nil {
		return nil, err
	}
	tags := map[string]string{}
	for _, img := range list {
		for _, tag := range img.RepoTags {
			if strings.HasPrefix(engine.FamiliarTag(tag), prefix) {
				tags[tag] = img.ID
			}
		}
	}
	return tags, nil
}

// removeImagesNamed removes the tags whose repository starts with prefix,
// by tag, not by ID: an image with other tags (a test may tag the test
// image with the name) keeps them.
func removeImagesNamed(ctx context.Context, api *client.Client, prefix string) error {
	tags, err := tagsNamed(ctx, api, prefix)
	if err != nil {
		return err
	}
	var errs []error
	for tag := range tags {
		if _, err := api.ImageRemove(ctx, tag, image.RemoveOptions{Force: true, PruneChildren: true}); err != nil && !engine.IsNotFound(err) {
			errs = append(errs, fmt.Errorf("removing image %s: %w", tag, err))
		}
	}
	return errors.Join(errs...)
}
