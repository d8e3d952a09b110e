// Package engine is the seam between the resources and the backends that
// run their sandboxes: the interface every backend implements (Engine), the
// smaller interfaces of what only some backends can do, what a backend
// refuses (rules.go), and the types the resources see. It talks to no
// engine: the Docker engine and Podman are package docker, a Kubernetes
// cluster package kube, and neither imports the other; the provider picks
// one and the resources know only this package.
package engine

import (
	"context"
	"io"
	"time"
)

// Engine is what every backend does for the resources: it makes, reads,
// starts, stops and removes sandboxes, runs commands in them, keeps
// volumes, reports its facts and says what it refuses (Rules). The data it
// speaks is the Docker Engine API's (a sandbox is a Container, whichever
// backend runs it), which each backend fills in from what it has.
//
// What only some backends can do is a smaller interface below, which a
// backend implements or does not; a resource asks for it by type
// (client.(engine.Renamer)) and plans around its absence, so no backend has
// a method that exists only to say it cannot.
type Engine interface {
	// Endpoint is the address of the engine.
	Endpoint() string
	// Where names the engine in messages, its kind and its address: "the
	// Docker engine at unix:///var/run/docker.sock".
	Where() string
	// Facts are what the engine reports about itself that bounds a
	// sandbox (facts.go).
	Facts(ctx context.Context) (Facts, error)
	// ByHand gives the commands that do by hand what the provider could
	// not, for messages.
	ByHand() HandCommands
	Identities
	Rules
	Sandboxes
	Volumes
}

// Sandboxes are the operations on the sandboxes themselves, which every
// backend has.
type Sandboxes interface {
	CreateContainer(ctx context.Context, spec ContainerSpec) (string, error)
	InspectContainer(ctx context.Context, idOrName string) (Sandbox, error)
	StartContainer(ctx context.Context, id string) error
	StopContainer(ctx context.Context, id string, graceSeconds int) error
	RemoveContainer(ctx context.Context, id string) error
	ContainersCreatedWith(ctx context.Context, token string) ([]string, error)
	ManagedContainers(ctx context.Context, labels map[string]string, namePrefix string) ([]string, error)
	// ProvenanceOf says who made s, as InspectContainer gave it: the
	// provider only where it can prove it (madeby.go).
	ProvenanceOf(ctx context.Context, s Sandbox) (Provenance, error)
	LastLogLines(ctx context.Context, id string, n int) (string, error)
	RunExec(ctx context.Context, id string, spec ExecSpec) (ExecResult, error)
}

// Volumes are the operations on the engine's named volumes, which every
// backend has.
type Volumes interface {
	CreateVolume(ctx context.Context, spec VolumeSpec) (Volume, error)
	InspectVolume(ctx context.Context, name string) (Volume, error)
	// ManagedVolumes lists the volumes that carry the provider's ownership
	// label and every one of labels, whose name starts with namePrefix, as
	// InspectVolume reads them.
	ManagedVolumes(ctx context.Context, labels map[string]string, namePrefix string) ([]Volume, error)
	RemoveVolume(ctx context.Context, name, token string) error
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
	// RemoveHelpers removes what a seeding of volume with token left (its
	// helper, and on an engine the helper's image): one command a line.
	RemoveHelpers(volume, token string) string
}

// What only some backends can do.

// Unpauser takes a paused sandbox out of its pause: a backend that can
// pause a sandbox (a pod cannot be paused).
type Unpauser interface {
	UnpauseContainer(ctx context.Context, id string) error
}

// Pauser holds a sandbox's processes still (a snapshot holds the writers
// of a volume still while it reads the volume) and lets them go again.
type Pauser interface {
	PauseContainer(ctx context.Context, id string) error
	Unpauser
}

// Sleeper puts a sandbox to sleep and wakes it where a stopped sandbox is
// not kept (a cluster: a pod cannot be stopped). Asleep, it has no
// process and holds none of its host's CPU or memory, and keeps its
// identity (its ID), its workspace and what isolates it; InspectContainer
// shows it with StatusAsleep. Wake makes it again from spec, under the
// same isolation; the caller then waits for it (StartContainer).
type Sleeper interface {
	SleepContainer(ctx context.Context, id string, graceSeconds int) error
	WakeContainer(ctx context.Context, id string, spec ContainerSpec) error
}

// Expirer is a backend that stops a sandbox at its expiry with something
// beside it (a Docker engine's or Podman's warden): ExpireAt, after the
// create and before the start, and again to renew the expiry in place. A
// backend that is no Expirer enforces ContainerSpec.ExpiresAt as it makes
// the sandbox (a cluster: the pod's deadline), and renews it by making
// the sandbox again (Sleeper).
type Expirer interface {
	ExpireAt(ctx context.Context, id string, at time.Time) error
}

// ExpiryLister is an Expirer whose expiries, renewals included, are read
// from what enforces them (a warden), not from the sandboxes, whose labels
// keep the expiry they were made with; nil for none held.
type ExpiryLister interface {
	Expiries(ctx context.Context) (map[string]time.Time, error)
}

// IsolatingAll is a backend that gives every sandbox no network whatever
// its network_mode says (a cluster: its RuntimeClass and a deny-all
// NetworkPolicy), where an unset network_mode means "none": the plan says
// so.
type IsolatingAll interface {
	IsolatesEverySandbox()
}

// SeccompDefaults is a backend whose Facts leave out which profile its
// default seccomp filter is (Podman: its own API names it, at a cost
// every plan would pay), read here when a plan needs it. Any other
// backend's Facts say it.
type SeccompDefaults interface {
	DefaultSeccomp(ctx context.Context) (Seccomp, error)
}

// Renamer renames a sandbox in place; without it a new name replaces the
// sandbox (a pod's name is fixed).
type Renamer interface {
	RenameContainer(ctx context.Context, id, name string) error
}

// LimitUpdater changes a running sandbox's limits in place. Without it,
// or under a runtime that keeps its limits, a limit change replaces the
// sandbox: Rules.FixedInPlace says which attributes, and why.
type LimitUpdater interface {
	UpdateLimits(ctx context.Context, id string, l Limits) error
}

// RestartUpdater changes a sandbox's restart policy in place; without it a
// change replaces the sandbox.
type RestartUpdater interface {
	UpdateRestartPolicy(ctx context.Context, id, policy string) error
}

// FileCopier writes a sandbox's files into it after it is made, and says
// where a sandbox's files land on the engine's host. A backend without it
// mounts the files as it makes the sandbox (ContainerSpec.Files).
type FileCopier interface {
	CopyFiles(ctx context.Context, id string, files []File) error
	WhereFilesGo(ctx context.Context, id string, paths []string) (map[string]string, error)
}

// FileReader reads one file out of a sandbox without running anything in
// it (a pod's files can be read only by a program in the pod, which the
// sandbox's own code may have replaced).
type FileReader interface {
	ReadFile(ctx context.Context, id, file string, limit int64) ([]byte, error)
}

// HostPaths is a backend whose sandboxes can mount paths of the engine's
// host. LocalSocket is the unix socket the engine is reached through,
// when it runs on this machine: then its host's paths are this machine's.
type HostPaths interface {
	LocalSocket() (string, bool)
}

// Images are the operations on the engine's images: building, deriving,
// tagging and removing them. A backend without them runs the images its
// nodes have (a cluster).
type Images interface {
	EnsureImage(ctx context.Context, ref string) (Image, error)
	InspectImage(ctx context.Context, ref string) (Image, error)
	BuildImage(ctx context.Context, spec BuildSpec, logf func(line string)) (Built, error)
	DeriveImage(ctx context.Context, base string, files []File, labels map[string]string) (Built, error)
	TagImage(ctx context.Context, id, ref string) error
	TagImageID(ctx context.Context, ref string) (string, error)
	RemoveImage(ctx context.Context, ref string) error
	RemoveBuilt(ctx context.Context, built Built) error
	RemoveLeftBuilds(ctx context.Context, key, value string) error
	ImagesLabelled(ctx context.Context, labels map[string]string) ([]string, error)
	ContainersUsingImage(ctx context.Context, id string) ([]string, error)
	BuiltByProvider(ctx context.Context, img Image) (bool, error)
}

// VolumeSeeder copies an archive into a volume through a helper the
// provider makes and removes. The archive's entries lie under SeedDir,
// which stands for the volume's root.
type VolumeSeeder interface {
	SeedVolume(ctx context.Context, volume, token string, archive io.Reader) error
	CleanUpSeed(ctx context.Context, token string) error
}

// NewVolumeRoots says who owns a new volume's root directory, and its
// mode, when the provider gives it no owner: a backend that knows (a
// cluster's storage driver decides, and the provider cannot know).
type NewVolumeRoots interface {
	NewVolumeRoot() (uid, gid int, mode int64)
}

// VolumeArchiver reads a volume's content out as the engine archives it,
// through a helper like VolumeSeeder's that mounts the volume read-only
// and runs nothing of the volume's. Once the helper is ready, hold (when
// not nil) holds the volume's writers still, and the func it returns lets
// them go as soon as the stream has ended; read gets the tar, whose
// entries lie under SeedDir. The helper is gone (or CleanUpSeed with the
// token removes it) when ArchiveVolume returns. The tar is the engine's,
// of content a sandbox wrote: read takes it as hostile (package archive).
type VolumeArchiver interface {
	ArchiveVolume(ctx context.Context, volume, token string, hold func(context.Context) (release func()),
		read func(tar io.Reader) error) error
	// ArchivesInOrder reports whether the engine's archive lists each
	// directory's entries sorted by name, as package archive keeps them
	// (then they are streamed, not spooled).
	ArchivesInOrder() bool
	VolumeSeeder
}
