// Command floor measures what the Docker Engine API itself needs for the
// work a set of sandboxes takes: create (network mode "none") and start,
// inspect, and force remove (bench/internal/floorcalls), for N containers
// at Terraform's default concurrency. It is the floor the provider's
// apply, plan and destroy are compared with in bench/run.sh.
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

	"github.com/tfsandbox/terraform-provider-sandbox/bench/internal/floorcalls"
)

func main() {
	n := flag.Int("n", 10, "number of sandboxes")
	parallel := flag.Int("parallel", 10, "requests in flight at once (Terraform's default -parallelism is 10)")
	image := flag.String("image", "tfsandbox/busybox:latest", "local image the sandboxes run")
	prefix := flag.String("prefix", "tfbench-floor", "container name prefix")
	settleCmd := flag.String("settle", "", "command to run, untimed, before each phase (bench/settle)")
	volumes := flag.Bool("remove-volumes", false, "remove anonymous volumes too, as the provider's removal asks")
	flag.Parse()

	settle := func() {
		if *settleCmd != "" {
			cmd := exec.Command(*settleCmd)
			cmd.Stderr = os.Stderr
			_ = cmd.Run()
		}
	}
	if err := run(context.Background(), *n, *parallel, *image, *prefix, *volumes, settle); err != nil {
		fmt.Fprintln(os.Stderr, "floor:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, n, parallel int, image, prefix string, volumes bool, settle func()) error {
	api, err := floorcalls.Connect(ctx)
	if err != nil {
		return err
	}
	defer func() { _ = api.Close() }()

	settle()
	ids := make([]string, n)
	create, err := timed(n, parallel, func(i int) error {
		id, err := floorcalls.CreateAndStart(ctx, api, image, fmt.Sprintf("%s-%d", prefix, i), i)
		ids[i] = id
		return err
	})
	// Remove whatever was created, even after a failure.
	defer func() {
		for _, id := range ids {
			if id != "" {
				_ = floorcalls.Remove(ctx, api, id)
			}
		}
	}()
	if err != nil {
		return fmt.Errorf("create and start: %w", err)
	}

	settle()
	inspect, err := timed(n, parallel, func(i int) error {
		_, err := floorcalls.Inspect(ctx, api, ids[i])
		return err
	})
	if err != nil {
		return fmt.Errorf("inspect: %w", err)
	}

	settle()
	remove, err := timed(n, parallel, func(i int) error {
		if err := floorcalls.RemoveAs(ctx, api, ids[i], volumes); err != nil {
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
