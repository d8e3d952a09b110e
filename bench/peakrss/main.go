// Command peakrss stands in for the provider binary during a benchmark: it
// runs the real provider (BENCH_PROVIDER_BINARY) with the same arguments,
// standard streams and environment, and when it exits appends the
// provider's peak resident set size in KiB and the CPU seconds it used
// (user and system) to BENCH_RSS_FILE, one line per process. Terraform
// starts it through dev_overrides like any provider build.
package main

import (
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"syscall"
)

func main() {
	binary, out := os.Getenv("BENCH_PROVIDER_BINARY"), os.Getenv("BENCH_RSS_FILE")
	if binary == "" || out == "" {
		fmt.Fprintln(os.Stderr, "peakrss: BENCH_PROVIDER_BINARY and BENCH_RSS_FILE must be set")
		os.Exit(2)
	}
	cmd := exec.Command(binary, os.Args[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "peakrss:", err)
		os.Exit(1)
	}
	// Pass on the signals Terraform sends its plugins.
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, os.Interrupt, syscall.SIGTERM)
	go func() {
		for s := range signals {
			_ = cmd.Process.Signal(s)
		}
	}()
	_ = cmd.Wait()
	if usage, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		// Linux reports ru_maxrss in KiB.
		if f, err := os.OpenFile(out, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644); err == nil {
			cpu := float64(usage.Utime.Nano()+usage.Stime.Nano()) / 1e9
			_, _ = fmt.Fprintf(f, "%d\t%.3f\n", usage.Maxrss, cpu)
			_ = f.Close()
		}
	}
	os.Exit(cmd.ProcessState.ExitCode())
}
