package main

import (
	"context"
	"flag"
	"log"
	"os"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/process"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/provider"
)

// version is set by the release build.
var version = "dev"

func main() {
	var debug bool
	flag.BoolVar(&debug, "debug", false, "run the provider with support for debuggers like delve")
	flag.Parse()
	process.QuietUnreadLogs()
	process.TuneGC()
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
