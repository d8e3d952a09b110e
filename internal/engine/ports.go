package engine

import (
	"fmt"
	"strconv"

	"github.com/docker/go-connections/nat"
)

// PortBinding publishes a container port on the host.
type PortBinding struct {
	Port     int    `json:"port"`     // in the container
	Protocol string `json:"protocol"` // tcp, udp or sctp
	HostIP   string `json:"host_ip"`
	HostPort int    `json:"host_port,omitempty"` // 0: the engine picks a free port
}

// portKey is the engine's name of a container port, "80/tcp".
func (p PortBinding) portKey() nat.Port { return nat.Port(fmt.Sprintf("%d/%s", p.Port, p.Protocol)) }

func exposedPorts(ports []PortBinding) nat.PortSet {
	if len(ports) == 0 {
		return nil
	}
	set := nat.PortSet{}
	for _, p := range ports {
		set[p.portKey()] = struct{}{}
	}
	return set
}

func portBindings(ports []PortBinding) nat.PortMap {
	if len(ports) == 0 {
		return nil
	}
	bindings := nat.PortMap{}
	for _, p := range ports {
		hostPort := ""
		if p.HostPort != 0 {
			hostPort = strconv.Itoa(p.HostPort)
		}
		bindings[p.portKey()] = append(bindings[p.portKey()], nat.PortBinding{HostIP: p.HostIP, HostPort: hostPort})
	}
	return bindings
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
