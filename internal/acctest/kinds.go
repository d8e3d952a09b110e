package acctest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"testing"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/network"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine/docker"
)

// What the engine under test can do, asked of it rather than assumed, so
// that a test asserts the refusal the docs promise where an engine cannot.

// Kind is the kind of the engine under test.
func Kind(t *testing.T) docker.Kind {
	t.Helper()
	return Engine(t).Kind(context.Background())
}

// IsPodman reports whether the engine under test is Podman.
func IsPodman(t *testing.T) bool {
	t.Helper()
	return Kind(t) == docker.KindPodman
}

// DefaultNetwork is the network a container joins when it names none:
// "bridge" on Docker, "podman" on Podman.
func DefaultNetwork(t *testing.T) string {
	t.Helper()
	if IsPodman(t) {
		return "podman"
	}
	return "bridge"
}

// InPlaceLimits is the plan action a limit change takes on the engine
// under test: an update in place, or a replacement where the engine cannot
// change limits (Podman).
func InPlaceLimits(t *testing.T) plancheck.ResourceActionType {
	t.Helper()
	if _, inPlace := Engine(t).Backend(context.Background()).(engine.LimitUpdater); inPlace {
		return plancheck.ResourceActionUpdate
	}
	return plancheck.ResourceActionDestroyBeforeCreate
}

// UpdateLimits changes a container's limits behind Terraform's back, as
// `docker update` does, or `podman update` (Podman's own API: its
// Docker-compatible one has no update) on Podman, and reports whether the
// engine's inspect data shows the change: Podman 4 changes the cgroup but
// not what it reports, so that drift is invisible there (the docs say so).
func UpdateLimits(ctx context.Context, t *testing.T, idOrName string, memory, pids int64, nanoCPUs int64) (visible bool, err error) {
	t.Helper()
	if !IsPodman(t) {
		_, err := Docker(t).ContainerUpdate(ctx, idOrName, container.UpdateConfig{Resources: container.Resources{
			Memory: memory, MemorySwap: memory, NanoCPUs: nanoCPUs, PidsLimit: &pids,
		}})
		return true, err
	}
	// runtime-spec LinuxResources, as `podman update` sends them.
	resources := map[string]any{
		"memory": map[string]any{"limit": memory, "swap": memory},
		"pids":   map[string]any{"limit": pids},
	}
	if nanoCPUs > 0 {
		resources["cpu"] = map[string]any{"quota": nanoCPUs / 10_000, "period": 100_000}
	}
	body, err := json.Marshal(resources)
	if err != nil {
		return false, err
	}
	transport, scheme, host := Engine(t).Forwarder()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost,
		fmt.Sprintf("%s://%s/v4.0.0/libpod/containers/%s/update", scheme, host, url.PathEscape(idOrName)),
		bytes.NewReader(body))
	if err != nil {
		return false, err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := transport.RoundTrip(req)
	if err != nil {
		return false, err
	}
	defer func() { _ = resp.Body.Close() }()
	if resp.StatusCode/100 != 2 {
		msg, _ := io.ReadAll(resp.Body)
		return false, fmt.Errorf("podman update: %s: %s", resp.Status, msg)
	}
	got, err := Engine(t).InspectContainer(ctx, idOrName)
	if err != nil {
		return false, err
	}
	return got.HostConfig.Memory == memory, nil
}

// Reattach moves an isolated container onto the engine's default network
// behind Terraform's back, and reports whether the engine allowed it.
// Docker does, and still reports network mode "none"; Podman refuses to
// attach a container whose network mode is "none" to any network, so that
// breach cannot happen there (the docs say so), and the test fails if it
// ever allows it.
func Reattach(ctx context.Context, t *testing.T, name string) bool {
	t.Helper()
	api := Docker(t)
	if IsPodman(t) {
		if err := api.NetworkConnect(ctx, "podman", name, &network.EndpointSettings{}); err == nil {
			t.Fatalf("Podman attached the isolated sandbox %s to its network, which the docs say it refuses", name)
		}
		return false
	}
	if err := api.NetworkDisconnect(ctx, "none", name, false); err != nil {
		t.Fatalf("out-of-band change: %v", err)
	}
	if err := api.NetworkConnect(ctx, "bridge", name, &network.EndpointSettings{}); err != nil {
		t.Fatalf("out-of-band change: %v", err)
	}
	return true
}

// NoCapabilities reports whether the engine shows a container without any
// capability: cap_drop ALL as Docker reports it, or every default dropped
// as Podman does.
func NoCapabilities(h *engine.HostConfig) bool {
	return len(engine.EffectiveCapabilities(h.CapAdd, h.CapDrop)) == 0
}

// Facts is what the engine under test reports about itself.
func Facts(t *testing.T) engine.Facts {
	t.Helper()
	RequireAcc(t)
	f, err := Engine(t).Facts(context.Background())
	if err != nil {
		t.Fatalf("asking the engine about itself: %v", err)
	}
	return f
}

// DefaultSeccomp is the seccomp filter the engine under test applies by
// default, with its profile read as a plan of a new sandbox reads it.
func DefaultSeccomp(t *testing.T) engine.Seccomp {
	t.Helper()
	s := Facts(t).Seccomp
	if d, ok := Engine(t).Backend(context.Background()).(engine.SeccompDefaults); ok {
		var err error
		if s, err = d.DefaultSeccomp(context.Background()); err != nil {
			t.Fatalf("asking the engine for its seccomp profile: %v", err)
		}
	}
	return s
}

// EnforcesLimits reports whether the engine under test applies memory,
// CPU and process limits and ulimits. Where it does not (rootless Podman without
// delegated cgroup controllers), a sandbox that asks for them is refused at
// plan, and the tests assert that refusal.
func EnforcesLimits(t *testing.T) bool {
	t.Helper()
	e := Facts(t).Enforces
	return e.Memory && e.Swap && e.CPU && e.Pids && e.Ulimits
}

// LimitsApplied reports whether the engine under test applies memory, CPU
// and process limits, so that a test of them can go on. Where it does not,
// it asserts the refusal the docs promise instead: config, which asks for
// limits, fails at plan with an error that names the engine and the limit,
// and nothing is created.
func LimitsApplied(t *testing.T, name, config string) bool {
	t.Helper()
	if EnforcesLimits(t) {
		return true
	}
	// Not in parallel, so that the caller's test may go on with a Test of
	// its own.
	resource.Test(t, testCase(t, []resource.TestStep{{
		Config:      config,
		PlanOnly:    true,
		ExpectError: Phrase("Limit the engine cannot apply"),
	}}))
	ExpectNoContainers(t, name, "the refused plan")
	return false
}

// Pause pauses a container behind Terraform's back, as `docker pause`
// does, and reports whether the engine can: rootless Podman on cgroup v1
// cannot, so a paused sandbox cannot happen there.
func Pause(ctx context.Context, t *testing.T, name string) (bool, error) {
	t.Helper()
	if !Facts(t).Pausable {
		return false, nil
	}
	return true, Docker(t).ContainerPause(ctx, name)
}
