package process

import (
	"math"
	"os"
	"runtime/debug"
	"strings"
	"testing"
)

func TestQuietUnreadLogs(t *testing.T) {
	for _, c := range []struct {
		name, env, value string
		quiet            bool
	}{
		{"no logs asked for", "", "", true},
		{"TF_LOG", "TF_LOG", "trace", false},
		{"TF_LOG_PROVIDER", "TF_LOG_PROVIDER", "debug", false},
		{"empty TF_LOG", "TF_LOG", "", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			// Start from no TF_LOG* at all; t.Setenv restores them after.
			for _, kv := range os.Environ() {
				if name, _, _ := strings.Cut(kv, "="); strings.HasPrefix(name, "TF_LOG") {
					t.Setenv(name, "")
				}
			}
			for _, name := range sdkLogLevels {
				t.Setenv(name, "")
			}
			if c.env != "" {
				t.Setenv(c.env, c.value)
			}
			QuietUnreadLogs()
			for _, name := range sdkLogLevels {
				if got := os.Getenv(name) == "off"; got != c.quiet {
					t.Errorf("%s = %q, quiet = %v, want %v", name, os.Getenv(name), got, c.quiet)
				}
			}
		})
	}
}

func TestTuneGC(t *testing.T) {
	// SetMemoryLimit with a negative value only reports the limit.
	defer func(percent int, limit int64) {
		debug.SetGCPercent(percent)
		debug.SetMemoryLimit(limit)
	}(debug.SetGCPercent(100), debug.SetMemoryLimit(-1))
	restore := func() {
		debug.SetGCPercent(100)
		debug.SetMemoryLimit(math.MaxInt64)
	}

	for _, c := range []struct {
		name, env string
		tuned     bool
	}{
		{"no setting", "", true},
		{"GOGC set", "GOGC", false},
		{"GOMEMLIMIT set", "GOMEMLIMIT", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			restore()
			t.Setenv("GOGC", "")
			t.Setenv("GOMEMLIMIT", "")
			if c.env != "" {
				t.Setenv(c.env, "1")
			}
			TuneGC()
			percent, limit := debug.SetGCPercent(100), debug.SetMemoryLimit(-1)
			if tuned := percent == gcPercent && limit == memoryLimit; tuned != c.tuned {
				t.Errorf("GOGC %d, memory limit %d: tuned = %v, want %v", percent, limit, tuned, c.tuned)
			}
		})
	}
}
