package docker

import (
	"testing"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/network"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/isolation"
)

// What the Docker engine and Podman show of a container's network, as the
// Docker backend gives it to the verdict: Podman's shapes made to read as
// Docker's where they mean the same (normalize), and nothing made up where
// the engine showed nothing.
func TestObservedNetworkOfDockerAndPodman(t *testing.T) {
	t.Parallel()
	inspect := func(mode string, networks ...string) container.InspectResponse {
		eps := map[string]*network.EndpointSettings{}
		for _, n := range networks {
			eps[n] = &network.EndpointSettings{}
		}
		return container.InspectResponse{
			ContainerJSONBase: &container.ContainerJSONBase{HostConfig: &container.HostConfig{NetworkMode: container.NetworkMode(mode)}},
			NetworkSettings:   &container.NetworkSettings{Networks: eps},
		}
	}
	// namespaces sets what the engine shows of the PID, IPC and UTS
	// namespaces. (Podman reports "shareable" for a container started
	// with the host's IPC namespace: that one it does not show.)
	namespaces := func(c container.InspectResponse, pid, ipc, uts string) container.InspectResponse {
		c.HostConfig.PidMode, c.HostConfig.IpcMode, c.HostConfig.UTSMode =
			container.PidMode(pid), container.IpcMode(ipc), container.UTSMode(uts)
		return c
	}
	for _, c := range []struct {
		name     string
		kind     Kind
		in       container.InspectResponse
		isolated bool
		mode     string
	}{
		{"Docker: none", KindDocker, inspect("none", "none"), true, "none"},
		{"Docker: bridge", KindDocker, inspect("bridge", "bridge"), false, "bridge"},
		{"Docker: none, reattached to bridge", KindDocker, inspect("none", "none", "bridge"), false, "bridge"},
		{"Podman: none lists no network", KindPodman, inspect("none"), true, "none"},
		{"Podman: its default network", KindPodman, inspect("bridge", "podman"), false, "bridge"},
		{"no host configuration", KindDocker, container.InspectResponse{}, false, "unknown"},
		{"Docker: its own namespaces", KindDocker, namespaces(inspect("none", "none"), "", "private", ""), true, "none"},
		{"Podman: its own namespaces", KindPodman, namespaces(inspect("none"), "private", "shareable", "private"), true, "none"},
		{"Docker: the host's PID namespace", KindDocker, namespaces(inspect("none", "none"), "host", "private", ""),
			false, "none sharing pid with the host"},
		{"Podman: the host's UTS namespace", KindPodman, namespaces(inspect("none"), "private", "shareable", "host"),
			false, "none sharing uts with the host"},
		{"Docker: another container's IPC", KindDocker, namespaces(inspect("none", "none"), "", "container:abc", ""),
			false, "none sharing ipc with container abc"},
	} {
		normalize(c.kind, &c.in)
		observed := observedNetwork(c.in)
		if observed.Pod != nil || observed.Attachments == nil {
			t.Errorf("%s: observed %+v, want attachments only", c.name, observed)
			continue
		}
		if v := isolation.Assess(observed); v.Isolated != c.isolated || v.Mode != c.mode {
			t.Errorf("%s: verdict %+v, want isolated %v, mode %q", c.name, v, c.isolated, c.mode)
		}
	}
}
