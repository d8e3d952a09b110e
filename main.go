package main

import (
	"context"
	"flag"
	"log"
	"os"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/provider"
)

// version is set by the release build.
var version = "dev"

func main() {
	var debug bool
	flag.BoolVar(&debug, "debug", false, "run the provider with support for debuggers like delve")
	flag.Parse()
	quietUnreadLogs()

	err := providerserver.Serve(context.Background(), provider.New(version), providerserver.ServeOpts{
		Address: "registry.terraform.io/tfsandbox/sandbox",
		Debug:   debug,
	})
	if err != nil {
		log.Fatal(err.Error())
	}
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
