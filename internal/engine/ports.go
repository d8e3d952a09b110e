package engine

import (
	"strconv"
)

// PortBinding publishes a container port on the host.
type PortBinding struct {
	Port     int    `json:"port"`     // in the container
	Protocol string `json:"protocol"` // tcp, udp or sctp
	HostIP   string `json:"host_ip"`
	HostPort int    `json:"host_port,omitempty"` // 0: the engine picks a free port
}

// ObservedPorts are the port bindings the engine shows in a container's
// host configuration.
func ObservedPorts(h *HostConfig) []PortBinding {
	var observed []PortBinding
	for key, bindings := range h.PortBindings {
		for _, b := range bindings {
			hostPort, _ := strconv.Atoi(b.HostPort)
			observed = append(observed, PortBinding{
				Port: key.Int(), Protocol: key.Proto(), HostIP: b.HostIP, HostPort: hostPort,
			})
		}
	}
	return observed
}
