package imageresource

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/framework/timeouts"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/framework/values"
)

// builtImage is the image a build of m gives, as the engine reports it:
// the labels build puts on it, tagged with tags.
func builtImage(m resourceModel, tags ...string) engine.Image {
	labels := m.imageLabels("sha256:feed")
	labels["from.the.base"] = "inherited"
	return engine.Image{ID: "sha256:0123456789ab", RepoTags: tags, Labels: labels}
}

// configured is a sandbox_image's configuration with context dir.
func configured(dir string) resourceModel {
	return resourceModel{
		Name: types.StringValue("agents/python"), KeepOnDestroy: types.BoolValue(true),
		buildModel: buildModel{Context: types.StringValue(dir), Dockerfile: types.StringValue("docker/Dockerfile"),
			Target: types.StringValue("run"), BuildArgs: values.StringMap(map[string]string{"PY": "3.12"}),
			Labels: values.StringMap(map[string]string{"team": "agents", "cost centre": "a=b"})},
	}
}

// An import gives back the configuration the image was built from, with
// the labels it set (not those it inherited), so that its plan is empty.
func TestImportedModelGivesBackTheConfiguration(t *testing.T) {
	t.Chdir(t.TempDir())
	if err := os.Mkdir("agent", 0o755); err != nil {
		t.Fatal(err)
	}
	m := configured("./agent")
	got, err := importedModel(builtImage(m, "agents/python:latest"))
	if err != nil {
		t.Fatal(err)
	}
	want := m
	want.ID, want.ImageID = types.StringValue("sha256:0123456789ab"), types.StringValue("sha256:0123456789ab")
	want.Tagged, want.KeepOnDestroy, want.Timeouts = types.BoolValue(true), types.BoolValue(false), timeouts.Null()
	want.ContextDigest = types.StringValue("sha256:feed")
	for name, pair := range map[string][2]interface{ String() string }{
		"id": {got.ID, want.ID}, "image_id": {got.ImageID, want.ImageID}, "name": {got.Name, want.Name},
		"tagged": {got.Tagged, want.Tagged}, "keep_on_destroy": {got.KeepOnDestroy, want.KeepOnDestroy},
		"context": {got.Context, want.Context}, "dockerfile": {got.Dockerfile, want.Dockerfile},
		"target": {got.Target, want.Target}, "build_args": {got.BuildArgs, want.BuildArgs},
		"labels": {got.Labels, want.Labels}, "context_digest": {got.ContextDigest, want.ContextDigest},
		"timeouts": {got.Timeouts, want.Timeouts},
	} {
		if pair[0].String() != pair[1].String() {
			t.Errorf("%s = %s, want %s", name, pair[0], pair[1])
		}
	}
	if got.owner() != m.owner() {
		t.Errorf("the imported owner %s differs from the builder's %s", got.owner(), m.owner())
	}

	// Untagged: an earlier build, whose name moved on.
	if got, _ := importedModel(builtImage(m)); got.Tagged.ValueBool() {
		t.Error("an image its name does not tag reads as tagged")
	}
}

// A context recorded relative to another directory comes back absolute:
// relative to the directory of the import, it would name another one.
func TestImportedModelKeepsTheContextDirectory(t *testing.T) {
	first := t.TempDir()
	t.Chdir(first)
	img := builtImage(configured("agent"))
	t.Chdir(t.TempDir())
	got, err := importedModel(img)
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(first, "agent"); got.Context.ValueString() != want {
		t.Errorf("context = %s, want %s", got.Context, want)
	}
}

// An image without a record, or whose record does not hold together, is
// refused, and says why.
func TestImportedModelRefusesWhatItCannotGiveBack(t *testing.T) {
	dir := t.TempDir()
	tests := map[string]struct {
		change func(labels map[string]string)
		want   string
	}{
		"no record":         {func(l map[string]string) { delete(l, labelBuild) }, "earlier version"},
		"unreadable record": {func(l map[string]string) { l[labelBuild] = "{" }, "cannot be read"},
		"record without a context": {func(l map[string]string) {
			l[labelBuild] = `{"name":"a","dockerfile":"Dockerfile"}`
		}, "lacks"},
		"record of another configuration": {func(l map[string]string) {
			l[labelBuild] = strings.Replace(l[labelBuild], `"agents/python"`, `"other/name"`, 1)
		}, "does not match"},
		"a label the image lacks": {func(l map[string]string) { delete(l, "team") }, `label "team"`},
		"no context digest":       {func(l map[string]string) { delete(l, labelContextDigest) }, "does not match"},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			img := builtImage(configured(dir), "agents/python:latest")
			tt.change(img.Labels)
			_, err := importedModel(img)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("importedModel = %v, want an error saying %q", err, tt.want)
			}
			if name == "no record" && !errors.Is(err, errNoRecord) {
				t.Errorf("%v is not errNoRecord", err)
			}
		})
	}
}
