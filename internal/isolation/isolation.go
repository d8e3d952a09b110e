// Package isolation decides, from what a backend observed of a sandbox
// alone, whether it is isolated: no network but loopback, and no namespace
// shared with its host or another container. It is the single place where
// that verdict is made; everything else in the provider asks it. Each
// backend reports what it observed in its own terms (Observed): a
// Docker-API engine a container's network mode, attachments and namespace
// modes, a cluster a pod, its host namespaces, its RuntimeClass and its
// NetworkPolicy; no backend dresses its observation up as another's.
package isolation

import (
	"fmt"
	"slices"
	"strings"
)

// NoneMode is the only network mode the provider treats as isolated.
const NoneMode = "none"

// Verdict is what Assess concludes about one container.
type Verdict struct {
	// Isolated is true only when the container has no network but loopback
	// (its network mode is "none" and it is attached to no other network)
	// and shares no namespace with its host or another container.
	Isolated bool
	// Mode is the network mode the container effectively has: "none" when it
	// is isolated; otherwise the engine's network mode when that is not
	// "none", or else the names of the networks it was attached to, joined
	// by commas (for example "bridge"); "none sharing ..." when its only
	// network is loopback but it shares a namespace (for example "none
	// sharing pid with the host").
	Mode string
	// Networks lists the names of the networks the container is attached to,
	// sorted.
	Networks []string
	// Reason says in one sentence why the container is not isolated; it is
	// empty when it is.
	Reason string
}

// Observed is what a backend observed of a sandbox's network, in its own
// terms: Attachments for a container on a Docker-API engine (Docker or
// Podman), Pod for a pod on a cluster. An observation with neither is
// missing data, which is never isolated.
type Observed struct {
	Attachments *Attachments
	Pod         *Pod
}

// Attachments are what a Docker-API engine shows of a container's network.
type Attachments struct {
	// Reported is false when the engine showed no host configuration for
	// the container, where its network mode would be.
	Reported bool
	// Mode is the container's network mode, as the engine reports it.
	Mode string
	// Networks are the names of the networks it is attached to.
	Networks []string
	// PID, IPC and UTS are the modes the engine reports for the
	// container's other namespaces: "" or "private" (its own),
	// "shareable" (IPC: its own, which others may join), "none" (IPC: no
	// shared memory at all), "host" (the host's), or "container:<id>"
	// (another container's).
	PID, IPC, UTS string
}

// Assess returns the isolation verdict for what a backend observed of a
// sandbox. Missing data never counts as isolated.
func Assess(o Observed) Verdict {
	switch {
	case o.Pod != nil:
		return assessPod(*o.Pod)
	case o.Attachments != nil:
		return assessAttachments(*o.Attachments)
	}
	return Verdict{Mode: "unknown", Networks: []string{}, Reason: "the engine reported nothing of the sandbox's network"}
}

// assessAttachments is the verdict for a container on a Docker-API engine:
// isolated only when its network mode is "none" and it is attached to no
// network but "none".
func assessAttachments(a Attachments) Verdict {
	networks := slices.Sorted(slices.Values(a.Networks))
	if networks == nil {
		networks = []string{}
	}
	if !a.Reported {
		return Verdict{
			Mode:     "unknown",
			Networks: networks,
			Reason:   "the engine reported no host configuration for the container",
		}
	}

	mode := a.Mode
	if mode != NoneMode {
		if mode == "" {
			mode = "default"
		}
		return Verdict{
			Mode:     mode,
			Networks: networks,
			Reason:   fmt.Sprintf("the engine reports network mode %q instead of %q", mode, NoneMode),
		}
	}

	var others []string
	for _, n := range networks {
		if n != NoneMode {
			others = append(others, n)
		}
	}
	if len(others) > 0 {
		return Verdict{
			Mode:     strings.Join(others, ","),
			Networks: networks,
			Reason: fmt.Sprintf("the engine has attached it to %s (its network mode still reads %q)",
				describeNetworks(others), NoneMode),
		}
	}

	var shared []sharing
	for _, ns := range []struct{ kind, mode string }{{"pid", a.PID}, {"ipc", a.IPC}, {"uts", a.UTS}} {
		switch {
		case ns.mode == "host":
			shared = append(shared, sharing{ns.kind, "the host", fmt.Sprintf("%s mode %q", ns.kind, ns.mode)})
		case strings.HasPrefix(ns.mode, "container:"):
			shared = append(shared, sharing{ns.kind, "container " + strings.TrimPrefix(ns.mode, "container:"),
				fmt.Sprintf("%s mode %q", ns.kind, ns.mode)})
		}
	}
	if len(shared) > 0 {
		return sharedVerdict(shared, networks, "the engine reports")
	}

	return Verdict{Isolated: true, Mode: NoneMode, Networks: networks}
}

// sharing is one namespace besides the network that a sandbox shares: its
// kind ("pid", "ipc", "uts"), what it shares it with, and what the backend
// showed of it.
type sharing struct{ kind, with, shown string }

// sharedVerdict is the verdict for a sandbox with no network but loopback
// that shares namespaces: a process in it sees or reaches what it shares
// them with (the host's processes, its shared memory, its hostname).
func sharedVerdict(shared []sharing, networks []string, source string) Verdict {
	modes := make([]string, len(shared))
	shown := make([]string, len(shared))
	for i, s := range shared {
		modes[i] = s.kind + " with " + s.with
		shown[i] = s.shown
	}
	return Verdict{
		Mode:     NoneMode + " sharing " + strings.Join(modes, ", "),
		Networks: networks,
		Reason: fmt.Sprintf("%s that it shares namespaces beside the network: %s (%s)",
			source, strings.Join(modes, ", "), strings.Join(shown, ", ")),
	}
}

func describeNetworks(names []string) string {
	quoted := make([]string, len(names))
	for i, n := range names {
		quoted[i] = fmt.Sprintf("%q", n)
	}
	if len(names) == 1 {
		return "network " + quoted[0]
	}
	return "networks " + strings.Join(quoted, ", ")
}
