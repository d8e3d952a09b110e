package acctest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/docker/docker/api/types/image"
	"github.com/docker/docker/client"
)

// ListImages lists the images on the test engine that opts selects, and
// fails the test when the engine cannot list them: see listImages.
func ListImages(t *testing.T, opts image.ListOptions) []image.Summary {
	t.Helper()
	list, err := listImages(context.Background(), Docker(t), opts)
	if err != nil {
		t.Fatal(err)
	}
	return list
}

// listImages lists the images opts selects. Podman 4.3's list fails while
// another image is removed or a build commits one ("checking if image ...
// is dangling: ... image not known"), which under the parallel suite's
// load lasted more than 5 s once: it is asked again, for up to 30 s.
func listImages(ctx context.Context, api *client.Client, opts image.ListOptions) ([]image.Summary, error) {
	list, err := api.ImageList(ctx, opts)
	for attempt := 1; err != nil && attempt < 15 && ctx.Err() == nil; attempt++ {
		time.Sleep(2 * time.Second)
		list, err = api.ImageList(ctx, opts)
	}
	if err != nil {
		return nil, fmt.Errorf("listing images: %w", err)
	}
	return list, nil
}
