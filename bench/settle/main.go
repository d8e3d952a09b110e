// Command settle waits until the machine is quiet: until the CPU was at
// least -idle idle over one -window, or -max has passed (default
// BENCH_SETTLE_MAX, else 30s: CI's smoke run, whose timings are not
// results, waits 1s beside the builds it shares the machine with).
// bench/run.sh runs it before every timed phase of every layer, and
// bench/floor before each of its phases, so that no phase pays for the
// engine's work left over from the one before (the removal of 200
// containers, say, goes on in the background after the engine answered).
package main

import (
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

func main() {
	idle := flag.Float64("idle", 0.85, "fraction of the CPU time that must be idle")
	window := flag.Duration("window", 500*time.Millisecond, "how long the machine must be that idle")
	maxWait := flag.Duration("max", defaultMax(), "give up waiting after this long (default: BENCH_SETTLE_MAX, else 30s)")
	flag.Parse()
	deadline := time.Now().Add(*maxWait)
	for {
		got, err := idleOver(*window)
		if err != nil {
			fmt.Fprintln(os.Stderr, "settle:", err)
			return
		}
		if got >= *idle {
			return
		}
		if time.Now().After(deadline) {
			fmt.Fprintf(os.Stderr, "settle: the machine is still busy after %s (%.0f %% idle); going on\n", *maxWait, 100*got)
			return
		}
	}
}

// idleOver returns the fraction of CPU time that was idle (or waiting for
// I/O) over d, from /proc/stat.
func idleOver(d time.Duration) (float64, error) {
	idle0, total0, err := cpuTimes()
	if err != nil {
		return 0, err
	}
	time.Sleep(d)
	idle1, total1, err := cpuTimes()
	if err != nil {
		return 0, err
	}
	if total1 == total0 {
		return 1, nil
	}
	return float64(idle1-idle0) / float64(total1-total0), nil
}

// cpuTimes returns the idle and total jiffies of all CPUs.
func cpuTimes() (idle, total uint64, err error) {
	data, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, 0, err
	}
	line, _, _ := strings.Cut(string(data), "\n")
	fields := strings.Fields(line)
	if len(fields) < 6 || fields[0] != "cpu" {
		return 0, 0, fmt.Errorf("unexpected /proc/stat: %q", line)
	}
	for i, f := range fields[1:] {
		v, err := strconv.ParseUint(f, 10, 64)
		if err != nil {
			return 0, 0, err
		}
		total += v
		if i == 3 || i == 4 { // idle, iowait
			idle += v
		}
	}
	return idle, total, nil
}

// defaultMax is BENCH_SETTLE_MAX when it is a duration, else 30 s.
func defaultMax() time.Duration {
	if d, err := time.ParseDuration(os.Getenv("BENCH_SETTLE_MAX")); err == nil && d >= 0 {
		return d
	}
	return 30 * time.Second
}
