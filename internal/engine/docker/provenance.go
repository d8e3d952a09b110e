package docker

import (
	"context"
	"encoding/json"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/filters"
	"github.com/docker/docker/api/types/image"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
)

// BuiltByProvider reports whether img is an image the provider itself built
// (engine/labels.go): it carries the provider's ownership label and a build
// token, and its newest history entries are the build's label
// instructions, one of which set that token. An image that lists its
// build's labels (LabelBuildLabels) must have set exactly those, each once,
// in its newest entries.
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
	labels := img.Config.Labels
	if listed, ok := labels[engine.LabelBuildLabels]; ok {
		return newestEntriesSetExactly(history, listed, labels[engine.LabelBuildToken]), nil
	}
	return newestEntrySets(history, labels[engine.LabelBuildToken]), nil
}

// buildLabelKeys is the value of LabelBuildLabels for a build that sets
// labels (and LabelBuildLabels itself): their keys, sorted, as JSON.
func buildLabelKeys(labels map[string]string) string {
	keys := slices.Sorted(maps.Keys(labels))
	if _, ok := labels[engine.LabelBuildLabels]; !ok {
		keys = append(keys, engine.LabelBuildLabels)
		slices.Sort(keys)
	}
	out, _ := json.Marshal(keys) // strings always marshal
	return string(out)
}

// newestEntriesSetExactly reports whether the newest of an image's history
// entries are label instructions that set the keys listed (LabelBuildLabels'
// JSON), each exactly once and nothing else, the build token's with token.
// Docker's classic builder and Podman write one entry a label, in no set
// order; an entry for several labels passes too.
func newestEntriesSetExactly(history []image.HistoryResponseItem, listed, token string) bool {
	var keys []string
	if err := json.Unmarshal([]byte(listed), &keys); err != nil || !slices.Contains(keys, engine.LabelBuildToken) {
		return false
	}
	want := map[string]bool{}
	for _, k := range keys {
		want[k] = true
	}
	seen := map[string]bool{}
	for _, entry := range history {
		set, ok := labelKeys(entry.CreatedBy)
		if !ok {
			return false
		}
		for _, k := range set {
			if !want[k] || seen[k] {
				return false
			}
			seen[k] = true
			if k == engine.LabelBuildToken && !strings.Contains(entry.CreatedBy, token) {
				return false
			}
		}
		if len(seen) == len(want) {
			return true
		}
	}
	return false
}

// labelKeys are the keys a history entry sets when it is a label
// instruction: one unquoted key=value as Docker's classic builder writes
// it, or quoted "key"="value" pairs as Podman writes them.
func labelKeys(createdBy string) ([]string, bool) {
	_, rest, ok := strings.Cut(createdBy, "#(nop)")
	if !ok {
		return nil, false
	}
	rest, ok = strings.CutPrefix(strings.TrimSpace(rest), "LABEL ")
	if !ok {
		return nil, false
	}
	rest = strings.TrimSpace(rest)
	if !strings.HasPrefix(rest, `"`) {
		key, _, ok := strings.Cut(rest, "=")
		return []string{key}, ok && key != ""
	}
	var keys []string
	for rest != "" {
		key, after, ok := unquotePrefix(rest)
		if !ok {
			return nil, false
		}
		if after, ok = strings.CutPrefix(after, "="); !ok {
			return nil, false
		}
		if _, after, ok = unquotePrefix(after); !ok {
			return nil, false
		}
		keys = append(keys, key)
		rest = strings.TrimLeft(after, " ")
	}
	return keys, len(keys) > 0
}

// unquotePrefix reads the Go-quoted string s starts with, and what follows.
func unquotePrefix(s string) (string, string, bool) {
	quoted, err := strconv.QuotedPrefix(s)
	if err != nil {
		return "", "", false
	}
	value, err := strconv.Unquote(quoted)
	return value, s[len(quoted):], err == nil
}

// newestEntrySets is the proof for an image built before
// LabelBuildLabels: the newest of its history entries (the engine lists
// them newest first) are label instructions, and one of them set the build
// token token. Entries newer than the token's must all be labels too.
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
