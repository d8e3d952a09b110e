package docker

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
)

func TestPodmanInfoDecidesWhatIsEnforced(t *testing.T) {
	info := func(rootless bool, cgroup string, controllers []string, profile string) podmanInfo {
		var p podmanInfo
		p.Host.CgroupVersion, p.Host.CgroupControllers = cgroup, controllers
		p.Host.Security.Rootless, p.Host.Security.SeccompEnabled, p.Host.Security.SeccompProfilePath = rootless, true, profile
		return p
	}
	docker := engine.Facts{Enforces: dockerEnforcement(true, true, true, true), Pausable: true}
	for _, c := range []struct {
		name                        string
		info                        podmanInfo
		memory, cpu, pids, ulimits  bool
		pausable, allowsUserNamespc bool
	}{
		{"rootful", info(false, "v1", nil, "/usr/share/containers/seccomp.json"), true, true, true, true, true, true},
		{"rootless on cgroup v1", info(true, "v1", nil, "/usr/share/containers/seccomp.json"), false, false, false, false, false, true},
		{"rootless on cgroup v2, memory and pids delegated", info(true, "v2", []string{"memory", "pids"}, ""), true, false, true, false, true, true},
		{"rootful with a profile of the host's own", info(false, "v2", nil, "/etc/containers/docker-seccomp.json"), true, true, true, true, true, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := docker
			c.info.apply(&f)
			e := f.Enforces
			if e.Memory != c.memory || e.Swap != c.memory || e.CPU != c.cpu || e.Pids != c.pids || e.Ulimits != c.ulimits {
				t.Errorf("enforces %+v", e)
			}
			if f.Pausable != c.pausable || f.Seccomp.AllowsUserNamespaces != c.allowsUserNamespc {
				t.Errorf("pausable %v, allows user namespaces %v", f.Pausable, f.Seccomp.AllowsUserNamespaces)
			}
			if (!e.Memory && (e.Why == "" || e.Fix == "")) || (!e.Ulimits && (e.UlimitsWhy == "" || e.UlimitsFix == "")) {
				t.Errorf("a refusal without its reason or fix: %+v", e)
			}
		})
	}
}

// The engine's kind comes from a ping's headers, and its facts from one
// /info; Podman's own /libpod/info (as slow: a second of package queries
// on its host) is asked only of rootless Podman, or once for the seccomp
// default a new sandbox's plan reads; nobody asks /version, which Podman
// takes longer still to answer.
func TestKindFromThePingAndPodmanFactsFromOneInfo(t *testing.T) {
	for _, key := range []string{"DOCKER_TLS_VERIFY", "DOCKER_CERT_PATH", "DOCKER_CONTEXT"} {
		t.Setenv(key, "")
	}
	for _, tc := range []struct {
		name             string
		podman, rootless bool
		kind             Kind
		libpod           int // /libpod/info asked by Facts and DefaultSeccomp, twice each
	}{
		{"Docker", false, false, KindDocker, 0},
		{"rootful Podman", true, false, KindPodman, 1},
		{"rootless Podman", true, true, KindPodman, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var mu sync.Mutex
			asked := map[string]int{}
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				path := r.URL.Path
				if i := strings.Index(path[1:], "/"); strings.HasPrefix(path, "/v1.") && i > 0 {
					path = path[i+1:] // the Docker SDK's versioned paths
				}
				mu.Lock()
				asked[path]++
				mu.Unlock()
				w.Header().Set("Api-Version", "1.41")
				if tc.podman {
					w.Header().Set(podmanHeader, "4.3.1")
				}
				switch path {
				case "/_ping":
					_, _ = w.Write([]byte("OK"))
				case "/info":
					_, _ = fmt.Fprintf(w, `{"MemTotal": 1, "SecurityOptions": ["name=seccomp,profile=default"], `+
						`"Rootless": %v}`, tc.rootless)
				case "/v4.0.0/libpod/info":
					_, _ = fmt.Fprintf(w, `{"host": {"cgroupVersion": "v2", "security": {"rootless": %v, `+
						`"seccompEnabled": true, "seccompProfilePath": "/usr/share/containers/seccomp.json"}}}`, tc.rootless)
				default:
					http.Error(w, "not here", http.StatusNotFound)
				}
			}))
			defer srv.Close()
			c, err := New(Config{Host: "tcp://" + srv.Listener.Addr().String()})
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			if err := c.Ping(ctx); err != nil {
				t.Fatal(err)
			}
			if got := c.Kind(ctx); got != tc.kind {
				t.Errorf("kind %v, want %v", got, tc.kind)
			}
			backend := c.Backend(ctx)
			for range 2 {
				f, err := backend.Facts(ctx)
				if err != nil {
					t.Fatal(err)
				}
				if f.Rootless != tc.rootless || f.MemTotal != 1 || !f.Seccomp.Enabled {
					t.Errorf("facts %+v", f)
				}
			}
			mu.Lock()
			if asked["/version"] != 0 || asked["/info"] != 1 || asked["/v4.0.0/libpod/info"] != map[bool]int{true: 1}[tc.rootless] {
				t.Errorf("Facts asked %v", asked)
			}
			mu.Unlock()
			seccomp, ok := backend.(engine.SeccompDefaults)
			if ok != tc.podman {
				t.Fatalf("reads its seccomp default apart: %v", ok)
			}
			for range 2 {
				if !ok {
					break
				}
				s, err := seccomp.DefaultSeccomp(ctx)
				if err != nil {
					t.Fatal(err)
				}
				if !s.AllowsUserNamespaces || s.Profile != "/usr/share/containers/seccomp.json" {
					t.Errorf("seccomp default %+v", s)
				}
			}
			mu.Lock()
			defer mu.Unlock()
			if asked["/info"] != 1 || asked["/v4.0.0/libpod/info"] != tc.libpod {
				t.Errorf("asked %v", asked)
			}
		})
	}
}

func TestClockOffset(t *testing.T) {
	asked := time.Date(2026, 12, 4, 22, 0, 0, 0, time.UTC)
	answered := asked.Add(200 * time.Millisecond)
	if got := clockOffset(asked.Add(5*time.Second).Format(time.RFC3339Nano), asked, answered); got != 4900*time.Millisecond {
		t.Errorf("an engine 5 s ahead, read between asked and answered: offset %v, want 4.9s", got)
	}
	if got := clockOffset(asked.Add(-time.Hour).Format(time.RFC3339Nano), asked, answered); got != -time.Hour-100*time.Millisecond {
		t.Errorf("an engine an hour behind: offset %v", got)
	}
	if got := clockOffset("", asked, answered); got != 0 {
		t.Errorf("an engine that does not say its time: offset %v, want 0", got)
	}
}

// Rootless Podman's user namespace bounds the owners a file can have: what
// its ranges cover from 0 without a gap, the smaller of uids and gids.
func TestRootlessOwnersBelow(t *testing.T) {
	var p podmanInfo
	p.Host.Security.Rootless = true
	p.Host.CgroupVersion = "v2"
	p.Host.IDMappings.UIDMap = []idMap{{ContainerID: 1, HostID: 100000, Size: 65536}, {ContainerID: 0, HostID: 1000, Size: 1}}
	p.Host.IDMappings.GIDMap = []idMap{{ContainerID: 0, HostID: 1000, Size: 1}, {ContainerID: 1, HostID: 100000, Size: 65535},
		{ContainerID: 70000, HostID: 300000, Size: 10}}
	var f engine.Facts
	p.apply(&f)
	if f.OwnersBelow != 65536 {
		t.Errorf("OwnersBelow = %d, want 65536", f.OwnersBelow)
	}
	p.Host.Security.Rootless = false
	f = engine.Facts{}
	p.apply(&f)
	if f.OwnersBelow != 0 {
		t.Errorf("rootful: OwnersBelow = %d, want 0", f.OwnersBelow)
	}
}
