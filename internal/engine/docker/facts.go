package docker

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
)

// podmanStockProfiles are where Podman's packages put its own seccomp
// profile, which lets user namespaces through; a profile elsewhere is the
// host's own choice.
var podmanStockProfiles = []string{"", "/usr/share/containers/seccomp.json", "/etc/containers/seccomp.json"}

// Facts asks the engine, until it has answered once, about itself. On
// Podman it also asks Podman's own API, whose answer says what its
// Docker-compatible one does not: whether it runs rootless, which cgroup
// controllers it can use, and its seccomp profile.
func (c *Client) Facts(ctx context.Context) (engine.Facts, error) {
	c.factsMu.Lock()
	defer c.factsMu.Unlock()
	if c.facts != nil {
		return *c.facts, nil
	}
	podman := c.Kind(ctx) == KindPodman
	var f engine.Facts
	err := c.within(ctx, "the request for the engine's facts", engine.QuickCallTimeout, func(ctx context.Context) error {
		// Podman answers each of its two in over half a second: ask both
		// at once.
		var p podmanInfo
		var own errgroup.Group
		if podman {
			own.Go(func() (err error) { p, err = c.podmanInfo(ctx); return err })
		}
		asked := time.Now()
		info, err := c.api.Info(ctx)
		answered := time.Now()
		if ownErr := own.Wait(); err == nil {
			err = ownErr
		}
		if err != nil {
			return err
		}
		f = engine.Facts{MemTotal: info.MemTotal, NCPU: info.NCPU, DefaultRuntime: info.DefaultRuntime,
			Runtimes: map[string]string{}, Pausable: true, DataRoot: info.DockerRootDir,
			Arch: info.Architecture}
		for name, rt := range info.Runtimes {
			f.Runtimes[name] = rt.Path
		}
		f.ClockOffset = clockOffset(info.SystemTime, asked, answered)
		f.Enforces = dockerEnforcement(info.MemoryLimit, info.SwapLimit, info.CPUCfsQuota, info.PidsLimit)
		f.Seccomp.Enabled = slices.ContainsFunc(info.SecurityOptions, func(o string) bool {
			return strings.HasPrefix(o, "name=seccomp")
		})
		if !podman {
			return nil
		}
		f.ReadsOnlyRunning = true
		p.apply(&f)
		return nil
	})
	if err != nil {
		return f, err
	}
	c.facts = &f
	return f, nil
}

// clockOffset is how far the engine's clock, which read systemTime while
// the provider waited from asked to answered, is ahead of the provider's:
// zero when the engine did not say.
func clockOffset(systemTime string, asked, answered time.Time) time.Duration {
	engineNow, err := time.Parse(time.RFC3339Nano, systemTime)
	if err != nil {
		return 0
	}
	return engineNow.Sub(asked.Add(answered.Sub(asked) / 2))
}

// engineNow is the engine's time now, as the provider reads it from the
// engine's clock when it first asked for the Facts; the provider's own
// time when the engine did not answer.
func (c *Client) engineNow(ctx context.Context) time.Time {
	f, err := c.Facts(ctx)
	if err != nil {
		return time.Now()
	}
	return time.Now().Add(f.ClockOffset)
}

// dockerEnforcement is what Docker's /info says it can limit.
func dockerEnforcement(memory, swap, cpu, pids bool) engine.Enforcement {
	return engine.Enforcement{Memory: memory, Swap: swap, CPU: cpu, Pids: pids, Ulimits: true,
		Why: "its host lacks the cgroup controller (docker info lists a warning for it)",
		Fix: "enable the controller on the engine's host (for memory, the kernel's cgroup_enable=memory), or place " +
			"this sandbox on an engine that has it"}
}

// podmanInfo is the part of Podman's own /libpod/info the provider reads.
type podmanInfo struct {
	Host struct {
		CgroupVersion     string   `json:"cgroupVersion"`
		CgroupControllers []string `json:"cgroupControllers"`
		Security          struct {
			Rootless           bool   `json:"rootless"`
			SeccompEnabled     bool   `json:"seccompEnabled"`
			SeccompProfilePath string `json:"seccompProfilePath"`
		} `json:"security"`
		IDMappings struct {
			UIDMap []idMap `json:"uidmap"`
			GIDMap []idMap `json:"gidmap"`
		} `json:"idMappings"`
	} `json:"host"`
}

// idMap is one range of a rootless Podman's user namespace: Size IDs from
// ContainerID in its containers are HostID and on, on the host.
type idMap struct {
	ContainerID int64 `json:"container_id"`
	HostID      int64 `json:"host_id"`
	Size        int64 `json:"size"`
}

// mapped is how many IDs from 0 the ranges cover without a gap.
func mapped(ranges []idMap) int64 {
	ranges = slices.Clone(ranges)
	slices.SortFunc(ranges, func(a, b idMap) int { return cmp.Compare(a.ContainerID, b.ContainerID) })
	var next int64
	for _, r := range ranges {
		if r.ContainerID > next {
			break
		}
		next = max(next, r.ContainerID+r.Size)
	}
	return next
}

// podmanInfo asks Podman's own API about itself, through the same
// connection as every other call.
func (c *Client) podmanInfo(ctx context.Context) (podmanInfo, error) {
	var p podmanInfo
	resp, err := c.get(ctx, "/v4.0.0/libpod/info")
	if err != nil {
		return p, fmt.Errorf("asking Podman's own API about the engine: %w", err)
	}
	defer func() { _ = resp.Body.Close() }()
	if resp.StatusCode != http.StatusOK {
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return p, fmt.Errorf("asking Podman's own API about the engine: %s: %s", resp.Status, strings.TrimSpace(string(msg)))
	}
	if err := json.NewDecoder(resp.Body).Decode(&p); err != nil {
		return p, fmt.Errorf("reading Podman's description of the engine: %w", err)
	}
	return p, nil
}

// apply sets what Podman's own API says on f. Rootless Podman applies a
// limit only through a cgroup controller delegated to its user, and none
// at all on cgroup v1, whatever its Docker-compatible API reports.
func (p podmanInfo) apply(f *engine.Facts) {
	sec := p.Host.Security
	f.Rootless = sec.Rootless
	f.Seccomp = engine.Seccomp{Enabled: sec.SeccompEnabled, Profile: sec.SeccompProfilePath,
		AllowsUserNamespaces: sec.SeccompEnabled && slices.Contains(podmanStockProfiles, sec.SeccompProfilePath)}
	if !sec.Rootless {
		return
	}
	if m := p.Host.IDMappings; len(m.UIDMap) > 0 && len(m.GIDMap) > 0 {
		f.OwnersBelow = min(mapped(m.UIDMap), mapped(m.GIDMap))
	}
	has := func(controller string) bool { return slices.Contains(p.Host.CgroupControllers, controller) }
	// Rootless Podman 4's Docker-compatible API drops the ulimits a
	// container asks for (its own CLI applies them).
	f.Enforces = engine.Enforcement{Memory: has("memory"), Swap: has("memory"), CPU: has("cpu"), Pids: has("pids"),
		UlimitsWhy: "it is rootless Podman, whose Docker-compatible API drops the ulimits a container asks for",
		UlimitsFix: "set them for every container of that user in its containers.conf ([containers] " +
			"default_ulimits), or place this sandbox on rootful Podman or on Docker"}
	if p.Host.CgroupVersion == "v1" {
		f.Pausable = false
		f.Enforces.Why = "it is rootless Podman on cgroup v1, which applies no resource limits"
		f.Enforces.Fix = "boot the host with cgroup v2 and delegate the memory, cpu and pids controllers to the " +
			"user that runs Podman (systemd: Delegate=memory cpu pids for user@.service), or use rootful Podman"
		return
	}
	delegated := strings.Join(p.Host.CgroupControllers, ", ")
	if delegated == "" {
		delegated = "none"
	}
	f.Enforces.Why = "it is rootless Podman, whose user has these cgroup controllers delegated: " + delegated
	f.Enforces.Fix = "delegate the missing controller to the user that runs Podman (systemd: Delegate=memory cpu " +
		"pids for user@.service), or use rootful Podman"
}
