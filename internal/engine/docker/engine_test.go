package docker

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/go-connections/nat"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
)

func TestNewRejectsBadHost(t *testing.T) {
	if _, err := New(Config{Host: "not a url"}); err == nil {
		t.Fatal("New accepted a malformed host")
	}
}

func TestHostConfig(t *testing.T) {
	spec := engine.ContainerSpec{
		NetworkMode: "none",
		Init:        true,
		CapDrop:     []string{"ALL"},
		ReadOnly:    true,
		Limits:      engine.Limits{Memory: 64 << 20, MemorySwap: 64 << 20},
		Ulimits:     []engine.Ulimit{{Name: "nofile", Soft: 1, Hard: 2}},
		Ports:       []engine.PortBinding{{Port: 80, Protocol: "tcp", HostIP: "127.0.0.1"}, {Port: 80, Protocol: "tcp", HostIP: "::1", HostPort: 8080}},
	}
	h := hostConfig(spec)
	if h.NetworkMode != "none" || !*h.Init || !h.ReadonlyRootfs || h.CapDrop[0] != "ALL" {
		t.Errorf("host config %+v", h)
	}
	if h.Memory != 64<<20 || h.MemorySwap != 64<<20 || h.PidsLimit != nil {
		t.Errorf("resources %+v: no pids limit asked, none may be sent", h.Resources)
	}
	if len(h.Ulimits) != 1 || *h.Ulimits[0] != (container.Ulimit{Name: "nofile", Soft: 1, Hard: 2}) {
		t.Errorf("ulimits %v", h.Ulimits)
	}
	bindings := h.PortBindings["80/tcp"]
	if len(bindings) != 2 || bindings[0] != (nat.PortBinding{HostIP: "127.0.0.1"}) ||
		bindings[1] != (nat.PortBinding{HostIP: "::1", HostPort: "8080"}) {
		t.Errorf("port bindings %v", h.PortBindings)
	}
	seen := observed(container.InspectResponse{ContainerJSONBase: &container.ContainerJSONBase{HostConfig: h}}).HostConfig
	if got := engine.ObservedPorts(seen); len(got) != 2 || !slices.Contains(got, spec.Ports[0]) || !slices.Contains(got, spec.Ports[1]) {
		t.Errorf("observed ports %v, want %v", got, spec.Ports)
	}
	if got := engine.ObservedLimits(seen); got != spec.Limits {
		t.Errorf("observed limits %+v, want %+v", got, spec.Limits)
	}
	if got := engine.ObservedUlimits(seen); !slices.Equal(got, spec.Ulimits) {
		t.Errorf("observed ulimits %v, want %v", got, spec.Ulimits)
	}
	if _, ok := exposedPorts(spec.Ports)["80/tcp"]; !ok {
		t.Error("port 80/tcp not exposed")
	}
	if hostConfig(engine.ContainerSpec{}).PortBindings != nil || exposedPorts(nil) != nil {
		t.Error("no ports asked, some sent")
	}
}

func TestUserAgentCarriesTheVersion(t *testing.T) {
	// A plain engine, whatever engine the run points at.
	for _, key := range []string{"DOCKER_TLS_VERIFY", "DOCKER_CERT_PATH", "DOCKER_CONTEXT"} {
		t.Setenv(key, "")
	}
	agents := make(chan string, 4)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		agents <- r.UserAgent()
		w.Header().Set("Api-Version", "1.45")
		_, _ = w.Write([]byte("OK"))
	}))
	defer srv.Close()
	for version, want := range map[string]string{"0.1.0": "terraform-provider-sandbox/0.1.0", "": "terraform-provider-sandbox"} {
		c, err := New(Config{Host: "tcp://" + srv.Listener.Addr().String(), Version: version})
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Ping(context.Background()); err != nil {
			t.Fatal(err)
		}
		if got := <-agents; got != want {
			t.Errorf("version %q: User-Agent %q, want %q", version, got, want)
		}
		for len(agents) > 0 {
			<-agents
		}
	}
}
