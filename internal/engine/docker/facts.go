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

	"github.com/docker/docker/api/types/system"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
)

// podmanStockProfiles are where Podman's packages put its own seccomp
// profile, which lets user namespaces through; a profile elsewhere is the
// host's own choice.
var podmanStockProfiles = []string{"", "/usr/share/containers/seccomp.json", "/etc/containers/seccomp.json"}

// factsTimeout bounds the request for an engine's facts. Podman answers
// each of its descriptions of itself by running its host's package manager
// (dpkg-query or rpm) for every component, a dozen runs on rootless Podman,
// which asks both: under load that took over 30 s in a CI run, so Podman's
// have the deadline of a slow call.
func factsTimeout(podman bool) time.Duration {
	if podman {
		return engine.SlowCallTimeout
	}
	return engine.QuickCallTimeout
}

// Facts asks the engine, until it has answered once, about itself. On
// rootless Podman it also asks Podman's own API, whose answer says what
// its Docker-compatible one does not: which cgroup controllers its user
// has, and the owners its user namespace maps. Each of Podman's two takes
// it over half a second and a CPU-second of package queries on its host,
// and a provider process asks on every plan, so rootful Podman is asked
// only the one (its seccomp profile, which the other gives, is read when a
// plan needs it: DefaultSeccomp).
func (c *Client) Facts(ctx context.Context) (engine.Facts, error) {
	c.factsMu.Lock()
	defer c.factsMu.Unlock()
	if c.facts != nil {
		return *c.facts, nil
	}
	podman := c.Kind(ctx) == KindPodman
	var f engine.Facts
	err := c.within(ctx, "the request for the engine's facts", factsTimeout(podman), func(ctx context.Context) error {
		asked := time.Now()
		info, rootless, err := c.info(ctx, podman)
		answered := time.Now()
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
		if !rootless {
			return nil
		}
		p, err := c.podmanOwn(ctx)
		if err != nil {
			return err
		}
		p.apply(&f)
		return nil
	})
	if err != nil {
		return f, err
	}
	c.facts = &f
	return f, nil
}

// DefaultSeccomp is Podman's default seccomp filter with the profile its
// own API names, which says whether the filter lets a process create user
// namespaces (engine.SeccompDefaults).
func (p Podman) DefaultSeccomp(ctx context.Context) (engine.Seccomp, error) {
	f, err := p.Facts(ctx)
	if err != nil || f.Rootless {
		return f.Seccomp, err
	}
	var own podmanInfo
	err = p.within(ctx, "the request for the engine's seccomp profile", factsTimeout(true),
		func(ctx context.Context) (err error) { own, err = p.podmanOwn(ctx); return err })
	if err != nil {
		return f.Seccomp, err
	}
	return own.seccomp(), nil
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

// info is the engine's /info. Podman's also says whether it runs rootless
// (a field of its own; it says not what that changes).
func (c *Client) info(ctx context.Context, podman bool) (system.Info, bool, error) {
	if !podman {
		info, err := c.api.Info(ctx)
		return info, false, err
	}
	var info struct {
		system.Info
		Rootless bool
	}
	err := c.getJSON(ctx, "/info", "the engine's description of itself", &info)
	return info.Info, info.Rootless, err
}

// podmanOwn asks Podman's own API about itself, through the same
// connection as every other call, until it has answered once.
func (c *Client) podmanOwn(ctx context.Context) (podmanInfo, error) {
	c.podmanMu.Lock()
	defer c.podmanMu.Unlock()
	if c.podman != nil {
		return *c.podman, nil
	}
	var p podmanInfo
	if err := c.getJSON(ctx, "/v4.0.0/libpod/info", "Podman's own description of the engine", &p); err != nil {
		return p, err
	}
	c.podman = &p
	return p, nil
}

// getJSON reads the JSON answer to a GET of path, which is what.
func (c *Client) getJSON(ctx context.Context, path, what string, v any) error {
	resp, err := c.get(ctx, path)
	if err != nil {
		return fmt.Errorf("asking for %s: %w", what, err)
	}
	defer func() { _ = resp.Body.Close() }()
	if resp.StatusCode != http.StatusOK {
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return fmt.Errorf("asking for %s: %s: %s", what, resp.Status, strings.TrimSpace(string(msg)))
	}
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		return fmt.Errorf("reading %s: %w", what, err)
	}
	return nil
}

// seccomp is Podman's default seccomp filter: its stock profile lets user
// namespaces through.
func (p podmanInfo) seccomp() engine.Seccomp {
	sec := p.Host.Security
	return engine.Seccomp{Enabled: sec.SeccompEnabled, Profile: sec.SeccompProfilePath,
		AllowsUserNamespaces: sec.SeccompEnabled && slices.Contains(podmanStockProfiles, sec.SeccompProfilePath)}
}

// apply sets what Podman's own API says on f. Rootless Podman applies a
// limit only through a cgroup controller delegated to its user, and none
// at all on cgroup v1, whatever its Docker-compatible API reports.
func (p podmanInfo) apply(f *engine.Facts) {
	f.Rootless = p.Host.Security.Rootless
	f.Seccomp = p.seccomp()
	if !f.Rootless {
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
