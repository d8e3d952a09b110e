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
	"github.com/tfsandbox/terraform-provider-sandbox/internal/volumetar"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/warden"
)

// version is set by the release build.
var version = "dev"

func main() {
	if len(os.Args) > 1 && os.Args[1] == volumetar.Command {
		// Inside a helper container on Podman, reading a volume.
		os.Exit(volumetar.Main(os.Args[2:]))
	}
	if len(os.Args) > 1 && os.Args[1] == warden.Command {
		// The expiry warden beside a Docker engine's or Podman's sandboxes.
		os.Exit(warden.Main(os.Args[2:]))
	}
	var debug bool
	flag.BoolVar(&debug, "debug", false, "run the provider with support for debuggers like delve")
	flag.Parse()
	process.QuietUnreadLogs()
	process.TuneGC()
	process.SurviveLostTerraform()
	if !debug {
		go exitWhenOrphaned(os.Getppid(), time.Second)
	}

	err := providerserver.Serve(context.Background(), provider.New(version), providerserver.ServeOpts{
		Address: "registry.terraform.io/tfsandbox/sandbox",
		Debug:   debug,
	})
	// Serve returns when terraform goes away, with creates it cancelled
	// still removing what they made.
	waitForEngineWork()
	provider.Close()
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
// lets the calls that undo cancelled creates finish.
func exitWhenOrphaned(parent int, every time.Duration) {
	for os.Getppid() == parent {
		time.Sleep(every)
	}
	log.Printf("[WARN] terraform (pid %d) is gone; exiting once engine calls under way have finished", parent)
	waitForEngineWork()
	provider.Close()
	os.Exit(1)
}

// waitForEngineWork returns once no engine call or held operation is
// under way (at once when there is none), or after orphanGrace. A create
// holds from its start to the end of its undo, so no gap between its calls
// ends the wait.
func waitForEngineWork() {
	for deadline := time.Now().Add(orphanGrace); engine.Busy() && time.Now().Before(deadline); {
		time.Sleep(50 * time.Millisecond)
	}
}
