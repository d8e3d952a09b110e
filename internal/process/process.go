// Package process holds the settings a plugin process applies to itself
// before it serves Terraform: the provider's main, and the benchmark's
// stand-ins (bench/noop), which must run under the same settings to be
// comparable.
package process

import (
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"syscall"
)

// sdkLogLevels are the plugin SDK's log level settings, read when the
// server starts.
var sdkLogLevels = []string{"TF_LOG_SDK_FRAMEWORK", "TF_LOG_SDK_PROTO"}

// QuietUnreadLogs turns the plugin SDK's trace logs off when no TF_LOG*
// variable asks for logs. Terraform then discards every line the provider
// writes, yet formatting the framework's per-attribute trace lines, and
// Terraform parsing them, took about half of a plan's time (bench/HISTORY.md).
// With any TF_LOG* variable set, logging is left exactly as configured.
func QuietUnreadLogs() {
	for _, kv := range os.Environ() {
		if name, value, _ := strings.Cut(kv, "="); strings.HasPrefix(name, "TF_LOG") && value != "" {
			return
		}
	}
	for _, name := range sdkLogLevels {
		_ = os.Setenv(name, "off")
	}
}

// The garbage collector's settings when the user sets neither GOGC nor
// GOMEMLIMIT. A plan of many sandboxes allocates mostly short-lived garbage
// (the framework copies its schema maps at every attribute path it
// resolves), and with Go's default GOGC of 100 collection took about 12 % of
// the provider's CPU. Collecting less often, within a heap limit that keeps
// the whole process under 64 MiB, made a plan of 200 sandboxes about 10 %
// faster and its peak RSS lower (56 MiB instead of 60). A small run now lets
// the heap grow toward the limit before it collects: about 45 MiB for 10
// sandboxes instead of 31 (bench/HISTORY.md).
//
// The limit bounds the Go runtime's memory only. The provider's own code
// and data, mapped from its binary, add about 25 MiB to its resident size
// (smaps), so a limit of 40 MiB let a process that reached it peak at 65
// MiB; 36 MiB keeps it near 61.
const (
	gcPercent   = 400
	memoryLimit = 36 << 20
)

// TuneGC applies gcPercent and memoryLimit unless the user set GOGC or
// GOMEMLIMIT, which the Go runtime has already applied.
func TuneGC() {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	debug.SetGCPercent(gcPercent)
	debug.SetMemoryLimit(memoryLimit)
}

// SurviveLostTerraform keeps the process alive when terraform, which holds
// the other end of its standard output and error, is killed: Go kills a
// program that writes to a broken pipe on those descriptors (SIGPIPE),
// and a provider that logged one line then would die before it removed
// what its cancelled creates made. With SIGPIPE ignored, such a write fails
// instead, and the provider finishes that work.
func SurviveLostTerraform() {
	signal.Ignore(syscall.SIGPIPE)
}
