package imageresource

import (
	"archive/tar"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-validators/mapvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/mapplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/moby/patternmatcher"
	"github.com/moby/patternmatcher/ignorefile"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/framework/validators"
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
				"history, so they are not for secrets. Changing them forces a rebuild.",
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

// zeroTime is the time every file gets in the tar sent to the engine.
var zeroTime = time.Unix(0, 0)

// contextFile is one file, directory or symbolic link sent from the
// context.
type contextFile struct {
	rel  string // slash-separated, relative to the context
	info fs.FileInfo
	link string // a symbolic link's target
}

// walkContext lists what a build of dir sends: everything but what
// .dockerignore excludes, and always the Dockerfile and .dockerignore
// themselves (as the docker CLI does), sorted by path.
func walkContext(dir, dockerfile string) ([]contextFile, error) {
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
	matcher, err := ignored(dir, dockerfile)
	if err != nil {
		return nil, err
	}
	// A context that is a symlink to a directory is walked where it
	// points: WalkDir does not follow its root.
	root, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return nil, fmt.Errorf("the context directory %s cannot be read: %w", dir, err)
	}
	var files []contextFile
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return fmt.Errorf("reading the context: %w", err)
		}
		rel, _ := filepath.Rel(root, p)
		if rel == "." {
			return nil
		}
		rel = filepath.ToSlash(rel)
		skip, err := matcher.MatchesOrParentMatches(rel)
		if err != nil {
			return fmt.Errorf("applying .dockerignore to %s: %w", rel, err)
		}
		if skip {
			if d.IsDir() && !matcher.Exclusions() {
				return filepath.SkipDir
			}
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return fmt.Errorf("reading the context: %w", err)
		}
		f := contextFile{rel: rel, info: info}
		if info.Mode()&fs.ModeSymlink != 0 {
			if f.link, err = os.Readlink(p); err != nil {
				return fmt.Errorf("reading the context: %w", err)
			}
		} else if !info.IsDir() && !info.Mode().IsRegular() {
			return nil // sockets, pipes and devices are not sent
		}
		files = append(files, f)
		return nil
	})
	return files, err
}

// ignored reads dir's .dockerignore, less any pattern that would exclude
// the Dockerfile or .dockerignore.
func ignored(dir, dockerfile string) (*patternmatcher.PatternMatcher, error) {
	var patterns []string
	f, err := os.Open(filepath.Join(dir, ".dockerignore"))
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return nil, fmt.Errorf("reading %s/.dockerignore: %w", dir, err)
	default:
		defer func() { _ = f.Close() }()
		if patterns, err = ignorefile.ReadAll(f); err != nil {
			return nil, fmt.Errorf("reading %s/.dockerignore: %w", dir, err)
		}
	}
	patterns = append(patterns, "!"+dockerfile, "!.dockerignore")
	return patternmatcher.New(patterns)
}

// digest is the SHA-256 of what a build sends and of how it is built:
// each file's path, type, permission bits and content (times are left
// out), then the Dockerfile's path, the build arguments, the target and
// the labels.
func digest(dir string, files []contextFile, b buildInputs) (string, error) {
	h := sha256.New()
	for _, f := range files {
		_, _ = fmt.Fprintf(h, "%q %s %o\n", f.rel, f.info.Mode().Type(), f.info.Mode().Perm()) // a hash never fails
		switch {
		case f.link != "":
			_, _ = fmt.Fprintf(h, "-> %q\n", f.link)
		case f.info.Mode().IsRegular():
			if err := copyFile(h, filepath.Join(dir, filepath.FromSlash(f.rel))); err != nil {
				return "", err
			}
		}
	}
	_, _ = fmt.Fprintf(h, "dockerfile %q\ntarget %q\n", b.dockerfile, b.target)
	for _, k := range slices.Sorted(maps.Keys(b.args)) {
		_, _ = fmt.Fprintf(h, "arg %q=%q\n", k, b.args[k])
	}
	for _, k := range slices.Sorted(maps.Keys(b.labels)) {
		_, _ = fmt.Fprintf(h, "label %q=%q\n", k, b.labels[k])
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil)), nil
}

func copyFile(w io.Writer, name string) error {
	f, err := os.Open(name)
	if err != nil {
		return fmt.Errorf("reading the context: %w", err)
	}
	defer func() { _ = f.Close() }()
	if _, err := io.Copy(w, f); err != nil {
		return fmt.Errorf("reading the context: %w", err)
	}
	return nil
}

// writeTar writes the files as a tar to w, with times zeroed so that
// the same files make the same tar.
func writeTar(w io.Writer, dir string, files []contextFile) error {
	tw := tar.NewWriter(w)
	for _, f := range files {
		hdr, err := tar.FileInfoHeader(f.info, f.link)
		if err != nil {
			return fmt.Errorf("packing %s: %w", f.rel, err)
		}
		hdr.Name = f.rel
		if f.info.IsDir() {
			hdr.Name += "/"
		}
		hdr.Uid, hdr.Gid, hdr.Uname, hdr.Gname = 0, 0, "", ""
		hdr.ModTime, hdr.AccessTime, hdr.ChangeTime = zeroTime, zeroTime, zeroTime
		hdr.Format = tar.FormatPAX
		if err := tw.WriteHeader(hdr); err != nil {
			return fmt.Errorf("packing %s: %w", f.rel, err)
		}
		if f.info.Mode().IsRegular() {
			if err := copyFile(tw, filepath.Join(dir, filepath.FromSlash(f.rel))); err != nil {
				return err
			}
		}
	}
	return tw.Close()
}
