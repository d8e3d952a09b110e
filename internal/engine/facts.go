package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
)

// Facts are what the engine reports about itself that bounds a sandbox:
// its memory, its CPUs, its runtimes, the limits it can apply and its
// default seccomp profile.
type Facts struct {
	MemTotal int64 // bytes
	NCPU     int
	// Runtimes maps each runtime's name to its program's path.
	Runtimes       map[string]string
	DefaultRuntime string
	// Enforces says which limits the engine applies to a container.
	Enforces Enforcement
	// Rootless is Podman run by a normal user.
	Rootless bool
	// Pausable says the engine can pause a container (freeze its cgroup):
	// rootless Podman on cgroup v1 cannot.
	Pausable bool
	// Seccomp is the engine's default seccomp filter.
	Seccomp Seccomp
	// DataRoot is where the engine keeps its images, containers and
	// volumes on its host (Docker's root directory, Podman's graph root).
	DataRoot string
	// Arch is the engine host's architecture, as uname -m prints it.
	Arch string
	// MountsFiles says the backend mounts a sandbox's files when it makes
	// it (ContainerSpec.Files), read-only: it takes no CopyFiles, no
	// WhereFilesGo and no image derived for a read-only root (a cluster).
	MountsFiles bool
}

// Enforcement is which limits an engine applies; one it does not is
// refused at plan, never accepted and ignored. Why says why the cgroup
// limits (memory, swap, CPU, processes) are not, for the error, and Fix
// what would make the engine apply them; UlimitsWhy and UlimitsFix the
// same for ulimits.
type Enforcement struct {
	Memory, Swap, CPU, Pids, Ulimits bool
	Why, Fix, UlimitsWhy, UlimitsFix string
}

// Seccomp is an engine's default seccomp filter: whether it has one, and
// whether it lets a process create user namespaces (Podman's stock
// profile does; Docker's refuses without CAP_SYS_ADMIN). Profile is the
// profile's path on a Podman host.
type Seccomp struct {
	Enabled              bool
	AllowsUserNamespaces bool
	Profile              string
}

// podmanStockProfiles are where Podman's packages put its own seccomp
// profile, which lets user namespaces through; a profile elsewhere is the
// host's own choice.
var podmanStockProfiles = []string{"", "/usr/share/containers/seccomp.json", "/etc/containers/seccomp.json"}

// Facts asks the engine, until it has answered once, about itself. On
// Podman it also asks Podman's own API, whose answer says what its
// Docker-compatible one does not: whether it runs rootless, which cgroup
// controllers it can use, and its seccomp profile.
func (c *Client) Facts(ctx context.Context) (Facts, error) {
	c.factsMu.Lock()
	defer c.factsMu.Unlock()
	if c.facts != nil {
		return *c.facts, nil
	}
	podman := c.Kind(ctx) == Podman
	var f Facts
	err := c.within(ctx, "the request for the engine's facts", QuickCallTimeout, func(ctx context.Context) error {
		info, err := c.api.Info(ctx)
		if err != nil {
			return err
		}
		f = Facts{MemTotal: info.MemTotal, NCPU: info.NCPU, DefaultRuntime: info.DefaultRuntime,
			Runtimes: map[string]string{}, Pausable: true, DataRoot: info.DockerRootDir,
			Arch: info.Architecture}
		for name, rt := range info.Runtimes {
			f.Runtimes[name] = rt.Path
		}
		f.Enforces = dockerEnforcement(info.MemoryLimit, info.SwapLimit, info.CPUCfsQuota, info.PidsLimit)
		f.Seccomp.Enabled = slices.ContainsFunc(info.SecurityOptions, func(o string) bool {
			return strings.HasPrefix(o, "name=seccomp")
		})
		if !podman {
			return nil
		}
		p, err := c.podmanInfo(ctx)
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

// dockerEnforcement is what Docker's /info says it can limit.
func dockerEnforcement(memory, swap, cpu, pids bool) Enforcement {
	return Enforcement{Memory: memory, Swap: swap, CPU: cpu, Pids: pids, Ulimits: true,
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
	} `json:"host"`
}

// podmanInfo asks Podman's own API about itself, through the same
// connection as every other call.
func (c *Client) podmanInfo(ctx context.Context) (podmanInfo, error) {
	var p podmanInfo
	scheme, host := c.conn.URL()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, scheme+"://"+host+"/v4.0.0/libpod/info", nil)
	if err != nil {
		return p, err
	}
	resp, err := c.api.HTTPClient().Do(req)
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
func (p podmanInfo) apply(f *Facts) {
	sec := p.Host.Security
	f.Rootless = sec.Rootless
	f.Seccomp = Seccomp{Enabled: sec.SeccompEnabled, Profile: sec.SeccompProfilePath,
		AllowsUserNamespaces: sec.SeccompEnabled && slices.Contains(podmanStockProfiles, sec.SeccompProfilePath)}
	if !sec.Rootless {
		return
	}
	has := func(controller string) bool { return slices.Contains(p.Host.CgroupControllers, controller) }
	// Rootless Podman 4's Docker-compatible API drops the ulimits a
	// container asks for (its own CLI applies them).
	f.Enforces = Enforcement{Memory: has("memory"), Swap: has("memory"), CPU: has("cpu"), Pids: has("pids"),
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
