package docker

import (
	"context"
	"io"
	"strconv"
	"strings"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/pkg/stdcopy"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
)

// logBytes bounds how much of a container's log LastLogLines reads.
const logBytes = 64 << 10

// LastLogLines returns the last lines (at most n, and at most 2 KiB) that a
// container's main process wrote, both streams interleaved, for an error
// that says why it does not stay up.
func (c *Client) LastLogLines(ctx context.Context, id string, n int) (string, error) {
	var out strings.Builder
	err := c.within(ctx, "the request for a container's log", engine.QuickCallTimeout, func(ctx context.Context) error {
		rc, err := c.api.ContainerLogs(ctx, id, container.LogsOptions{ShowStdout: true, ShowStderr: true,
			Tail: strconv.Itoa(n)})
		if err != nil {
			return err
		}
		defer func() { _ = rc.Close() }()
		both := engine.NewOutput(1)
		_, err = stdcopy.StdCopy(both.Stdout(), both.Stdout(), io.LimitReader(rc, logBytes))
		out.WriteString(both.Tail())
		return err
	})
	return strings.TrimSpace(out.String()), err
}
