package docker

import (
	"context"
	"strings"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/filters"
	"github.com/docker/docker/api/types/image"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
)

// BuiltByProvider reports whether img is an image the provider itself built
// (see above): it carries the provider's ownership label and a build token,
// and its newest history entries are the build's label instructions, one
// of which set that token.
func (c *Client) BuiltByProvider(ctx context.Context, img engine.Image) (bool, error) {
	if img.Config == nil || !engine.ManagedBy(img.Config.Labels) || img.Config.Labels[engine.LabelBuildToken] == "" {
		return false, nil
	}
	var history []image.HistoryResponseItem
	err := c.within(ctx, "the request for an image's history", engine.QuickCallTimeout, func(ctx context.Context) (err error) {
		history, err = c.api.ImageHistory(ctx, img.ID)
		return err
	})
	if err != nil {
		return false, err
	}
	return newestEntrySets(history, img.Config.Labels[engine.LabelBuildToken]), nil
}

// newestEntrySets reports whether the newest of an image's history entries
// (the engine lists them newest first) are the label instructions of the
// build that set the build token token. Podman writes one instruction for
// all of a build's labels, Docker's classic builder one for each, in no
// set order: the entries newer than the token's must all be labels too.
func newestEntrySets(history []image.HistoryResponseItem, token string) bool {
	for _, entry := range history {
		by := entry.CreatedBy
		if !strings.Contains(by, "#(nop)") || !strings.Contains(by, "LABEL") {
			return false
		}
		if strings.Contains(by, engine.LabelBuildToken) && strings.Contains(by, token) {
			return true
		}
	}
	return false
}

// createdByProvider keeps the containers of list that CreatedByProvider
// proves, asking the engine once for each image's labels. A container
// whose image is gone cannot have inherited from it now: its labels stand.
func (c *Client) createdByProvider(ctx context.Context, list []container.Summary) ([]container.Summary, error) {
	imageLabels := map[string]map[string]string{}
	var out []container.Summary
	for _, s := range list {
		labels, seen := imageLabels[s.ImageID]
		if !seen {
			img, err := c.inspectImage(ctx, s.ImageID)
			switch {
			case err == nil && img.Config != nil:
				labels = img.Config.Labels
			case err != nil && !engine.IsNotFound(err):
				return nil, err
			}
			imageLabels[s.ImageID] = labels
		}
		if engine.CreatedByProvider(s.Labels, labels) {
			out = append(out, s)
		}
	}
	return out, nil
}

// RemoveLeftBuilds removes the untagged images that the provider built
// with the label key=value and that nothing uses: what a build cut off on
// Podman left, whose API goes on with a build after its client is gone and
// leaves the image it then makes untagged. Images the provider did not
// build (BuiltByProvider), and ones still in use, stay.
func (c *Client) RemoveLeftBuilds(ctx context.Context, key, value string) error {
	list, err := c.listImages(ctx, image.ListOptions{Filters: filters.NewArgs(
		filters.Arg("dangling", "true"), filters.Arg("label", key+"="+value))})
	for _, summary := range list {
		id := summary.ID
		img, err := c.inspectImage(ctx, id)
		if err != nil {
			continue
		}
		if built, err := c.BuiltByProvider(ctx, img); err == nil && built && len(img.RepoTags) == 0 {
			_ = c.RemoveImage(ctx, id) // the engine keeps one in use
		}
	}
	return err
}
