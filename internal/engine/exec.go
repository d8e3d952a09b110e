package engine

import (
	"bytes"
	"context"
	"fmt"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/pkg/stdcopy"
)

// ExecResult is what a command run in a container gave.
type ExecResult struct {
	Stdout, Stderr string
	ExitCode       int
}

// Exec runs a command in a running container, as the container's user, and
// waits for it to end. A command that runs and exits non-zero is not an
// error: see ExitCode. A command runs as long as it runs: its deadline is
// the caller's.
func (c *Client) Exec(ctx context.Context, id string, cmd ...string) (ExecResult, error) {
	created, err := c.api.ContainerExecCreate(ctx, id, container.ExecOptions{
		Cmd: cmd, AttachStdout: true, AttachStderr: true,
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
	var stdout, stderr bytes.Buffer
	if _, err := stdcopy.StdCopy(&stdout, &stderr, att.Reader); err != nil {
		if ctx.Err() != nil {
			return ExecResult{}, fmt.Errorf("the command in container %s did not finish: %w", id, ctx.Err())
		}
		return ExecResult{}, err
	}
	if ctx.Err() != nil {
		return ExecResult{}, fmt.Errorf("the command in container %s did not finish: %w", id, ctx.Err())
	}
	res, err := c.api.ContainerExecInspect(ctx, created.ID)
	if err != nil {
		return ExecResult{}, err
	}
	return ExecResult{Stdout: stdout.String(), Stderr: stderr.String(), ExitCode: res.ExitCode}, nil
}
