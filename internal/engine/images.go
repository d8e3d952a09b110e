package engine

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/distribution/reference"
)

// Image is what an engine shows of an image, in the seam's own terms: its
// ID, its tags, its labels and the process its containers run by default.
type Image struct {
	ID       string
	RepoTags []string
	// Created is when the engine made it, as the engine writes it.
	Created string
	// Labels are the image's labels; every image's child and container
	// inherits them, so they prove nothing alone (madeby.go).
	Labels map[string]string
	// Entrypoint and Cmd are what a container of the image runs when it
	// names neither; Env, WorkingDir and User what it runs with.
	Entrypoint, Cmd, Env []string
	WorkingDir, User     string
}

// ImageMissingError says that an image is not on the engine and could not be
// pulled.
type ImageMissingError struct {
	Ref     string
	PullErr error
}

func (e *ImageMissingError) Error() string {
	return fmt.Sprintf("image %q is not present on the engine and pulling it failed: %v", e.Ref, e.PullErr)
}

func (e *ImageMissingError) Unwrap() error { return e.PullErr }

// ErrImageIDNotPullable is an ImageMissingError's cause when its reference
// is an image ID: an ID names an image one engine made or loaded, which no
// registry serves, so no pull is tried (Podman would ask docker.io for
// "library/sha256").
var ErrImageIDNotPullable = errors.New("an image ID names an image on one engine and cannot be pulled")

// IsImageID says whether ref is a full image ID (sha256: and 64 hex
// digits), as sandbox_image's image_id is.
func IsImageID(ref string) bool {
	hex, ok := strings.CutPrefix(ref, "sha256:")
	return ok && len(hex) == 64 && strings.Trim(hex, "0123456789abcdef") == ""
}

// FamiliarTag is an image tag as the docker CLI prints it, for comparing
// tags as engines write them: Podman writes them in full
// (docker.io/library/agent:1), and local ones with a localhost/ prefix.
func FamiliarTag(tag string) string {
	if named, err := reference.ParseNormalizedNamed(tag); err == nil {
		tag = reference.FamiliarString(named)
	}
	return strings.TrimPrefix(tag, "localhost/")
}

// BuildSpec is an image build the provider asks of the engine.
type BuildSpec struct {
	// Context opens a tar of the build context, Dockerfile included: a
	// new stream each time, for a build the engine must run again.
	Context    func() io.ReadCloser
	Dockerfile string // path inside the context
	Tag        string // repository:tag; empty for an untagged image
	BuildArgs  map[string]string
	Target     string
	Labels     map[string]string
}

// Built is an image a build made: its ID, and the images the build made
// for its steps below it, oldest first (not those it found in its cache,
// nor its base). No removal asks the engine to prune an image's untagged
// parents, which may be a base image the provider did not make (an image
// given by its ID, or another build's): whoever removes a built image
// removes the intermediates it made with it (Images.RemoveBuilt).
type Built struct {
	ID            string
	Intermediates []string
}

// BuildError is a build the engine ran and that failed: the step that
// failed and the last lines of output before the failure.
type BuildError struct {
	Step    string   // "Step 3/4 : RUN false", or "" when none had started
	Tail    []string // the last lines of output
	Message string   // the engine's error
}

func (e *BuildError) Error() string {
	var b strings.Builder
	b.WriteString(e.Message)
	if e.Step != "" {
		fmt.Fprintf(&b, ", at %s", e.Step)
	}
	if len(e.Tail) > 0 {
		b.WriteString(". Last lines of its output:\n  " + strings.Join(e.Tail, "\n  "))
	}
	return b.String()
}

// BytesContext is a BuildSpec's Context that opens b each time.
func BytesContext(b []byte) func() io.ReadCloser {
	return func() io.ReadCloser { return io.NopCloser(bytes.NewReader(b)) }
}
