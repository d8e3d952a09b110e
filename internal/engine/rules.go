package engine

import (
	"context"
	"fmt"
	"strings"
)

// Rules are what a backend refuses of a sandbox, a command or a volume, and
// what it cannot change on a sandbox it made. Each backend holds its own,
// once: the plan asks them so that a refusal lands on its attribute before
// anything is made, and the backend's own apply asks the same function, so
// that a value known only at apply is refused there, in the same words,
// before the engine is asked for anything.
type Rules interface {
	// RefuseSandbox is what the backend refuses of a planned sandbox.
	RefuseSandbox(ctx context.Context, p PlannedSandbox) []Refusal
	// FixedInPlace are the attributes of a sandbox under runtime ("" for
	// the engine's default) that the backend cannot change once it made
	// the sandbox: a change replaces it.
	FixedInPlace(ctx context.Context, runtime string) []Fixed
	// RefuseCommand is what the backend refuses of a command run in a
	// sandbox (sandbox_exec).
	RefuseCommand(ctx context.Context, p PlannedCommand) []Refusal
	// RefuseVolume is what the backend refuses of a planned volume.
	RefuseVolume(ctx context.Context, p PlannedVolume) []Refusal
}

// Refusal is one thing a backend refuses: the attribute it is about (and
// the key of the map entry, when it is about one), a summary, and a detail
// that says why, names the engine and gives the fix.
type Refusal struct {
	Attribute string
	Key       string
	// Field is the attribute of the map entry Key it is about, if any.
	Field   string
	Summary string
	Detail  string
}

// At is where the refusal is, as a message names it: "mounts[/work]",
// "ulimits[nproc].hard".
func (r Refusal) At() string {
	at := r.Attribute
	if r.Key != "" {
		at += "[" + r.Key + "]"
	}
	if r.Field != "" {
		at += "." + r.Field
	}
	return at
}

// Fixed are attributes a backend cannot change on a sandbox it made. Why,
// when set, is told in the plan's warning that the change replaces the
// sandbox.
type Fixed struct {
	Attributes []string
	Why        string
}

// LimitAttributes are the attributes of a sandbox's Limits, which an
// engine with a LimitUpdater changes in place.
var LimitAttributes = []string{"memory", "memory_swap", "cpus", "pids_limit"}

// PlannedSandbox is a sandbox as the plan or the apply knows it. At plan,
// Spec holds only what is known (a value known only at apply is left
// out), and Set names the attributes the configuration sets whatever
// their value; at apply, Spec is whole and Set is empty.
type PlannedSandbox struct {
	Spec ContainerSpec
	Set  Attributes
	// Unknown names the attributes known only at apply whose empty value
	// in Spec would mean something (runtime: the engine's default).
	Unknown map[string]bool
	// FilesBytes is the size of the sandbox's files.
	FilesBytes int
	// Paused is a sandbox to be made or kept frozen (state = "paused").
	Paused bool
	// Expiry names the attribute that gives the sandbox an expiry
	// (expires_after or expires_at); "" for none.
	Expiry string
}

// Attributes names the attributes a configuration sets, to a value known
// at plan or only at apply.
type Attributes map[string]bool

// Has reports whether attr is set: the plan says so, or (at apply, or
// for a known value) inSpec, the spec's value for it is not empty.
func (a Attributes) Has(attr string, inSpec bool) bool { return a[attr] || inSpec }

// PlannedCommand is a command to run in a sandbox, as PlannedSandbox is a
// sandbox.
type PlannedCommand struct {
	Spec ExecSpec
	Set  Attributes
}

// PlannedVolume is a volume, as PlannedSandbox is a sandbox.
type PlannedVolume struct {
	Spec VolumeSpec
	Set  Attributes
}

// FillsVolume, set in a PlannedVolume's Set, says that the plan creates,
// replaces or reseeds the volume, so that its seeding or restore runs.
const FillsVolume = "(fills the volume)"

// GVisorMinMemory is the least memory a gVisor sandbox works with: under
// runsc the memory limit covers the whole sandbox, its user-space kernel
// included, which needs about 16 MiB to start.
const GVisorMinMemory = 32 << 20

// GVisorRefusals are gVisor's rules, for a backend to apply to a sandbox
// that runs under it, as its facts say: memory too small for gVisor's
// kernel, and an nproc ulimit above pids_limit, which a backend enforces
// inside gVisor as that ulimit (the host's pids cgroup counts gVisor's own
// threads there). A runtime known only at apply is checked then.
func GVisorRefusals(facts Facts, p PlannedSandbox) []Refusal {
	if p.Unknown["runtime"] || !facts.IsGVisor(p.Spec.Runtime) {
		return nil
	}
	var out []Refusal
	s := p.Spec
	for _, u := range s.Ulimits {
		if pids := s.Limits.PidsLimit; u.Name == "nproc" && pids > 0 && u.Hard > pids {
			out = append(out, Refusal{Attribute: "ulimits", Key: "nproc", Field: "hard",
				Summary: "nproc above pids_limit under gVisor", Detail: fmt.Sprintf("ulimits.nproc.hard = %d is "+
					"above pids_limit = %d. Under gVisor the provider enforces pids_limit inside the sandbox as the "+
					"nproc ulimit, so a larger nproc would let the sandbox run more processes than pids_limit. "+
					"Remove ulimits.nproc, or set it to at most %d.", u.Hard, pids, pids)})
		}
	}
	if m := s.Limits.Memory; m > 0 && m < GVisorMinMemory {
		out = append(out, Refusal{Attribute: "memory", Summary: "memory too small for gVisor", Detail: fmt.Sprintf(
			"memory = %d MiB is below %d MiB, the least a gVisor sandbox works with: under runsc the limit "+
				"also covers gVisor's own kernel, which needs about 16 MiB to start. Set memory to at least %d.",
			m>>20, GVisorMinMemory>>20, GVisorMinMemory>>20)})
	}
	return out
}

// RefusedError is what an apply meets that the backend's rules refuse: a
// value the plan could not check because it was known only at apply.
type RefusedError struct{ Refusals []Refusal }

func (e *RefusedError) Error() string {
	parts := make([]string, 0, len(e.Refusals))
	for _, r := range e.Refusals {
		parts = append(parts, r.At()+": "+r.Summary+": "+r.Detail)
	}
	return strings.Join(parts, "; ")
}

// InvalidParameter classifies the error for errdefs.
func (e *RefusedError) InvalidParameter() {}

// Refused is the error for refusals, nil when there are none.
func Refused(refusals []Refusal) error {
	if len(refusals) == 0 {
		return nil
	}
	return &RefusedError{Refusals: refusals}
}
