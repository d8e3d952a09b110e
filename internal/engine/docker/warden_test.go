package docker_test

import (
	"context"
	"testing"
	"time"

	"github.com/docker/docker/api/types/container"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/acctest"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine/docker"
)

// A warden made by another version of the provider is replaced by this
// version's at its next registration, and the new one holds every expiry
// the old one did beside the new: nothing it guarded is left unguarded.
// Against the engine under test (TF_ACC).
func TestAccWardenReplacedKeepsWhatItHeld(t *testing.T) {
	acctest.RequireAcc(t)
	acctest.PreCheck(t)
	acctest.RemoveWarden(t)
	ctx := context.Background()
	api := acctest.Docker(t)
	// Two provider processes, one of another version: two clients.
	client := func() *docker.Client {
		c, err := docker.New(docker.Config{})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	older, c := client(), client()
	name := acctest.Name(t)
	made := func(suffix string) string {
		resp, err := api.ContainerCreate(ctx, &container.Config{Image: acctest.TestImage, Cmd: []string{"sleep", "600"}},
			&container.HostConfig{NetworkMode: "none"}, nil, nil, name+suffix)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = api.ContainerRemove(ctx, resp.ID, container.RemoveOptions{Force: true}) })
		return resp.ID
	}
	first, second := made("-first"), made("-second")
	at := time.Now().Add(time.Hour).Truncate(time.Second).UTC()

	restore := docker.SetWardenVersion("0")
	err := older.ExpireAt(ctx, first, at)
	restore()
	if err != nil {
		t.Fatalf("registering with the older warden: %v", err)
	}
	if err := c.ExpireAt(ctx, second, at.Add(time.Hour)); err != nil {
		t.Fatalf("registering with this version's warden: %v", err)
	}
	held, err := c.Expiries(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !held[first].Equal(at) || !held[second].Equal(at.Add(time.Hour)) {
		t.Errorf("the warden holds %v, want %s at %s and %s an hour later", held, first, at, second)
	}
	warden, err := api.ContainerInspect(ctx, "tfsandbox-warden")
	if err != nil {
		t.Fatal(err)
	}
	if v := warden.Config.Labels[docker.WardenVersionLabel]; v == "0" {
		t.Errorf("the older warden was kept")
	}
}
