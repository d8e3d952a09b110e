// Package isolation decides, from what a backend observed of a sandbox
// alone, whether it is network-isolated. It is the single place where that
// verdict is made; everything else in the provider asks it. Each backend
// reports what it observed in its own terms (Observed): a Docker-API engine
// a container's network mode and attachments, a cluster a pod, its
// RuntimeClass and its NetworkPolicy; no backend dresses its observation up
// as another's.
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
	// Isolated is true only when the container has no network but loopback:
	// its network mode is "none" and it is attached to no other network.
	Isolated bool
	// Mode is the network mode the container effectively has: "none" when it
	// is isolated; otherwise the engine's network mode when that is not
	// "none", or else the names of the networks it was attached to, joined
	// by commas (for example "bridge").
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

	return Verdict{Isolated: true, Mode: NoneMode, Networks: networks}
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
