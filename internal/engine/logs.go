package engine

import (
	"context"
	"io"
	"strconv"
	"strings"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/pkg/stdcopy"
)

// logBytes bounds how much of a container's log LastLogLines reads.
const logBytes = 64 << 10

// LastLogLines returns the last lines (at most n, and at most 2 KiB) that a
// container's main process wrote, both streams interleaved, for an error
// that says why it does not stay up.
func (c *Client) LastLogLines(ctx context.Context, id string, n int) (string, error) {
	var out strings.Builder
	err := c.within(ctx, "the request for a container's log", QuickCallTimeout, func(ctx context.Context) error {
		rc, err := c.api.ContainerLogs(ctx, id, container.LogsOptions{ShowStdout: true, ShowStderr: true,
			Tail: strconv.Itoa(n)})
		if err != nil {
			return err
		}
		defer func() { _ = rc.Close() }()
		both := &boundedBuffer{max: 1}
		_, err = stdcopy.StdCopy(both, both, io.LimitReader(rc, logBytes))
		out.WriteString(both.tailString())
		return err
	})
	return strings.TrimSpace(out.String()), err
}

// Restarting reports whether the engine shows a container's main process
// between two restarts by its restart policy (Docker then still calls the
// container running).
func Restarting(c Container) bool {
	return c.ContainerJSONBase != nil && c.State != nil && (c.State.Restarting || c.State.Status == "restarting")
}

// Restarts is how many times the engine has restarted a container's main
// process by its restart policy.
func Restarts(c Container) int {
	if c.ContainerJSONBase == nil {
		return 0
	}
	return c.RestartCount
}
