package engine

import "io"

// boundedBuffer keeps the first max bytes written to it (all when max is
// zero) and the last tailBytes.
type boundedBuffer struct {
	max   int
	head  []byte
	tail  []byte
	total int
}

func (b *boundedBuffer) Write(p []byte) (int, error) {
	b.total += len(p)
	if room := b.max - len(b.head); b.max == 0 || room > 0 {
		keep := p
		if b.max > 0 && len(keep) > room {
			keep = keep[:room]
		}
		b.head = append(b.head, keep...)
	}
	b.tail = append(b.tail, p...)
	if len(b.tail) > tailBytes {
		b.tail = b.tail[len(b.tail)-tailBytes:]
	}
	return len(p), nil
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

// Stdout and Stderr are the writers of the two streams.
func (o *Output) Stdout() io.Writer { return &o.stdout }
func (o *Output) Stderr() io.Writer { return &o.stderr }

// Result is what was collected, with the command's exit code.
func (o *Output) Result(id string, exitCode int) ExecResult {
	return ExecResult{
		ID: id, ExitCode: exitCode,
		Stdout: o.stdout.String(), StdoutCut: o.stdout.cut(), StdoutTail: o.stdout.tailString(),
		Stderr: o.stderr.String(), StderrCut: o.stderr.cut(), StderrTail: o.stderr.tailString(),
	}
}

// Tail is the last of both streams, interleaved as written, when both
// were given the same writer: see LastLogLines.
func (o *Output) Tail() string { return o.stdout.tailString() }
