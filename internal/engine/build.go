package engine

import (
	"fmt"
	"io"
	"strings"
)

// BuildSpec is an image build the provider asks of the engine.
type BuildSpec struct {
	// Context is a tar of the build context, Dockerfile included.
	Context    io.Reader
	Dockerfile string // path inside the context
	Tag        string // repository:tag; empty for an untagged image
	BuildArgs  map[string]string
	Target     string
	Labels     map[string]string
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
