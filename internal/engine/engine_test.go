package engine

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/go-connections/nat"
)

func TestNewRejectsBadHost(t *testing.T) {
	if _, err := New(Config{Host: "not a url"}); err == nil {
		t.Fatal("New accepted a malformed host")
	}
}

func TestHostConfig(t *testing.T) {
	spec := ContainerSpec{
		NetworkMode: "none",
		Init:        true,
		CapDrop:     []string{"ALL"},
		ReadOnly:    true,
		Limits:      Limits{Memory: 64 << 20, MemorySwap: 64 << 20},
		Ulimits:     []Ulimit{{Name: "nofile", Soft: 1, Hard: 2}},
		Ports:       []PortBinding{{Port: 80, Protocol: "tcp", HostIP: "127.0.0.1"}, {Port: 80, Protocol: "tcp", HostIP: "::1", HostPort: 8080}},
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
	if got := ObservedPorts(h); len(got) != 2 || !slices.Contains(got, spec.Ports[0]) || !slices.Contains(got, spec.Ports[1]) {
		t.Errorf("observed ports %v, want %v", got, spec.Ports)
	}
	if got := ObservedLimits(h); got != spec.Limits {
		t.Errorf("observed limits %+v, want %+v", got, spec.Limits)
	}
	if got := ObservedUlimits(h); !slices.Equal(got, spec.Ulimits) {
		t.Errorf("observed ulimits %v, want %v", got, spec.Ulimits)
	}
	if _, ok := exposedPorts(spec.Ports)["80/tcp"]; !ok {
		t.Error("port 80/tcp not exposed")
	}
	if hostConfig(ContainerSpec{}).PortBindings != nil || exposedPorts(nil) != nil {
		t.Error("no ports asked, some sent")
	}
}

func TestOwnershipLabels(t *testing.T) {
	labels := OwnershipLabels("sandbox_container")
	if !ManagedBy(labels) || labels[LabelResourceType] != "sandbox_container" {
		t.Errorf("labels %v do not prove ownership", labels)
	}
	for _, other := range []map[string]string{nil, {LabelManagedBy: "someone-else"}, {"team": "x"}} {
		if ManagedBy(other) {
			t.Errorf("labels %v were taken as this provider's", other)
		}
	}
}

func TestUpdatesLimitsInPlace(t *testing.T) {
	f := Facts{DefaultRuntime: "runc", Runtimes: map[string]string{"runc": "runc", "runsc": "/usr/bin/runsc", "gvisor": "/opt/bin/runsc"}}
	for runtime, want := range map[string]bool{"": true, "runc": true, "runsc": false, "gvisor": false} {
		if got := f.UpdatesLimitsInPlace(runtime); got != want {
			t.Errorf("runtime %q: in place %v, want %v", runtime, got, want)
		}
	}
	f.DefaultRuntime = "runsc"
	if f.UpdatesLimitsInPlace("") {
		t.Error("the default runtime runsc was taken for one that updates in place")
	}
}

func TestBriefKeepsOneSentence(t *testing.T) {
	usage := "Error response from daemon: runsc did not terminate successfully: exit status 128\nUsage: runsc <flags> <subcommand> <subcommand args>\n\nSubcommands:\n\thelp\n"
	got := Brief(errors.New(usage))
	if strings.Contains(got, "Usage") || !strings.HasPrefix(got, "Error response from daemon: runsc did not terminate successfully: exit status 128") ||
		!strings.Contains(got, "engine's log") {
		t.Errorf("brief %q", got)
	}
	if got := Brief(errors.New("no such image")); got != "no such image" {
		t.Errorf("a one-line error changed: %q", got)
	}
	if got := Brief(errors.New(strings.Repeat("x", 1000))); len(got) > maxBrief+100 {
		t.Errorf("a long line kept %d characters", len(got))
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
