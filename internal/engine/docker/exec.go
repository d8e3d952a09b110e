package docker

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"time"

	"github.com/docker/docker/api/types"
	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/pkg/stdcopy"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
)

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

// Exec runs a command in a running container, as the container's user, and
// waits for it to end: see RunExec.
func (c *Client) Exec(ctx context.Context, id string, cmd ...string) (engine.ExecResult, error) {
	return c.RunExec(ctx, id, engine.ExecSpec{Command: cmd})
}

// RunExec runs spec in a running container and waits for it to end. A
// command that runs and exits non-zero is not an error: see ExitCode. A
// command runs as long as it runs: its deadline is the caller's. When the
// caller's context ends first, the command's processes, its children and
// theirs included, are stopped (see ExecStop), and the error is an
// *ExecInterruptedError.
func (c *Client) RunExec(ctx context.Context, id string, spec engine.ExecSpec) (engine.ExecResult, error) {
	// What ran before the command, to tell its processes from the others.
	before, err := c.Processes(ctx, id)
	if err != nil && !errors.Is(err, engine.ErrCannotList) {
		return engine.ExecResult{}, err
	}
	marker := execMarker + "=" + engine.NewCreateToken()
	execID, att, err := c.startExecOnce(ctx, id, container.ExecOptions{
		Cmd: spec.Command, Env: append(append([]string{}, spec.Env...), marker), User: spec.User,
		WorkingDir: spec.WorkingDir, AttachStdout: true, AttachStderr: true,
	})
	if err != nil && execID != "" && ctx.Err() != nil {
		// Cut off as it started: the engine may have started it all the same.
		stop := c.stopExec(context.WithoutCancel(ctx), id, spec.User, marker, before)
		return engine.ExecResult{}, &engine.ExecInterruptedError{Container: id, Cause: ctx.Err(), Stop: stop}
	}
	if err != nil {
		return engine.ExecResult{}, err
	}
	defer att.Close()
	runCtx, cancel := engine.WithRunTimeout(ctx, spec.Timeout)
	defer cancel()
	out := engine.NewExecOutput(spec)
	_, copyErr := stdcopy.StdCopy(out.Stdout(), out.Stderr(), closeWhenDone(runCtx, att))
	if runCtx.Err() != nil {
		stop := c.stopExec(context.WithoutCancel(ctx), id, spec.User, marker, before)
		return engine.ExecResult{}, &engine.ExecInterruptedError{Container: id, Cause: runCtx.Err(), Stop: stop}
	}
	if copyErr != nil {
		return engine.ExecResult{}, copyErr
	}
	res, err := c.inspectExec(ctx, execID)
	if err != nil {
		return engine.ExecResult{}, err
	}
	return out.Result(execID, res.ExitCode), nil
}

// startExecOnce starts the command as startExec does, and again, up to
// twice, when the engine dropped the connection of the start without an
// answer and the exec, inspected, never started: rootless Podman's API
// service does that now and then under load. An exec that may have
// started is never started again: its error stands.
func (c *Client) startExecOnce(ctx context.Context, id string, opts container.ExecOptions) (string, types.HijackedResponse, error) {
	execID, att, err := c.startExec(ctx, id, opts)
	for attempt := 1; attempt < 3 && engine.DroppedAnswer(err) && execID != "" && ctx.Err() == nil; attempt++ {
		ins, inspectErr := c.inspectExec(ctx, execID)
		if inspectErr != nil || ins.Running || ins.Pid != 0 {
			break
		}
		execID, att, err = c.startExec(ctx, id, opts)
	}
	return execID, att, err
}

// startExec creates an exec and starts it, attached to its output.
func (c *Client) startExec(ctx context.Context, id string, opts container.ExecOptions) (string, types.HijackedResponse, error) {
	var created container.ExecCreateResponse
	// A create starts nothing: one whose answer was dropped is asked again
	// (an exec made and never started is removed with its container).
	err := c.rereadWithin(ctx, "the request to create an exec", engine.QuickCallTimeout, engine.DroppedAnswer,
		func(ctx context.Context) (err error) {
			created, err = c.api.ContainerExecCreate(ctx, id, opts)
			return err
		})
	if err != nil {
		return "", types.HijackedResponse{}, err
	}
	var att types.HijackedResponse
	err = c.within(ctx, "the request to start an exec", engine.QuickCallTimeout, func(ctx context.Context) (err error) {
		att, err = attachWithin(ctx, func() (types.HijackedResponse, error) {
			return c.api.ContainerExecAttach(ctx, created.ID, container.ExecAttachOptions{})
		})
		return err
	})
	return created.ID, att, err
}

// attachWithin runs a hijacking call, which reads the engine's answer
// without heeding its context once the request is sent, and gives up when
// ctx ends: an engine that never answers an exec's start cannot hold an
// interrupted apply. A connection that answers later is closed.
func attachWithin(ctx context.Context, attach func() (types.HijackedResponse, error)) (types.HijackedResponse, error) {
	type answer struct {
		att types.HijackedResponse
		err error
	}
	done := make(chan answer, 1)
	go func() {
		att, err := attach()
		done <- answer{att, err}
	}()
	select {
	case a := <-done:
		return a.att, a.err
	case <-ctx.Done():
		go func() {
			if a := <-done; a.err == nil {
				a.att.Close()
			}
		}()
		return types.HijackedResponse{}, ctx.Err()
	}
}

func (c *Client) inspectExec(ctx context.Context, execID string) (container.ExecInspect, error) {
	var res container.ExecInspect
	// A read, asked again when its answer was dropped (Processes).
	err := c.rereadWithin(ctx, "the request to inspect an exec", engine.QuickCallTimeout, engine.DroppedAnswer,
		func(ctx context.Context) (err error) {
			res, err = c.api.ContainerExecInspect(ctx, execID)
			return err
		})
	return res, err
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
func (c *Client) stopExec(ctx context.Context, id, user, marker string, before []engine.Process) engine.ExecStop {
	ctx, cancel := context.WithTimeout(ctx, killTimeout)
	defer cancel()
	// Everything that started since the command did is the command's, or
	// may be: the sandbox's main process may have started some of them.
	if before == nil {
		return c.restartToStop(ctx, id, nil, engine.ErrCannotList.Error())
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
	if killer > 0 && !slices.ContainsFunc(now, func(p engine.Process) bool { return p.OwnIDs }) {
		suspects[killer] = true
	} else if killer < 0 {
		maps.Copy(suspects, startedSince(ranBefore, now))
	}
	left := running(descendants(now, suspects))
	if len(left) == 0 {
		return engine.ExecStop{}
	}
	return c.restartToStop(ctx, id, left, "")
}

// restartToStop restarts a sandbox to stop the processes left in it, or
// all those it may hold when unchecked says why they are not known.
func (c *Client) restartToStop(ctx context.Context, id string, left []engine.Process, unchecked string) engine.ExecStop {
	stop := engine.ExecStop{Restarted: true, Survivors: len(left), Unchecked: unchecked}
	now := 0
	err := c.within(ctx, "the request to restart a container", engine.SlowCallTimeout, func(ctx context.Context) error {
		return c.api.ContainerRestart(ctx, id, container.StopOptions{Timeout: &now})
	})
	if err != nil && !engine.IsNotFound(err) {
		stop.Restarted, stop.Err = false, err
		for _, p := range left {
			stop.LeftPIDs = append(stop.LeftPIDs, p.PID)
		}
	}
	return stop
}

// startedSince returns the running processes of now that are not in
// before.
func startedSince(before, now []engine.Process) map[int]bool {
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
func running(procs []engine.Process) []engine.Process {
	var out []engine.Process
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
