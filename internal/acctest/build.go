package acctest

import (
	"archive/tar"
	"bytes"
	"context"
	"fmt"
	"io"
	"time"

	"github.com/docker/docker/api/types/build"
	"github.com/docker/docker/client"
	"github.com/docker/docker/pkg/jsonmessage"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine/docker"
)

// BuildByHand builds an image from the Dockerfile alone with the engine's
// classic builder, as a user's own build does, with opts' tags and labels,
// and returns an error the build's stream reports. Podman 4.3 fails a
// build when another image goes from its store while the build looks for
// one to take from its cache (docker.StoreRaceMessage): such a build is
// run again, up to three times, as the provider's own builds are.
func BuildByHand(ctx context.Context, api *client.Client, dockerfile string, opts build.ImageBuildOptions) error {
	opts.Version = build.BuilderV1
	opts.Remove, opts.ForceRemove = true, true
	var err error
	for attempt := 1; attempt <= 3; attempt++ {
		if err = buildOnce(ctx, api, dockerfile, opts); err == nil || !docker.StoreRaceMessage(err.Error()) {
			return err
		}
		time.Sleep(time.Duration(attempt) * time.Second)
	}
	return err
}

// buildOnce runs the build of BuildByHand once.
func buildOnce(ctx context.Context, api *client.Client, dockerfile string, opts build.ImageBuildOptions) error {
	var buildContext bytes.Buffer
	tw := tar.NewWriter(&buildContext)
	// Writing to a buffer never fails.
	_ = tw.WriteHeader(&tar.Header{Name: "Dockerfile", Mode: 0o644, Size: int64(len(dockerfile))})
	_, _ = tw.Write([]byte(dockerfile))
	_ = tw.Close()
	resp, err := api.ImageBuild(ctx, &buildContext, opts)
	if err != nil {
		return fmt.Errorf("building %v: %w", opts.Tags, err)
	}
	defer func() { _ = resp.Body.Close() }()
	if err := jsonmessage.DisplayJSONMessagesStream(resp.Body, io.Discard, 0, false, nil); err != nil {
		return fmt.Errorf("building %v: %w", opts.Tags, err)
	}
	return nil
}
