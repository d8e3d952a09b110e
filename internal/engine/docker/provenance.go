package docker

import (
	"context"
	"encoding/json"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

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
	if !engine.ManagedBy(img.Labels) || img.Labels[engine.LabelBuildToken] == "" {
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
	labels := img.Labels
	if listed, ok := labels[engine.LabelBuildLabels]; ok {
		if !newestEntriesSetExactly(history, listed, labels[engine.LabelBuildToken]) {
			return false, nil
		}
		return c.firstBuilt(ctx, img)
	}
	return newestEntrySets(history, labels[engine.LabelBuildToken]), nil
}

// firstBuilt reports whether img is the first image the engine made of
// those that carry its build token (engine/madeby.go): a build by hand
// that copies every label of the provider's image comes after it.
func (c *Client) firstBuilt(ctx context.Context, img engine.Image) (bool, error) {
	// Not the builder's intermediate images, which carry the labels of the
	// steps before them and were made first.
	list, err := c.listImages(ctx, image.ListOptions{Filters: filters.NewArgs(
		filters.Arg("label", engine.LabelBuildToken+"="+img.Labels[engine.LabelBuildToken]))})
	if err != nil {
		return false, err
	}
	made := make([]engine.Made, 0, len(list))
	for _, s := range list {
		made = append(made, engine.Made{ID: s.ID, Created: time.Unix(s.Created, 0)})
	}
	made, err = preciseFirst(ctx, made, func(ctx context.Context, id string) (string, error) {
		other, err := c.inspectImage(ctx, id)
		return other.Created, err
	})
	return err == nil && engine.FirstMade(img.ID, made), err
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

// createdByProvider keeps the containers of list that the provider can
// prove it created (engine/madeby.go): CreatedByProvider, asking the engine
// once for each image's labels (a container whose image is gone cannot
// have inherited from it now: its labels stand), made within its create's
// window, and the first the engine made of those that carry its token.
func (c *Client) createdByProvider(ctx context.Context, list []container.Summary) ([]container.Summary, error) {
	imageLabels := map[string]map[string]string{}
	var out []container.Summary
	for _, s := range list {
		labels, seen := imageLabels[s.ImageID]
		if !seen {
			var err error
			if labels, err = c.imageLabels(ctx, s.ImageID); err != nil {
				return nil, err
			}
			imageLabels[s.ImageID] = labels
		}
		if engine.CreatedByProvider(s.Labels, labels) && engine.MadeInWindow(s.Labels, createdAt(s.Created)) {
			out = append(out, s)
		}
	}
	if len(out) == 0 {
		return out, nil
	}
	holders, err := c.tokenHolders(ctx, "")
	if err != nil {
		return nil, err
	}
	return slices.DeleteFunc(out, func(s container.Summary) bool {
		return !engine.FirstMade(s.ID, holders[s.Labels[engine.LabelCreateToken]])
	}), nil
}

// ProvenanceOf says who made s: the provider where it can prove it, as
// createdByProvider does for a listing.
func (c *Client) ProvenanceOf(ctx context.Context, s engine.Sandbox) (engine.Provenance, error) {
	if s.Config == nil || !engine.CarriesProviderLabels(s.Config.Labels) {
		return engine.MadeByHand, nil
	}
	switch proven, err := c.provenContainer(ctx, s); {
	case err != nil:
		return 0, err
	case proven:
		return engine.MadeByProvider, nil
	}
	return engine.LabelsNotItsOwn, nil
}

// provenContainer reports whether the provider can prove it created s.
func (c *Client) provenContainer(ctx context.Context, s engine.Sandbox) (bool, error) {
	if !engine.ManagedBy(s.Config.Labels) || !engine.MadeInWindow(s.Config.Labels, s.Created) {
		return false, nil
	}
	imageLabels, err := c.imageLabels(ctx, s.Image)
	if err != nil || !engine.CreatedByProvider(s.Config.Labels, imageLabels) {
		return false, err
	}
	token := s.Config.Labels[engine.LabelCreateToken]
	holders, err := c.tokenHolders(ctx, token)
	return err == nil && engine.FirstMade(s.ID, holders[token]), err
}

// tokenHolders lists, by create token, the containers that carry one
// (token's alone, unless empty) and when the engine made each. The list
// gives creation times in whole seconds: where the first second of a
// token is shared, the engine's inspect data tells them apart.
func (c *Client) tokenHolders(ctx context.Context, token string) (map[string][]engine.Made, error) {
	filter := engine.LabelCreateToken
	if token != "" {
		filter += "=" + token
	}
	var list []container.Summary
	err := c.within(ctx, "the request to list containers", engine.QuickCallTimeout, func(ctx context.Context) (err error) {
		list, err = c.api.ContainerList(ctx, container.ListOptions{All: true, Filters: filters.NewArgs(filters.Arg("label", filter))})
		return err
	})
	if err != nil {
		return nil, err
	}
	holders := map[string][]engine.Made{}
	for _, s := range list {
		t := s.Labels[engine.LabelCreateToken]
		holders[t] = append(holders[t], engine.Made{ID: s.ID, Created: time.Unix(s.Created, 0)})
	}
	for t, made := range holders {
		if holders[t], err = preciseFirst(ctx, made, c.containerCreated); err != nil {
			return nil, err
		}
	}
	return holders, nil
}

// preciseFirst replaces, where several of made (listed by the engine in
// whole seconds) share the earliest second, their creation times by the
// precise ones created gives (RFC 3339); one gone meanwhile is left out,
// and one whose time does not parse keeps its second.
func preciseFirst(ctx context.Context, made []engine.Made,
	created func(ctx context.Context, id string) (string, error)) ([]engine.Made, error) {
	if len(made) < 2 {
		return made, nil
	}
	first := slices.MinFunc(made, func(a, b engine.Made) int { return a.Created.Compare(b.Created) }).Created
	out := made[:0]
	for _, m := range made {
		if m.Created.Equal(first) {
			at, err := created(ctx, m.ID)
			if engine.IsNotFound(err) {
				continue
			}
			if err != nil {
				return nil, err
			}
			if precise, err := time.Parse(time.RFC3339Nano, at); err == nil {
				m.Created = precise
			}
		}
		out = append(out, m)
	}
	return out, nil
}

// imageLabels are the labels of a container's image: none when the image
// is gone (a container cannot have inherited from it now).
func (c *Client) imageLabels(ctx context.Context, id string) (map[string]string, error) {
	img, err := c.inspectImage(ctx, id)
	switch {
	case err == nil:
		return img.Labels, nil
	case err != nil && !engine.IsNotFound(err):
		return nil, err
	}
	return nil, nil
}

// containerCreated is a container's creation time as the engine gives it.
func (c *Client) containerCreated(ctx context.Context, id string) (string, error) {
	s, err := c.InspectContainer(ctx, id)
	return s.Created, err
}

// createdAt is a container list's creation time (seconds since the epoch)
// in RFC 3339.
func createdAt(unix int64) string { return time.Unix(unix, 0).UTC().Format(time.RFC3339Nano) }

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
