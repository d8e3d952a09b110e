// Command floor measures what the Docker Engine API itself needs for the
// work a set of sandboxes takes: create (network mode "none") and start,
// inspect, and force remove, for N containers at Terraform's default
// concurrency. It is the floor the provider's apply, plan and destroy are
// compared with in bench/run.sh.
//
// It prints one line of tab-separated fields: N, then the seconds spent on
// each phase (create+start, inspect, remove). With -settle, it runs that
// command (bench/settle) before each phase, untimed, as bench/run.sh does
// before each terraform command.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/network"
	"github.com/docker/docker/client"
)

func main() {
	n := flag.Int("n", 10, "number of sandboxes")
	parallel := flag.Int("parallel", 10, "requests in flight at once (Terraform's default -parallelism is 10)")
	image := flag.String("image", "tfsandbox/busybox:latest", "local image the sandboxes run")
	prefix := flag.String("prefix", "tfbench-floor", "container name prefix")
	settleCmd := flag.String("settle", "", "command to run, untimed, before each phase (bench/settle)")
	flag.Parse()

	settle := func() {
		if *settleCmd != "" {
			cmd := exec.Command(*settleCmd)
			cmd.Stderr = os.Stderr
			_ = cmd.Run()
		}
	}
	if err := run(context.Background(), *n, *parallel, *image, *prefix, settle); err != nil {
		fmt.Fprintln(os.Stderr, "floor:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, n, parallel int, image, prefix string, settle func()) error {
	api, err := client.NewClientWithOpts(client.FromEnv, client.WithAPIVersionNegotiation())
	if err != nil {
		return err
	}
	defer func() { _ = api.Close() }()
	if _, err := api.Ping(ctx); err != nil {
		return err
	}

	settle()
	ids := make([]string, n)
	// The same container the provider creates for a sandbox with only image
	// and network_mode = "none" set: keep-alive entrypoint, docker-init,
	// no-new-privileges, restart unless-stopped, and labels of the same
	// number and size.
	withInit := true
	create, err := timed(n, parallel, func(i int) error {
		resp, err := api.ContainerCreate(ctx,
			&container.Config{Image: image, Entrypoint: []string{"tail", "-f", "/dev/null"}, Labels: labels(image, i)},
			&container.HostConfig{
				NetworkMode: "none", Init: &withInit, SecurityOpt: []string{"no-new-privileges"},
				RestartPolicy: container.RestartPolicy{Name: container.RestartPolicyUnlessStopped},
			},
			&network.NetworkingConfig{}, nil, fmt.Sprintf("%s-%d", prefix, i))
		if err != nil {
			return err
		}
		ids[i] = resp.ID
		return api.ContainerStart(ctx, resp.ID, container.StartOptions{})
	})
	// Remove whatever was created, even after a failure.
	defer func() {
		for _, id := range ids {
			if id != "" {
				_ = api.ContainerRemove(ctx, id, container.RemoveOptions{Force: true})
			}
		}
	}()
	if err != nil {
		return fmt.Errorf("create and start: %w", err)
	}

	settle()
	inspect, err := timed(n, parallel, func(i int) error {
		_, err := api.ContainerInspect(ctx, ids[i])
		return err
	})
	if err != nil {
		return fmt.Errorf("inspect: %w", err)
	}

	settle()
	remove, err := timed(n, parallel, func(i int) error {
		if err := api.ContainerRemove(ctx, ids[i], container.RemoveOptions{Force: true}); err != nil {
			return err
		}
		ids[i] = ""
		return nil
	})
	if err != nil {
		return fmt.Errorf("remove: %w", err)
	}

	fmt.Printf("%d\t%.3f\t%.3f\t%.3f\n", n, create.Seconds(), inspect.Seconds(), remove.Seconds())
	return nil
}

// labels stand for the provider's: what it was configured with, a create
// token, who made it and what.
func labels(image string, i int) map[string]string {
	return map[string]string{
		"tfsandbox.configured":    fmt.Sprintf(`{"image":%q}`, image),
		"tfsandbox.create-token":  fmt.Sprintf("%032x", i),
		"tfsandbox.managed-by":    "terraform-provider-sandbox-bench-floor",
		"tfsandbox.resource-type": "sandbox_container",
	}
}

// timed runs op for 0..n-1 with at most parallel calls in flight and returns
// the wall time, or the first error.
func timed(n, parallel int, op func(i int) error) (time.Duration, error) {
	start := time.Now()
	sem := make(chan struct{}, parallel)
	errs := make(chan error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			if err := op(i); err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	close(errs)
	return elapsed, <-errs
}
