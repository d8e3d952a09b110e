package docker

import (
	"fmt"
	"strconv"

	"github.com/docker/go-connections/nat"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
)

func exposedPorts(ports []engine.PortBinding) nat.PortSet {
	if len(ports) == 0 {
		return nil
	}
	set := nat.PortSet{}
	for _, p := range ports {
		set[portKey(p)] = struct{}{}
	}
	return set
}

func portBindings(ports []engine.PortBinding) nat.PortMap {
	if len(ports) == 0 {
		return nil
	}
	bindings := nat.PortMap{}
	for _, p := range ports {
		hostPort := ""
		if p.HostPort != 0 {
			hostPort = strconv.Itoa(p.HostPort)
		}
		bindings[portKey(p)] = append(bindings[portKey(p)], nat.PortBinding{HostIP: p.HostIP, HostPort: hostPort})
	}
	return bindings
}

// portKey is the engine's name of a container port, "80/tcp".
func portKey(p engine.PortBinding) nat.Port {
	return nat.Port(fmt.Sprintf("%d/%s", p.Port, p.Protocol))
}
