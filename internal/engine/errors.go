package engine

import (
	"strings"

	cerrdefs "github.com/containerd/errdefs"
)

// IsNotFound reports whether err says the object does not exist.
func IsNotFound(err error) bool { return cerrdefs.IsNotFound(err) }

// IsConflict reports whether err says the object conflicts with an existing
// one (for example a container name already in use).
func IsConflict(err error) bool { return cerrdefs.IsConflict(err) }

// maxBrief bounds Brief's text.
const maxBrief = 400

// Brief is an engine error as one readable sentence: the first line of its
// text, cut at maxBrief characters. A runtime that fails can make the
// engine's error carry its whole usage text (runsc prints about 40 lines);
// the message says that the rest is in the engine's log.
func Brief(err error) string {
	text := strings.TrimSpace(err.Error())
	first, _, more := strings.Cut(text, "\n")
	if len(first) > maxBrief {
		first, more = first[:maxBrief]+"…", true
	}
	if more {
		return first + " (the engine's log has the runtime's full output)"
	}
	return first
}
