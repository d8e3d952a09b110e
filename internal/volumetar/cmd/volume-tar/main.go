// Command volume-tar is the provider's volume reader alone (package
// volumetar), and its expiry warden (package warden), built for each Linux
// architecture by `make helpers` and embedded in the provider, which
// copies it into a helper container or pod and runs it as `volume-tar
// __tfsandbox_volume_tar DIR NAME`, or makes the warden's image of it, as
// it would its own executable.
package main

import (
	"fmt"
	"os"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/volumetar"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/warden"
)

func main() {
	switch {
	case len(os.Args) >= 2 && os.Args[1] == volumetar.Command:
		os.Exit(volumetar.Main(os.Args[2:]))
	case len(os.Args) >= 2 && os.Args[1] == warden.Command:
		os.Exit(warden.Main(os.Args[2:]))
	}
	fmt.Fprintf(os.Stderr, "usage: %s %s DIR NAME | wait [SECONDS]\n       %s %s serve SOCKET | register SOCKET ID UNIX-SECONDS | list\n",
		os.Args[0], volumetar.Command, os.Args[0], warden.Command)
	os.Exit(2)
}
