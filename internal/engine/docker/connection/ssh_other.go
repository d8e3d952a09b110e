//go:build !linux

package connection

import "syscall"

// endWithParent has no equivalent here: the ssh client is stopped when the
// provider closes its client, and ends on its own when its server-alive
// checks fail.
func endWithParent() *syscall.SysProcAttr { return nil }
