// Package engine is the seam between the resources and the backends that
// run their sandboxes: the interface every backend implements (Engine), the
// smaller interfaces of what only some backends can do, and the types the
// resources see. It talks to no engine: the Docker engine and Podman are
// package docker, a Kubernetes cluster package kube, and neither imports
// the other; the provider picks one and the resources know only this
// package.
package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
)

// Engine is what the resources ask of the engine that runs their
// sandboxes: a Docker engine (Client, which also serves Podman) or a
// Kubernetes cluster (package kube). Resource packages know only this
// interface; the data it speaks is the Docker Engine API's (a sandbox is a
// Container, whichever backend runs it), which each backend fills in from
// what it has, and the limits of a backend are its Kind and Facts, which
// the plan asks so that it refuses what the backend cannot enforce.
type Engine interface {
	Sandboxes
	Images
	Volumes
}

// Sandboxes are the operations on the sandboxes themselves, which every
// backend has.
type Sandboxes interface {
	// Endpoint is the address of the engine.
	Endpoint() string
	// Where names the engine in messages, its kind and its address: "the
	// Docker engine at unix:///var/run/docker.sock".
	Where() string
	Kind(ctx context.Context) Kind
	Facts(ctx context.Context) (Facts, error)
	CanUpdateLimits(ctx context.Context) bool
	HonoursRuntime(ctx context.Context) bool
	// LocalSocket is the unix socket the engine is reached through, when
	// it runs on this machine.
	LocalSocket() (string, bool)
	// ByHand gives the commands that do by hand what the provider could
	// not, for messages.
	ByHand() HandCommands

	CreateContainer(ctx context.Context, spec ContainerSpec) (string, error)
	InspectContainer(ctx context.Context, idOrName string) (Container, error)
	StartContainer(ctx context.Context, id string) error
	StopContainer(ctx context.Context, id string, graceSeconds int) error
	UnpauseContainer(ctx context.Context, id string) error
	RemoveContainer(ctx context.Context, id string) error
	RenameContainer(ctx context.Context, id, name string) error
	UpdateLimits(ctx context.Context, id string, l Limits) error
	UpdateRestartPolicy(ctx context.Context, id, policy string) error
	ContainersCreatedWith(ctx context.Context, token string) ([]string, error)
	ManagedContainers(ctx context.Context, labels map[string]string, namePrefix string) ([]string, error)
	CopyFiles(ctx context.Context, id string, files []File) error
	WhereFilesGo(ctx context.Context, id string, paths []string) (map[string]string, error)
	ReadFile(ctx context.Context, id, file string, limit int64) ([]byte, error)
	LastLogLines(ctx context.Context, id string, n int) (string, error)
	RunExec(ctx context.Context, id string, spec ExecSpec) (ExecResult, error)
}

// Images are the operations on the engine's images: building, deriving,
// tagging and removing them.
type Images interface {
	EnsureImage(ctx context.Context, ref string) (Image, error)
	InspectImage(ctx context.Context, ref string) (Image, error)
	BuildImage(ctx context.Context, spec BuildSpec, logf func(line string)) (string, error)
	DeriveImage(ctx context.Context, base string, files []File, labels map[string]string) (string, error)
	TagImage(ctx context.Context, id, ref string) error
	TagImageID(ctx context.Context, ref string) (string, error)
	RemoveImage(ctx context.Context, ref string) error
	RemoveLeftBuilds(ctx context.Context, key, value string) error
	ImagesLabelled(ctx context.Context, key, value string) ([]string, error)
	ContainersUsingImage(ctx context.Context, id string) ([]string, error)
	BuiltByProvider(ctx context.Context, img Image) (bool, error)
}

// Volumes are the operations on the engine's named volumes.
type Volumes interface {
	CreateVolume(ctx context.Context, spec VolumeSpec) (Volume, error)
	InspectVolume(ctx context.Context, name string) (Volume, error)
	RemoveVolume(ctx context.Context, name, token string) error
	SeedVolume(ctx context.Context, volume, token string, archive io.Reader) error
	CleanUpSeed(ctx context.Context, token string) error
	VolumeUsers(ctx context.Context, name string) ([]VolumeUser, error)
}

// HandCommands are shell commands, for the engine's own CLI, that a
// message tells the user to run.
type HandCommands interface {
	// Remove removes a sandbox by ID.
	Remove(id string) string
	// RemoveLabelled removes every sandbox whose label key has value.
	RemoveLabelled(key, value string) string
	// Logs shows a sandbox's output.
	Logs(id string) string
	// RemoveVolume removes a volume, and its data, by name.
	RemoveVolume(name string) string
}

// UnsupportedError is an operation a backend does not have. The plan
// refuses what needs it, so apply meets it only through a bug.
type UnsupportedError struct {
	What  string // what was asked: "building an image"
	Where string // the engine: Engine.Where
}

func (e *UnsupportedError) Error() string {
	return fmt.Sprintf("%s is not possible on %s", e.What, e.Where)
}

// NotImplemented classifies the error for errdefs.
func (e *UnsupportedError) NotImplemented() {}

// IsUnsupported reports whether err says a backend does not have an
// operation.
func IsUnsupported(err error) bool {
	var u *UnsupportedError
	return errors.As(err, &u)
}
