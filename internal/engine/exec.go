package engine

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"syscall"
	"time"
)

// ExecSpec is a command to run in a running container.
type ExecSpec struct {
	Command    []string
	Env        []string // NAME=value
	User       string   // empty: the container's user
	WorkingDir string   // empty: the container's
	// MaxOutput is how many bytes of each stream the result keeps (the
	// first ones); zero keeps everything.
	MaxOutput int
	// Timeout is how long the command may run once it started, zero as
	// long as the caller's context allows: the work before it starts (the
	// listing of the sandbox's processes a kill needs, the exec's creation)
	// does not count against it, so that a slow engine does not turn a
	// command's timeout into an engine error.
	Timeout time.Duration
	// Lines, when set, is given each line of each stream as it arrives
	// ("stdout" or "stderr"), without its newline, as long as the stream
	// is within MaxOutput: an action shows a command's output as it runs.
	Lines func(stream, line string)
}

// ExecResult is what a command run in a container gave.
type ExecResult struct {
	ID             string // the engine's ID of the exec
	Stdout, Stderr string
	// StdoutCut and StderrCut say that the stream was longer than
	// MaxOutput and was cut.
	StdoutCut, StderrCut bool
	// StdoutTail and StderrTail are the last lines of each stream, for
	// error messages, whether or not it was cut.
	StdoutTail, StderrTail string
	ExitCode               int
}

// ExecInterruptedError says that a command did not finish before its
// caller's deadline or cancellation, and how its processes were stopped.
type ExecInterruptedError struct {
	Container string
	Cause     error // the caller's context error
	Stop      ExecStop
}

// ExecStop is how an interrupted command's processes were stopped. They
// are first killed inside the sandbox (by a script that the sandbox's own
// code may have replaced, so it is trusted with nothing), then the
// engine's list of the sandbox's processes, read from the host, is checked
// for any that started with the command and outlived the kill. Those, or
// all when the engine cannot list them, are stopped by restarting the
// sandbox.
type ExecStop struct {
	// Restarted says the sandbox was restarted to stop them.
	Restarted bool
	// Survivors is how many outlived the kill inside, unless Unchecked
	// says why the engine's list could not be checked.
	Survivors int
	Unchecked string
	// Err says they could not be stopped: LeftPIDs (host process IDs, when
	// known) may still run.
	Err      error
	LeftPIDs []int
	// Note, from a backend that cannot list a sandbox's processes (a
	// cluster), says what was done and what may still run, in place of
	// the above.
	Note string
}

func (e *ExecInterruptedError) Error() string {
	what := fmt.Sprintf("the command in container %s did not finish (%v)", ShortID(e.Container), e.Cause)
	s := e.Stop
	if s.Note != "" {
		return what + "; " + s.Note
	}
	survived := fmt.Sprintf("%d of its processes outlived a kill inside the sandbox", s.Survivors)
	if s.Unchecked != "" {
		survived = s.Unchecked + " to check that a kill inside it worked"
	}
	switch {
	case s.Err != nil && s.Unchecked != "":
		return what + fmt.Sprintf("; %s, and restarting the sandbox failed (%v), so any of the command's "+
			"processes may still run. Restart or remove the sandbox (docker restart %s)", survived, s.Err,
			ShortID(e.Container))
	case s.Err != nil:
		return what + fmt.Sprintf("; %s, and restarting the sandbox failed (%v), so they may still run (host "+
			"process IDs %v). Restart or remove the sandbox (docker restart %s)", survived, s.Err, s.LeftPIDs,
			ShortID(e.Container))
	case s.Restarted:
		return what + "; " + survived + ", so the sandbox was restarted, which stopped them (its main process " +
			"was restarted too, and its tmpfs contents are gone)"
	}
	return what + "; its processes were killed, and the engine lists none of them left in the sandbox"
}

func (e *ExecInterruptedError) Unwrap() error { return e.Cause }

// tailBytes is how much of the end of each stream a result keeps for
// error messages.
const tailBytes = 2048

// DroppedAnswer reports whether err is a connection the engine closed
// before it answered: an end of stream, or a reset when it closed with
// the request still unread.
func DroppedAnswer(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET)
}

// WithRunTimeout bounds a started command's context by its ExecSpec's
// Timeout, when it has one.
func WithRunTimeout(ctx context.Context, timeout time.Duration) (context.Context, context.CancelFunc) {
	if timeout <= 0 {
		return context.WithCancel(ctx)
	}
	return context.WithTimeout(ctx, timeout)
}

// boundedBuffer keeps the first max bytes written to it (all when max is
// zero) and the last tailBytes.
type boundedBuffer struct {
	max   int
	head  []byte
	tail  []byte
	total int
	// lines, when set, is given each line of the head as it completes;
	// sent is how much of the head it was given.
	lines func(string)
	sent  int
}

func (b *boundedBuffer) Write(p []byte) (int, error) {
	b.total += len(p)
	if room := b.max - len(b.head); b.max == 0 || room > 0 {
		keep := p
		if b.max > 0 && len(keep) > room {
			keep = keep[:room]
		}
		b.head = append(b.head, keep...)
		b.sendLines(false)
	}
	b.tail = append(b.tail, p...)
	if len(b.tail) > tailBytes {
		b.tail = b.tail[len(b.tail)-tailBytes:]
	}
	return len(p), nil
}

// sendLines gives lines each complete line of the head not yet given, and
// with all the rest as a last line.
func (b *boundedBuffer) sendLines(all bool) {
	if b.lines == nil {
		return
	}
	for {
		rest := b.head[b.sent:]
		i := bytes.IndexByte(rest, '\n')
		if i < 0 {
			if all && len(rest) > 0 {
				b.lines(string(rest))
				b.sent = len(b.head)
			}
			return
		}
		b.lines(string(rest[:i]))
		b.sent += i + 1
	}
}

func (b *boundedBuffer) String() string     { return string(b.head) }
func (b *boundedBuffer) cut() bool          { return b.total > len(b.head) }
func (b *boundedBuffer) tailString() string { return string(b.tail) }

// Output collects a command's two streams as RunExec keeps them, for
// another backend (package kube).
type Output struct{ stdout, stderr boundedBuffer }

// NewOutput keeps the first maxBytes of each stream (all when zero) and
// the last lines of each.
func NewOutput(maxBytes int) *Output {
	return &Output{stdout: boundedBuffer{max: maxBytes}, stderr: boundedBuffer{max: maxBytes}}
}

// NewExecOutput collects a command's streams as spec asks: its first
// MaxOutput bytes, given line by line to spec.Lines when set.
func NewExecOutput(spec ExecSpec) *Output {
	o := NewOutput(spec.MaxOutput)
	if spec.Lines != nil {
		o.stdout.lines = func(l string) { spec.Lines("stdout", l) }
		o.stderr.lines = func(l string) { spec.Lines("stderr", l) }
	}
	return o
}

// Stdout and Stderr are the writers of the two streams.
func (o *Output) Stdout() io.Writer { return &o.stdout }
func (o *Output) Stderr() io.Writer { return &o.stderr }

// Result is what was collected, with the command's exit code.
func (o *Output) Result(id string, exitCode int) ExecResult {
	o.stdout.sendLines(true)
	o.stderr.sendLines(true)
	return ExecResult{
		ID: id, ExitCode: exitCode,
		Stdout: o.stdout.String(), StdoutCut: o.stdout.cut(), StdoutTail: o.stdout.tailString(),
		Stderr: o.stderr.String(), StderrCut: o.stderr.cut(), StderrTail: o.stderr.tailString(),
	}
}

// Tail is the last of both streams, interleaved as written, when both
// were given the same writer: see LastLogLines.
func (o *Output) Tail() string { return o.stdout.tailString() }

// Process is one process of a running container, as the engine sees it
// from the host: PID and PPID are host process IDs, or the container's own
// where the engine cannot tell the host's (rootless Podman).
type Process struct {
	PID, PPID int
	// OwnIDs says PID and PPID are the container's own.
	OwnIDs bool
	// Zombie says it has exited and waits for its parent to reap it: it
	// runs nothing.
	Zombie  bool
	Command string // its command line: may hold secrets, never for messages
}

// ErrCannotList says that the engine cannot list a container's processes
// from the host: gVisor's sandboxes keep their process table to themselves
// (Docker's listing of one names unrelated host processes).
var ErrCannotList = errors.New("the engine cannot list the processes of a gVisor sandbox from the host")
