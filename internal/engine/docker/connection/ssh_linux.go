package connection

import "syscall"

// endWithParent makes the kernel stop the ssh client when the provider
// dies, even by SIGKILL, so no tunnel outlives it.
func endWithParent() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
}
