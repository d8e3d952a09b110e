package engine

// Restarting reports whether the engine shows a container's main process
// between two restarts by its restart policy (Docker then still calls the
// container running).
func Restarting(c Container) bool {
	return c.ContainerJSONBase != nil && c.State != nil && (c.State.Restarting || c.State.Status == "restarting")
}

// Restarts is how many times the engine has restarted a container's main
// process by its restart policy.
func Restarts(c Container) int {
	if c.ContainerJSONBase == nil {
		return 0
	}
	return c.RestartCount
}
