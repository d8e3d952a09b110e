package engine

const (
	// gVisorHostPidsBase covers the threads of gVisor's own kernel: about
	// 40 idle, more under load; it needs 48 to start.
	gVisorHostPidsBase = 128
	// gVisorHostPidsPerProcess covers the host threads each process inside
	// costs gVisor (about 8.5 measured on the ptrace platform), twice over.
	gVisorHostPidsPerProcess = 16
	// maxHostPids is the kernel's largest process ID (PID_MAX_LIMIT).
	maxHostPids = 1 << 22
)

// GVisorHostPids is the host pids limit of a gVisor sandbox whose
// processes inside are limited to pids.
func GVisorHostPids(pids int64) int64 {
	if pids >= (maxHostPids-gVisorHostPidsBase)/gVisorHostPidsPerProcess {
		return maxHostPids
	}
	return gVisorHostPidsBase + gVisorHostPidsPerProcess*pids
}
