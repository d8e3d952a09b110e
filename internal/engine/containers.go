package engine

import (
	"strconv"
	"strings"

	"github.com/docker/docker/api/types/container"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/isolation"
)

// Container is the engine's data about a container; ContainerConfig is its
// portable part (image, process, environment, labels) and HostConfig the
// part the engine applies on the host (network, privileges, mounts, limits).
type (
	Container       = container.InspectResponse
	ContainerConfig = container.Config
	HostConfig      = container.HostConfig
)

// Sandbox is what a backend observed of a sandbox: its data in the Docker
// Engine API's shape (Container), which each backend fills in from what it
// has, and its network in the backend's own terms (Network), from which
// isolation.Assess gives the verdict.
type Sandbox struct {
	Container
	Network isolation.Observed
}

// ContainerSpec is what the provider asks the engine to create.
type ContainerSpec struct {
	Name        string
	Image       string
	NetworkMode string // empty: the engine's default network
	Entrypoint  []string
	Command     []string
	Env         []string
	// SecretEnv names the variables of Env whose values are write-only:
	// a cluster keeps them in a Secret rather than in the pod.
	SecretEnv  []string
	Labels     map[string]string
	WorkingDir string
	User       string
	Init       bool

	CapAdd      []string
	CapDrop     []string
	SecurityOpt []string
	ReadOnly    bool
	Tmpfs       map[string]string // mount path: mount options
	Runtime     string            // empty: the engine's default runtime
	Limits      Limits
	ShmSize     int64 // bytes; 0: the engine's default
	Ulimits     []Ulimit
	Ports       []PortBinding
	Restart     string // restart policy; empty: "no"
	Mounts      []Mount
	// Files are mounted when the sandbox is made, by a backend that is no
	// FileCopier; one that is is given them with CopyFiles.
	Files []File
}

// Mount is a volume or a host path mounted into a container. Bind mounts'
// propagation is always private.
type Mount struct {
	Target   string `json:"target"`
	Volume   string `json:"volume,omitempty"`    // a named volume
	HostPath string `json:"host_path,omitempty"` // or a path on the engine's host
	ReadOnly bool   `json:"read_only,omitempty"`
}

// Limits are the resource limits the engine can change on a live container.
// Zero means no limit.
type Limits struct {
	Memory     int64 // bytes
	MemorySwap int64 // bytes of memory plus swap; -1 for unlimited swap
	NanoCPUs   int64 // CPUs in units of 10^-9
	PidsLimit  int64
}

// Ulimit is a process resource limit set in the container.
type Ulimit struct {
	Name string `json:"name"`
	Soft int64  `json:"soft"`
	Hard int64  `json:"hard"`
}

// ObservedLimits are the limits the engine shows in a container's host
// configuration.
func ObservedLimits(h *HostConfig) Limits {
	l := Limits{Memory: h.Memory, MemorySwap: h.MemorySwap, NanoCPUs: h.NanoCPUs}
	if h.PidsLimit != nil && *h.PidsLimit > 0 {
		l.PidsLimit = *h.PidsLimit
	}
	return l
}

// ObservedUlimits are the process limits the engine shows in a container's
// host configuration.
func ObservedUlimits(h *HostConfig) []Ulimit {
	var out []Ulimit
	for _, u := range h.Ulimits {
		if u != nil {
			out = append(out, Ulimit{Name: ulimitName(u.Name), Soft: u.Soft, Hard: u.Hard})
		}
	}
	return out
}

// IsRunning reports whether the engine shows the container running and not
// paused.
func IsRunning(c Sandbox) bool {
	return c.ContainerJSONBase != nil && c.State != nil && c.State.Running && !c.State.Paused && !Restarting(c)
}

// ulimitName is a ulimit's name as Docker spells it: Podman reports
// RLIMIT_NOFILE for what Docker calls nofile.
func ulimitName(name string) string {
	if rest, ok := strings.CutPrefix(name, "RLIMIT_"); ok {
		return strings.ToLower(rest)
	}
	return name
}

// ObservedRestart is the container's restart policy, "no" when it has none.
func ObservedRestart(h *HostConfig) string {
	if h.RestartPolicy.Name == "" {
		return string(container.RestartPolicyDisabled)
	}
	return string(h.RestartPolicy.Name)
}

// SplitSecurityOpt splits a security option at its first '=' or, in the
// engine's legacy form, ':'.
func SplitSecurityOpt(s string) (key, value string, ok bool) {
	i := strings.IndexAny(s, "=:")
	if i < 0 {
		return s, "", false
	}
	return s[:i], s[i+1:], true
}

// IsSeccompPath reports whether a seccomp= value is a path, which only
// Podman takes: the path of a profile on its own host.
func IsSeccompPath(value string) bool { return strings.HasPrefix(value, "/") }

// PortBinding publishes a container port on the host.
type PortBinding struct {
	Port     int    `json:"port"`     // in the container
	Protocol string `json:"protocol"` // tcp, udp or sctp
	HostIP   string `json:"host_ip"`
	HostPort int    `json:"host_port,omitempty"` // 0: the engine picks a free port
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

// Restarting reports whether the engine shows a container's main process
// between two restarts by its restart policy (Docker then still calls the
// container running).
func Restarting(c Sandbox) bool {
	return c.ContainerJSONBase != nil && c.State != nil && (c.State.Restarting || c.State.Status == "restarting")
}

// Restarts is how many times the engine has restarted a container's main
// process by its restart policy.
func Restarts(c Sandbox) int {
	if c.ContainerJSONBase == nil {
		return 0
	}
	return c.RestartCount
}

const (
	// gVisorHostPidsBase covers the threads of gVisor's own kernel: about
	// 40 idle, more under load; it needs 48 to start.
	gVisorHostPidsBase = 128
	// gVisorHostPidsPerProcess covers the host threads each process inside
	// costs gVisor (about 8.5 measured on the ptrace platform), twice over.
	gVisorHostPidsPerProcess = 16
	// maxHostPids is the kernel's largest process ID (PID_MAX_LIMIT).
	maxHostPids = 1 << 22
)

// GVisorHostPids is the host pids limit of a gVisor sandbox whose
// processes inside are limited to pids.
func GVisorHostPids(pids int64) int64 {
	if pids >= (maxHostPids-gVisorHostPidsBase)/gVisorHostPidsPerProcess {
		return maxHostPids
	}
	return gVisorHostPidsBase + gVisorHostPidsPerProcess*pids
}
