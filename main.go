package main

import (
	"context"
	"flag"
	"log"
	"os"
	"runtime/debug"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/provider"
)

// version is set by the release build.
var version = "dev"

func main() {
	var debug bool
	flag.BoolVar(&debug, "debug", false, "run the provider with support for debuggers like delve")
	flag.Parse()
	quietUnreadLogs()
	tuneGC()
	if !debug {
		go exitWhenOrphaned(os.Getppid(), time.Second)
	}

	err := providerserver.Serve(context.Background(), provider.New(version), providerserver.ServeOpts{
		Address: "registry.terraform.io/tfsandbox/sandbox",
		Debug:   debug,
	})
	engine.CloseTunnels()
	if err != nil {
		log.Fatal(err.Error())
	}
}

// orphanGrace bounds how long an orphaned provider waits for its engine
// calls (the removal of what cancelled creates left) before it exits.
const orphanGrace = 90 * time.Second

// exitWhenOrphaned ends the provider when Terraform, its parent, is gone
// (killed, for example), instead of leaving it running. The broken
// connection has already cancelled every request, so the provider first
// lets the calls that undo cancelled creates finish: it exits once no
// engine call has been under way for two checks in a row, or after
// orphanGrace.
func exitWhenOrphaned(parent int, every time.Duration) {
	for os.Getppid() == parent {
		time.Sleep(every)
	}
	log.Printf("[WARN] terraform (pid %d) is gone; exiting once engine calls under way have finished", parent)
	deadline := time.Now().Add(orphanGrace)
	for idle := 0; idle < 2 && time.Now().Before(deadline); time.Sleep(every) {
		if engine.Busy() {
			idle = 0
		} else {
			idle++
		}
	}
	engine.CloseTunnels()
	os.Exit(1)
}

// sdkLogLevels are the plugin SDK's log level settings, read when the
// server starts.
var sdkLogLevels = []string{"TF_LOG_SDK_FRAMEWORK", "TF_LOG_SDK_PROTO"}

// quietUnreadLogs turns the plugin SDK's trace logs off when no TF_LOG*
// variable asks for logs. Terraform then discards every line the provider
// writes, yet formatting the framework's per-attribute trace lines, and
// Terraform parsing them, took about half of a plan's time (bench/RESULTS.md).
// With any TF_LOG* variable set, logging is left exactly as configured.
func quietUnreadLogs() {
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
// faster and lowered the peak RSS (bench/RESULTS.md).
const (
	gcPercent   = 400
	memoryLimit = 40 << 20
)

// tuneGC applies gcPercent and memoryLimit unless the user set GOGC or
// GOMEMLIMIT, which the Go runtime has already applied.
func tuneGC() {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	debug.SetGCPercent(gcPercent)
	debug.SetMemoryLimit(memoryLimit)
}
