// Command euid prints the effective user ID it runs with. The test image
// installs it setuid root as /bin/euid: run by an unprivileged user it prints
// 0 when setuid escalation works, and the caller's ID under
// no_new_privileges.
package main

import (
	"fmt"
	"os"
)

func main() {
	fmt.Println(os.Geteuid())
}
