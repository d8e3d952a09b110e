package engine

import (
	"fmt"
	"strings"

	"github.com/distribution/reference"

	"github.com/docker/docker/api/types/image"
)

// Image is the engine's data about an image.
type Image = image.InspectResponse

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

// FamiliarTag is an image tag as the docker CLI prints it, for comparing
// tags as engines write them: Podman writes them in full
// (docker.io/library/agent:1), and local ones with a localhost/ prefix.
func FamiliarTag(tag string) string {
	if named, err := reference.ParseNormalizedNamed(tag); err == nil {
		tag = reference.FamiliarString(named)
	}
	return strings.TrimPrefix(tag, "localhost/")
}
