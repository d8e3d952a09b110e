package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"syscall"
	"time"

	"github.com/docker/docker/api/types"
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
	// Timeout is how long the command may run once it started, zero as
	// long as the caller's context allows: the work before it starts (the
	// listing of the sandbox's processes a kill needs, the exec's creation)
	// does not count against it, so that a slow engine does not turn a
	// command's timeout into an engine error.
	Timeout time.Duration
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

// execMarker is the environment variable that marks the processes of one
// exec, so that the kill inside the sandbox finds them: the engine's API
// cannot kill an exec.
const execMarker = "TFSANDBOX_EXEC"

// killTimeout bounds the stopping of an interrupted command, and
// killInsideTimeout its first step, the kill inside the sandbox.
const (
	killTimeout       = 15 * time.Second
	killInsideTimeout = 6 * time.Second
)

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
// caller's context ends first, the command's processes, its children and
// theirs included, are stopped (see ExecStop), and the error is an
// *ExecInterruptedError.
func (c *Client) RunExec(ctx context.Context, id string, spec ExecSpec) (ExecResult, error) {
	// What ran before the command, to tell its processes from the others.
	before, err := c.Processes(ctx, id)
	if err != nil && !errors.Is(err, ErrCannotList) {
		return ExecResult{}, err
	}
	marker := execMarker + "=" + NewCreateToken()
	execID, att, err := c.startExecOnce(ctx, id, container.ExecOptions{
		Cmd: spec.Command, Env: append(append([]string{}, spec.Env...), marker), User: spec.User,
		WorkingDir: spec.WorkingDir, AttachStdout: true, AttachStderr: true,
	})
	if err != nil && execID != "" && ctx.Err() != nil {
		// Cut off as it started: the engine may have started it all the same.
		stop := c.stopExec(context.WithoutCancel(ctx), id, spec.User, marker, before)
		return ExecResult{}, &ExecInterruptedError{Container: id, Cause: ctx.Err(), Stop: stop}
	}
	if err != nil {
		return ExecResult{}, err
	}
	defer att.Close()
	runCtx, cancel := WithRunTimeout(ctx, spec.Timeout)
	defer cancel()
	stdout, stderr := &boundedBuffer{max: spec.MaxOutput}, &boundedBuffer{max: spec.MaxOutput}
	_, copyErr := stdcopy.StdCopy(stdout, stderr, closeWhenDone(runCtx, att))
	if runCtx.Err() != nil {
		stop := c.stopExec(context.WithoutCancel(ctx), id, spec.User, marker, before)
		return ExecResult{}, &ExecInterruptedError{Container: id, Cause: runCtx.Err(), Stop: stop}
	}
	if copyErr != nil {
		return ExecResult{}, copyErr
	}
	res, err := c.inspectExec(ctx, execID)
	if err != nil {
		return ExecResult{}, err
	}
	return ExecResult{
		ID: execID, ExitCode: res.ExitCode,
		Stdout: stdout.String(), StdoutCut: stdout.cut(), StdoutTail: stdout.tailString(),
		Stderr: stderr.String(), StderrCut: stderr.cut(), StderrTail: stderr.tailString(),
	}, nil
}

// startExecOnce starts the command as startExec does, and again, up to
// twice, when the engine dropped the connection of the start without an
// answer and the exec, inspected, never started: rootless Podman's API
// service does that now and then under load. An exec that may have
// started is never started again: its error stands.
func (c *Client) startExecOnce(ctx context.Context, id string, opts container.ExecOptions) (string, types.HijackedResponse, error) {
	execID, att, err := c.startExec(ctx, id, opts)
	for attempt := 1; attempt < 3 && DroppedAnswer(err) && execID != "" && ctx.Err() == nil; attempt++ {
		ins, inspectErr := c.inspectExec(ctx, execID)
		if inspectErr != nil || ins.Running || ins.Pid != 0 {
			break
		}
		execID, att, err = c.startExec(ctx, id, opts)
	}
	return execID, att, err
}

// DroppedAnswer reports whether err is a connection the engine closed
// before it answered: an end of stream, or a reset when it closed with
// the request still unread.
func DroppedAnswer(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET)
}

// startExec creates an exec and starts it, attached to its output.
func (c *Client) startExec(ctx context.Context, id string, opts container.ExecOptions) (string, types.HijackedResponse, error) {
	var created container.ExecCreateResponse
	err := c.within(ctx, "the request to create an exec", QuickCallTimeout, func(ctx context.Context) (err error) {
		created, err = c.api.ContainerExecCreate(ctx, id, opts)
		return err
	})
	if err != nil {
		return "", types.HijackedResponse{}, err
	}
	var att types.HijackedResponse
	err = c.within(ctx, "the request to start an exec", QuickCallTimeout, func(ctx context.Context) (err error) {
		att, err = c.api.ContainerExecAttach(ctx, created.ID, container.ExecAttachOptions{})
		return err
	})
	return created.ID, att, err
}

func (c *Client) inspectExec(ctx context.Context, execID string) (container.ExecInspect, error) {
	var res container.ExecInspect
	err := c.within(ctx, "the request to inspect an exec", QuickCallTimeout, func(ctx context.Context) (err error) {
		res, err = c.api.ContainerExecInspect(ctx, execID)
		return err
	})
	return res, err
}

// WithRunTimeout bounds a started command's context by its ExecSpec's
// Timeout, when it has one.
func WithRunTimeout(ctx context.Context, timeout time.Duration) (context.Context, context.CancelFunc) {
	if timeout <= 0 {
		return context.WithCancel(ctx)
	}
	return context.WithTimeout(ctx, timeout)
}

// closeWhenDone returns att's output stream, closed when ctx ends: it is a
// hijacked connection that ignores ctx, so a command whose sandbox died
// (gVisor's, over its memory, never answers) or that never ends (a kill
// script the sandbox replaced) could otherwise hold the caller past its
// deadline.
func closeWhenDone(ctx context.Context, att types.HijackedResponse) io.Reader {
	stop := context.AfterFunc(ctx, att.Close)
	return readerFunc(func(p []byte) (int, error) {
		n, err := att.Reader.Read(p)
		if err != nil {
			stop()
		}
		return n, err
	})
}

type readerFunc func(p []byte) (int, error)

func (f readerFunc) Read(p []byte) (int, error) { return f(p) }

// stopExec stops an interrupted command's processes: see ExecStop. before
// is the sandbox's processes before the command started (nil when the
// engine cannot list them).
func (c *Client) stopExec(ctx context.Context, id, user, marker string, before []Process) ExecStop {
	ctx, cancel := context.WithTimeout(ctx, killTimeout)
	defer cancel()
	// Everything that started since the command did is the command's, or
	// may be: the sandbox's main process may have started some of them.
	if before == nil {
		return c.restartToStop(ctx, id, nil, ErrCannotList.Error())
	}
	ranBefore, err := c.Processes(ctx, id)
	if err != nil {
		c.killMarked(ctx, id, user, marker)
		return c.restartToStop(ctx, id, nil, fmt.Sprintf("the engine did not list the sandbox's processes (%v)", err))
	}
	suspects := startedSince(before, ranBefore)
	killer := c.killMarked(ctx, id, user, marker)
	now, err := c.Processes(ctx, id)
	if err != nil {
		return c.restartToStop(ctx, id, nil, fmt.Sprintf("the engine did not list the sandbox's processes (%v)", err))
	}
	// What the kill inside ran is suspect too: all that started meanwhile,
	// when the engine did not say which it was, or lists processes by the
	// container's own IDs, not by the host's that an exec's ID is.
	if killer > 0 && !slices.ContainsFunc(now, func(p Process) bool { return p.OwnIDs }) {
		suspects[killer] = true
	} else if killer < 0 {
		maps.Copy(suspects, startedSince(ranBefore, now))
	}
	left := running(descendants(now, suspects))
	if len(left) == 0 {
		return ExecStop{}
	}
	return c.restartToStop(ctx, id, left, "")
}

// restartToStop restarts a sandbox to stop the processes left in it, or
// all those it may hold when unchecked says why they are not known.
func (c *Client) restartToStop(ctx context.Context, id string, left []Process, unchecked string) ExecStop {
	stop := ExecStop{Restarted: true, Survivors: len(left), Unchecked: unchecked}
	now := 0
	err := c.within(ctx, "the request to restart a container", SlowCallTimeout, func(ctx context.Context) error {
		return c.api.ContainerRestart(ctx, id, container.StopOptions{Timeout: &now})
	})
	if err != nil && !IsNotFound(err) {
		stop.Restarted, stop.Err = false, err
		for _, p := range left {
			stop.LeftPIDs = append(stop.LeftPIDs, p.PID)
		}
	}
	return stop
}

// startedSince returns the running processes of now that are not in
// before.
func startedSince(before, now []Process) map[int]bool {
	old := make(map[int]bool, len(before))
	for _, p := range before {
		old[p.PID] = true
	}
	out := map[int]bool{}
	for _, p := range running(now) {
		if !old[p.PID] {
			out[p.PID] = true
		}
	}
	return out
}

// running drops zombies, which run nothing, from procs.
func running(procs []Process) []Process {
	var out []Process
	for _, p := range procs {
		if !p.Zombie {
			out = append(out, p)
		}
	}
	return out
}

// killMarked kills, inside the container, every process whose environment
// holds marker, as user (who can signal their own processes), with the
// sandbox's own shell: it may do nothing, or never end, and is bounded by
// killInsideTimeout. It returns the host process ID of the shell it ran,
// whose processes are the command's as far as stopping goes, 0 when none
// ran, or -1 when one may have run and its ID is unknown.
func (c *Client) killMarked(ctx context.Context, id, user, marker string) int {
	inside, cancel := context.WithTimeout(ctx, killInsideTimeout)
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
done`
	execID, att, err := c.startExec(inside, id, container.ExecOptions{
		Cmd: []string{"/bin/sh", "-c", script, "kill", marker}, User: user, AttachStdout: true, AttachStderr: true,
	})
	if err != nil && execID == "" {
		return 0
	}
	pid := -1
	if err == nil {
		pid = c.execPID(inside, execID)
		_, _ = io.Copy(io.Discard, closeWhenDone(inside, att))
		att.Close()
	}
	return pid
}

// execPID returns the host process ID of a started exec, or -1 when the
// engine does not tell it within a second: Podman forgets it once the exec
// has ended, and tells none before it runs.
func (c *Client) execPID(ctx context.Context, execID string) int {
	for range 50 {
		if res, err := c.inspectExec(ctx, execID); err != nil || res.Pid > 0 {
			if err != nil {
				return -1
			}
			return res.Pid
		}
		select {
		case <-ctx.Done():
			return -1
		case <-time.After(20 * time.Millisecond):
		}
	}
	return -1
}
