package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/pkg/stdcopy"
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
// caller's deadline or cancellation, and whether its processes were then
// killed inside the container.
type ExecInterruptedError struct {
	Container string
	Cause     error // the caller's context error
	KillErr   error // nil when the processes were killed
}

func (e *ExecInterruptedError) Error() string {
	what := fmt.Sprintf("the command in container %s did not finish (%v)", ShortID(e.Container), e.Cause)
	if e.KillErr != nil {
		return what + fmt.Sprintf(" and could not be stopped inside it (%v): it may still be running", e.KillErr)
	}
	return what + "; its processes inside were killed"
}

func (e *ExecInterruptedError) Unwrap() error { return e.Cause }

// execMarker is the environment variable that marks the processes of one
// exec, so that they can be found and killed inside the container when
// the exec is interrupted: the engine's API cannot kill an exec.
const execMarker = "TFSANDBOX_EXEC"

// killTimeout bounds the exec that kills an interrupted one.
const killTimeout = 15 * time.Second

// tailBytes is how much of the end of each stream a result keeps for
// error messages.
const tailBytes = 2048

// Exec runs a command in a running container, as the container's user, and
// waits for it to end: see RunExec.
func (c *Client) Exec(ctx context.Context, id string, cmd ...string) (ExecResult, error) {
	return c.RunExec(ctx, id, ExecSpec{Command: cmd})
}

// RunExec runs spec in a running container and waits for it to end. A
// command that runs and exits non-zero is not an error: see ExitCode. A
// command runs as long as it runs: its deadline is the caller's. When the
// caller's context ends first, the command's processes (those that carry
// its marker in their environment, its children included) are killed
// inside the container, and the error is an *ExecInterruptedError.
func (c *Client) RunExec(ctx context.Context, id string, spec ExecSpec) (ExecResult, error) {
	marker := execMarker + "=" + NewCreateToken()
	created, err := c.api.ContainerExecCreate(ctx, id, container.ExecOptions{
		Cmd: spec.Command, Env: append(append([]string{}, spec.Env...), marker), User: spec.User,
		WorkingDir: spec.WorkingDir, AttachStdout: true, AttachStderr: true,
	})
	if err != nil {
		return ExecResult{}, err
	}
	att, err := c.api.ContainerExecAttach(ctx, created.ID, container.ExecAttachOptions{})
	if err != nil {
		return ExecResult{}, err
	}
	defer att.Close()
	// The output stream is a hijacked connection that ignores ctx: close it
	// when ctx ends, so that a command whose sandbox died (gVisor's, over
	// its memory, never answers) cannot hold the caller past its deadline.
	finished := make(chan struct{})
	defer close(finished)
	go func() {
		select {
		case <-ctx.Done():
			att.Close()
		case <-finished:
		}
	}()
	stdout, stderr := &boundedBuffer{max: spec.MaxOutput}, &boundedBuffer{max: spec.MaxOutput}
	_, copyErr := stdcopy.StdCopy(stdout, stderr, att.Reader)
	if ctx.Err() != nil {
		return ExecResult{}, &ExecInterruptedError{Container: id, Cause: ctx.Err(), KillErr: c.killMarked(ctx, id, spec.User, marker)}
	}
	if copyErr != nil {
		return ExecResult{}, copyErr
	}
	res, err := c.api.ContainerExecInspect(ctx, created.ID)
	if err != nil {
		return ExecResult{}, err
	}
	return ExecResult{
		ID: created.ID, ExitCode: res.ExitCode,
		Stdout: stdout.String(), StdoutCut: stdout.cut(), StdoutTail: stdout.tailString(),
		Stderr: stderr.String(), StderrCut: stderr.cut(), StderrTail: stderr.tailString(),
	}, nil
}

// killMarked kills, inside the container, every process whose environment
// holds marker, as user (who can signal their own processes). It needs a
// shell in the image.
func (c *Client) killMarked(ctx context.Context, id, user, marker string) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), killTimeout)
	defer cancel()
	// A killed process takes a moment to go: look again, a few times.
	script := `marked() {
  for p in /proc/[0-9]*; do
    if tr '\0' '\n' < "$p/environ" 2>/dev/null | grep -qx "$1"; then echo "${p#/proc/}"; fi
  done
}
for attempt in 1 2 3 4 5; do
  pids="$(marked "$1")"
  [ -z "$pids" ] && exit 0
  kill -KILL $pids 2>/dev/null
  sleep 1
done
[ -z "$(marked "$1")" ] || exit 3`
	created, err := c.api.ContainerExecCreate(ctx, id, container.ExecOptions{
		Cmd: []string{"/bin/sh", "-c", script, "kill", marker}, User: user, AttachStdout: true, AttachStderr: true,
	})
	if err != nil {
		return err
	}
	att, err := c.api.ContainerExecAttach(ctx, created.ID, container.ExecAttachOptions{})
	if err != nil {
		return err
	}
	_, _ = io.Copy(io.Discard, att.Reader)
	att.Close()
	res, err := c.api.ContainerExecInspect(ctx, created.ID)
	switch {
	case err != nil:
		return err
	case res.ExitCode == 3:
		return errors.New("some of its processes survived SIGKILL")
	case res.ExitCode != 0:
		return fmt.Errorf("the kill script exited %d (the image needs /bin/sh, tr and grep)", res.ExitCode)
	}
	return nil
}

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
