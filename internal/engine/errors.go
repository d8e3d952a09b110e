package engine

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	cerrdefs "github.com/containerd/errdefs"
)

// IsNotFound reports whether err says the object does not exist.
func IsNotFound(err error) bool { return cerrdefs.IsNotFound(err) }

// IsConflict reports whether err says the object conflicts with an existing
// one (for example a container name already in use).
func IsConflict(err error) bool { return cerrdefs.IsConflict(err) }

// NextStep is what to do about a call to where (a backend's Where) that
// failed with err, by the error's class (errdefs; a cluster's errors are
// classified the same way): the sentence a diagnostic about a failed
// engine call ends with.
func NextStep(err error, where string) string {
	switch {
	case errors.Is(err, context.Canceled):
		return "The run was interrupted: apply again to finish it."
	case IsUnanswered(err) || errors.Is(err, context.DeadlineExceeded) || cerrdefs.IsUnavailable(err):
		return fmt.Sprintf("Check that %s is running and answers (its address, the network to it, its load), "+
			"then apply again.", where)
	case cerrdefs.IsPermissionDenied(err) || cerrdefs.IsUnauthorized(err):
		return fmt.Sprintf("Give the user Terraform runs as the permission %s refused (the error names it), "+
			"or configure the provider with credentials that have it, then apply again.", where)
	case IsNotFound(err):
		return "It was removed outside Terraform while the provider worked on it: apply again, which plans " +
			"from what is there now."
	case IsConflict(err):
		return "Something else changed it at the same time: apply again."
	case cerrdefs.IsInvalidArgument(err):
		return fmt.Sprintf("%s refused the request as the provider made it from the configuration: change the "+
			"value the error names, or report it to the provider if the configuration is valid.", where)
	}
	return fmt.Sprintf("Look in the log of %s for the cause and fix it there, then apply again; if it shows "+
		"none, report it to the provider with this message.", where)
}

// maxBrief bounds Brief's text.
const maxBrief = 400

// Brief is an engine error as one readable sentence: the first line of its
// text, cut at maxBrief characters. A runtime that fails can make the
// engine's error carry its whole usage text (runsc prints about 40 lines);
// the message says that the rest is in the engine's log. What a terminal
// would act on is escaped (Printable).
func Brief(err error) string {
	text := strings.TrimSpace(err.Error())
	first, _, more := strings.Cut(text, "\n")
	first = printable(first)
	if len(first) > maxBrief {
		first, more = first[:maxBrief]+"…", true
	}
	if more {
		return first + " (the engine's log has the runtime's full output)"
	}
	return first
}

// Printable is an error's whole text with every character a terminal
// would act on escaped as Go escapes it (\x1b, \r, \u202e, \xff for a
// byte that is not UTF-8), lines kept: an engine's message quotes names
// and paths a sandbox chose, which can carry escape sequences.
func Printable(err error) string {
	lines := strings.Split(strings.TrimSpace(err.Error()), "\n")
	for i, l := range lines {
		lines[i] = printable(l)
	}
	return strings.Join(lines, "\n")
}

func printable(s string) string {
	var b strings.Builder
	for i, w := 0, 0; i < len(s); i += w {
		r, size := utf8.DecodeRuneInString(s[i:])
		w = size
		switch {
		case r == utf8.RuneError && size == 1:
			b.WriteString(`\x` + strconv.FormatUint(uint64(s[i])|0x100, 16)[1:])
		case r == '\t' || unicode.IsPrint(r):
			b.WriteRune(r)
		default:
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
		}
	}
	return b.String()
}

// HelperImageError is a copy into or out of a volume refused before its
// helper started: the helper's image cannot be used there. Detail says why
// and which setting to give.
type HelperImageError struct{ Detail string }

func (e *HelperImageError) Error() string { return e.Detail }
