package imageresource

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"slices"

	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/framework/timeouts"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/framework/values"
)

// The build record: what an image's sandbox_image configuration was, kept
// on the image, so that an import (and terraform query) can give back a
// configuration whose plan is empty. The image's labels say everything
// else: its context digest, its owner and the values of its labels.

// labelBuild carries, on an image a sandbox_image built, its build record
// as JSON.
const labelBuild = engine.LabelPrefix + "image-build"

// buildRecord is a sandbox_image's configuration as its image keeps it.
type buildRecord struct {
	Name       string            `json:"name"`
	Context    string            `json:"context"`     // as configured
	ContextDir string            `json:"context_dir"` // absolute
	Dockerfile string            `json:"dockerfile"`
	Target     string            `json:"target,omitempty"`
	BuildArgs  map[string]string `json:"build_args,omitempty"`
	Labels     []string          `json:"labels,omitempty"` // keys; the values are the image's
}

// record is the build record of m, as the label's value.
func (m resourceModel) record() string {
	in := m.inputs()
	rec := buildRecord{Name: m.Name.ValueString(), Context: m.Context.ValueString(), ContextDir: m.Context.ValueString(),
		Dockerfile: in.dockerfile, Target: in.target, BuildArgs: in.args, Labels: slices.Sorted(maps.Keys(in.labels))}
	if abs, err := filepath.Abs(rec.Context); err == nil {
		rec.ContextDir = abs
	}
	out, _ := json.Marshal(rec) // strings and maps of strings always marshal
	return string(out)
}

// errNoRecord is an image the provider built before it kept build records.
var errNoRecord = errors.New("it was built by an earlier version of the provider, which kept no record of its " +
	"configuration on the image")

// importedModel is the state an import of img gives, from its build record
// and labels; img must be one the provider built (BuiltByProvider). The
// context is given as it was configured when it names the same directory
// from here, else as the absolute directory. An image whose record does
// not hold together (its owner label was not made from it) is refused.
func importedModel(img engine.Image) (resourceModel, error) {
	labels := img.Labels
	raw, ok := labels[labelBuild]
	if !ok {
		return resourceModel{}, errNoRecord
	}
	var rec buildRecord
	if err := json.Unmarshal([]byte(raw), &rec); err != nil {
		return resourceModel{}, fmt.Errorf("its build record (label %s) cannot be read: %w", labelBuild, err)
	}
	if rec.Name == "" || rec.Context == "" || rec.Dockerfile == "" {
		return resourceModel{}, fmt.Errorf("its build record (label %s) lacks a name, context or dockerfile", labelBuild)
	}
	m := resourceModel{
		ID: types.StringValue(img.ID), ImageID: types.StringValue(img.ID), Name: types.StringValue(rec.Name),
		Tagged:        types.BoolValue(slices.ContainsFunc(img.RepoTags, func(t string) bool { return sameTag(t, tagged(rec.Name)) })),
		KeepOnDestroy: types.BoolValue(false), Timeouts: timeouts.Null(),
		buildModel: buildModel{
			Context: types.StringValue(rec.Context), Dockerfile: types.StringValue(rec.Dockerfile),
			Target:        types.StringNull(),
			ContextDigest: types.StringValue(labels[labelContextDigest]),
		},
	}
	if abs, err := filepath.Abs(rec.Context); err != nil || abs != rec.ContextDir {
		m.Context = types.StringValue(rec.ContextDir)
	}
	if rec.Target != "" {
		m.Target = types.StringValue(rec.Target)
	}
	m.BuildArgs = values.StringMap(rec.BuildArgs)
	own := map[string]string{}
	for _, k := range rec.Labels {
		v, ok := labels[k]
		if !ok {
			return resourceModel{}, fmt.Errorf("its build record names the label %q, which it does not carry", k)
		}
		own[k] = v
	}
	m.Labels = values.StringMap(own)
	if labels[labelOwner] != m.owner() || labels[labelContextDigest] == "" {
		return resourceModel{}, fmt.Errorf("its build record (label %s) does not match the owner and context "+
			"digest it carries", labelBuild)
	}
	return m, nil
}
