package imageresource

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-validators/mapvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/mapplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/framework/validators"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/localdir"
)

// The build inputs: the context directory, the Dockerfile in it, build
// arguments, target and labels, and the digest that tells the plan when
// they changed.

const defaultDockerfile = "Dockerfile"

// buildModel is what an image is built from.
type buildModel struct {
	Context       types.String `tfsdk:"context"`
	Dockerfile    types.String `tfsdk:"dockerfile"`
	BuildArgs     types.Map    `tfsdk:"build_args"`
	Target        types.String `tfsdk:"target"`
	Labels        types.Map    `tfsdk:"labels"`
	ContextDigest types.String `tfsdk:"context_digest"`
}

func buildAttributes() map[string]schema.Attribute {
	replace := []planmodifier.String{stringplanmodifier.RequiresReplace()}
	return map[string]schema.Attribute{
		"context": schema.StringAttribute{
			MarkdownDescription: "Directory on the machine running Terraform to build from, for example " +
				"`\"${path.module}/agent\"`. Its files, less those its `.dockerignore` excludes, are sent to " +
				"the engine as a tar, so a remote engine builds too. Changing it forces a rebuild.",
			Required:      true,
			Validators:    []validator.String{stringvalidator.LengthAtLeast(1)},
			PlanModifiers: replace,
		},
		"dockerfile": schema.StringAttribute{
			MarkdownDescription: "Path of the Dockerfile inside `context`, relative, with `/` separators " +
				"(default `\"" + defaultDockerfile + "\"`). It is sent even when `.dockerignore` excludes it. " +
				"Changing it forces a rebuild.",
			Optional:      true,
			Computed:      true,
			Default:       stringdefault.StaticString(defaultDockerfile),
			Validators:    []validator.String{insideContext()},
			PlanModifiers: replace,
		},
		"build_args": schema.MapAttribute{
			MarkdownDescription: "Values of the Dockerfile's `ARG`s, by name. They are recorded in the image's " +
				"history and in its build record (label `" + labelBuild + "`, which an import reads), so they are not for " +
				"secrets. Changing them forces a rebuild.",
			ElementType:   types.StringType,
			Optional:      true,
			Validators:    []validator.Map{mapvalidator.SizeAtLeast(1)},
			PlanModifiers: []planmodifier.Map{mapplanmodifier.RequiresReplace()},
		},
		"target": schema.StringAttribute{
			MarkdownDescription: "Stage of a multi-stage Dockerfile to build, by its `AS` name; the last stage " +
				"when omitted. Changing it forces a rebuild.",
			Optional:      true,
			Validators:    []validator.String{stringvalidator.LengthAtLeast(1)},
			PlanModifiers: replace,
		},
		"labels": schema.MapAttribute{
			MarkdownDescription: "Labels added to the image. The provider also stamps its own, whose keys start " +
				"with `" + engine.LabelPrefix + "`; keys with that prefix cannot be set here. Changing them forces " +
				"a rebuild.",
			ElementType:   types.StringType,
			Optional:      true,
			Validators:    []validator.Map{mapvalidator.KeysAre(validators.NoPrefix(engine.LabelPrefix, "the provider's own labels use"))},
			PlanModifiers: []planmodifier.Map{mapplanmodifier.RequiresReplace()},
		},
		"context_digest": schema.StringAttribute{
			MarkdownDescription: "Computed at plan time: SHA-256 of the files sent from `context` (their paths, " +
				"modes and contents, not their times) and of the other build arguments. Editing a file in the " +
				"context changes it and plans a rebuild; touching one does not.",
			Computed: true,
		},
	}
}

// insideContext accepts a relative path that stays inside the context.
func insideContext() validator.String {
	return validators.String("must be a relative path inside context, such as \"Dockerfile\" or \"docker/agent.Dockerfile\"",
		func(s string) string {
			clean := path.Clean(s)
			if s == "" || path.IsAbs(s) || filepath.IsAbs(s) || clean == "." || clean == ".." || strings.HasPrefix(clean, "../") {
				return "must be a relative path inside context, such as \"Dockerfile\" or \"docker/agent.Dockerfile\""
			}
			return ""
		})
}

// buildInputs are how the context is built.
type buildInputs struct {
	dockerfile, target string
	args, labels       map[string]string
}

// walkContext lists what a build of dir sends: everything but what
// .dockerignore excludes, and always the Dockerfile and .dockerignore
// themselves (as the docker CLI does), sorted by path.
func walkContext(dir, dockerfile string) ([]localdir.File, error) {
	info, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("the context directory %s cannot be read: %w", dir, err)
	}
	if !info.IsDir() {
		return nil, fmt.Errorf("the context %s is not a directory", dir)
	}
	dockerfile = path.Clean(dockerfile)
	if st, err := os.Stat(filepath.Join(dir, filepath.FromSlash(dockerfile))); err != nil || !st.Mode().IsRegular() {
		return nil, fmt.Errorf("the context %s has no Dockerfile at %s: set dockerfile to its path inside the context", dir, dockerfile)
	}
	return localdir.Walk(dir, dockerfile, ".dockerignore")
}

// digest is the SHA-256 of what a build sends and of how it is built:
// each file's path, type, permission bits and content (times are left
// out), then the Dockerfile's path, the build arguments, the target and
// the labels.
func digest(dir string, files []localdir.File, b buildInputs) (string, error) {
	h := sha256.New()
	if err := localdir.Digest(h, dir, files); err != nil {
		return "", err
	}
	_, _ = fmt.Fprintf(h, "dockerfile %q\ntarget %q\n", b.dockerfile, b.target) // a hash never fails
	for _, k := range slices.Sorted(maps.Keys(b.args)) {
		_, _ = fmt.Fprintf(h, "arg %q=%q\n", k, b.args[k])
	}
	for _, k := range slices.Sorted(maps.Keys(b.labels)) {
		_, _ = fmt.Fprintf(h, "label %q=%q\n", k, b.labels[k])
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil)), nil
}

// writeTar writes the files as a tar to w, owned by root, with times
// zeroed so that the same files make the same tar.
func writeTar(w io.Writer, dir string, files []localdir.File) error {
	return localdir.WriteTar(w, dir, files, localdir.Owner{}, "")
}
