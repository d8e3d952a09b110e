package docker

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/docker/docker/api/types/container"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
)

// Processes lists a running container's processes from the host, never by
// running anything inside the container: Docker runs the host's ps,
// Podman reads the container's /proc itself (asked for descriptors it
// knows, so that it does not fall back to the container's own ps).
func (c *Client) Processes(ctx context.Context, id string) ([]engine.Process, error) {
	var (
		runtime string
		top     container.TopResponse
	)
	kind := c.Kind(ctx)
	// A read: one whose connection the engine closed without an answer
	// (rootless Podman's API service, now and then under load: an exec
	// failed so in a CI run) is asked again.
	call := "the request to list a container's processes"
	err := c.rereadWithin(ctx, call, engine.QuickCallTimeout, engine.DroppedAnswer, func(ctx context.Context) error {
		info, err := c.api.ContainerInspect(ctx, id)
		if err != nil {
			return err
		}
		runtime = info.HostConfig.Runtime
		if facts, err := c.Facts(ctx); err == nil && facts.IsGVisor(runtime) {
			return engine.ErrCannotList
		}
		args := []string{"-eo", "pid,ppid,stat,args"}
		if kind == KindPodman {
			args = []string{"pid,ppid,hpid,state,args"}
		}
		top, err = c.api.ContainerTop(ctx, id, args)
		return err
	})
	if err != nil {
		return nil, err
	}
	return parseTop(top, kind == KindPodman)
}

// parseTop reads a top answer whose columns are PID, PPID, the state and
// the command line, with Podman's the host PID before the state (its PID
// and PPID are the container's own).
func parseTop(top container.TopResponse, podman bool) ([]engine.Process, error) {
	want := []string{"PID", "PPID", "STAT", "COMMAND"}
	if podman {
		want = []string{"PID", "PPID", "HPID", "STATE", "COMMAND"}
	}
	if !slices.Equal(top.Titles, want) {
		return nil, fmt.Errorf("the engine listed a container's processes with columns %v, not %v", top.Titles, want)
	}
	var procs []engine.Process
	hostPID := map[int]int{0: 0} // container PID → host PID, on Podman
	for _, row := range top.Processes {
		if len(row) != len(want) {
			return nil, fmt.Errorf("the engine listed a process as %d columns, not %d", len(row), len(want))
		}
		pid, err1 := strconv.Atoi(row[0])
		ppid, err2 := strconv.Atoi(row[1])
		if err := errors.Join(err1, err2); err != nil {
			return nil, fmt.Errorf("the engine listed a process with a malformed ID: %w", err)
		}
		p := engine.Process{PID: pid, PPID: ppid, Zombie: strings.HasPrefix(row[len(row)-2], "Z"),
			Command: row[len(row)-1]}
		if podman && row[2] == "?" {
			// Rootless Podman cannot map the container's IDs to the host's.
			p.OwnIDs = true
		} else if podman {
			host, err := strconv.Atoi(row[2])
			if err != nil {
				return nil, fmt.Errorf("the engine listed a process with a malformed host ID: %w", err)
			}
			hostPID[pid], p.PID = host, host
		}
		procs = append(procs, p)
	}
	for i := range procs {
		if podman && !procs[i].OwnIDs {
			procs[i].PPID = hostPID[procs[i].PPID]
		}
	}
	return procs, nil
}

// descendants returns the processes of procs that are in roots or descend
// from one of them.
func descendants(procs []engine.Process, roots map[int]bool) []engine.Process {
	parent := make(map[int]int, len(procs))
	for _, p := range procs {
		parent[p.PID] = p.PPID
	}
	var out []engine.Process
	for _, p := range procs {
		for pid, hops := p.PID, 0; pid != 0 && hops <= len(procs); pid, hops = parent[pid], hops+1 {
			if roots[pid] {
				out = append(out, p)
				break
			}
		}
	}
	return out
}
