package engine

import (
	"context"
	"strings"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/filters"
	"github.com/docker/docker/api/types/image"
)

// Labels are not authenticated, and the engine passes them on: a child
// image built FROM one of the provider's images, a `docker commit` of one
// of its containers and a container run from either carry the provider's
// labels too. So a label proves ownership only where it cannot have been
// inherited:
//
//   - an image: the builder records the labels a build adds as the
//     image's newest history entries. An image the provider built has, among
//     them, the label that sets a build token (LabelBuildToken) fresh for
//     that build; a child image or a commit has newer entries of its own
//     (a child that adds nothing but labels passes, a gap the docs name).
//   - a container: the create token (LabelCreateToken) is fresh for each
//     create and set on the container, never on an image. A container whose
//     image carries the same token inherited it.
//
// Anyone who can use the engine's socket can still forge either on
// purpose: the proofs guard against inheritance, not against the engine's
// own users.

// LabelBuildToken carries a token unique to one build by the provider.
const LabelBuildToken = LabelPrefix + "build-token"

// BuiltByProvider reports whether img is an image the provider itself built
// (see above): it carries the provider's ownership label and a build token,
// and its newest history entries are the build's label instructions, one
// of which set that token.
func (c *Client) BuiltByProvider(ctx context.Context, img Image) (bool, error) {
	if img.Config == nil || !ManagedBy(img.Config.Labels) || img.Config.Labels[LabelBuildToken] == "" {
		return false, nil
	}
	var history []image.HistoryResponseItem
	err := c.within(ctx, "the request for an image's history", QuickCallTimeout, func(ctx context.Context) (err error) {
		history, err = c.api.ImageHistory(ctx, img.ID)
		return err
	})
	if err != nil {
		return false, err
	}
	return newestEntrySets(history, img.Config.Labels[LabelBuildToken]), nil
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
		if strings.Contains(by, LabelBuildToken) && strings.Contains(by, token) {
			return true
		}
	}
	return false
}

// CreatedByProvider reports whether a container's labels prove that the
// provider created it (see above), given the labels of its image.
func CreatedByProvider(labels, imageLabels map[string]string) bool {
	token := labels[LabelCreateToken]
	return ManagedBy(labels) && token != "" && imageLabels[LabelCreateToken] != token
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
			case err != nil && !IsNotFound(err):
				return nil, err
			}
			imageLabels[s.ImageID] = labels
		}
		if CreatedByProvider(s.Labels, labels) {
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
