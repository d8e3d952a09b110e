// Command volume-tar is the provider's volume reader alone (package
// volumetar), built for each Linux architecture by `make helpers` and
// embedded in the provider, which copies it into a helper container or pod
// and runs it as `volume-tar __tfsandbox_volume_tar DIR NAME`, as it runs
// its own executable.
package main

import (
	"fmt"
	"os"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/volumetar"
)

func main() {
	if len(os.Args) < 2 || os.Args[1] != volumetar.Command {
		fmt.Fprintf(os.Stderr, "usage: %s %s DIR NAME | wait [SECONDS]\n", os.Args[0], volumetar.Command)
		os.Exit(2)
	}
	os.Exit(volumetar.Main(os.Args[2:]))
}
