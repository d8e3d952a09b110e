// Package isolation decides, from the engine's inspect data alone, whether a
// container is network-isolated. It is the single place where that verdict is
// made; everything else in the provider asks it.
package isolation

import (
	"fmt"
	"sort"
	"strings"

	"github.com/docker/docker/api/types/container"
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

// Assess returns the isolation verdict for a container from its inspect data.
// Missing data never counts as isolated.
func Assess(c container.InspectResponse) Verdict {
	networks := attachedNetworks(c.NetworkSettings)
	if c.ContainerJSONBase == nil || c.HostConfig == nil {
		return Verdict{
			Mode:     "unknown",
			Networks: networks,
			Reason:   "the engine reported no host configuration for the container",
		}
	}

	mode := string(c.HostConfig.NetworkMode)
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

func attachedNetworks(s *container.NetworkSettings) []string {
	if s == nil {
		return []string{}
	}
	names := make([]string, 0, len(s.Networks))
	for name := range s.Networks {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
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
