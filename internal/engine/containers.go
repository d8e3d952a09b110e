package engine

import (
	"slices"
	"strings"
	"time"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/isolation"
)

// Container is what a backend observed of a sandbox's container, in the
// seam's own terms: the values the resources read back into the state.
// The Docker backend fills it from the engine's inspect data, the cluster
// backend from the pod; the sandbox's network and namespaces are
// Sandbox.Network, in each backend's own terms.
type Container struct {
	ID      string
	Name    string // as the backend names it (the Docker API with a leading "/")
	Created string // RFC 3339
	// Image is the ID of the image it runs.
	Image string
	// RestartCount is how many times the backend restarted its main
	// process by its restart policy.
	RestartCount int
	State        *ContainerState
	Config       *ContainerConfig
	HostConfig   *HostConfig
	// Mounts are the volumes, host paths and tmpfs mounted into it.
	Mounts []MountPoint
	// ExpiresAt is when the backend stops it (expiry.go); zero for never.
	ExpiresAt time.Time
}

// ContainerState is whether and how a container runs.
type ContainerState struct {
	Status     string // "created", "running", "paused", "restarting", "exited", ...
	Running    bool
	Paused     bool
	Restarting bool
	OOMKilled  bool
	ExitCode   int
	StartedAt  string // RFC 3339
	FinishedAt string // RFC 3339
	Error      string
}

// ContainerConfig is a container's portable part: image, process,
// environment, labels.
type ContainerConfig struct {
	Image      string
	Entrypoint []string
	Cmd        []string
	Env        []string
	Labels     map[string]string
	User       string
	WorkingDir string
	Hostname   string
}

// HostConfig is the part the backend applies on its host: privileges,
// runtime, limits, restart policy, published ports.
type HostConfig struct {
	Privileged     bool
	CapAdd         []string
	CapDrop        []string
	SecurityOpt    []string
	ReadonlyRootfs bool
	Init           *bool
	Runtime        string
	Memory         int64  // bytes; 0 for none
	MemorySwap     int64  // bytes of memory plus swap; -1 for unlimited swap
	NanoCPUs       int64  // CPUs in units of 10^-9
	PidsLimit      *int64 // nil or not above 0 for none
	Ulimits        []Ulimit
	ShmSize        int64             // bytes
	Tmpfs          map[string]string // mount path: options
	RestartPolicy  string            // "no", "always", "on-failure", "unless-stopped"
	PortBindings   []PortBinding
}

// MountPoint is a volume, host path or tmpfs mounted into a container.
type MountPoint struct {
	Type        string // MountVolume, MountBind, or another the provider does not keep
	Name        string // a volume's name
	Source      string // a host path
	Destination string
	RW          bool
}

// The mount types a MountPoint keeps.
const (
	MountVolume = "volume"
	MountBind   = "bind"
)

// Sandbox is what a backend observed of a sandbox: its container
// (Container), and its network and namespaces in the backend's own terms
// (Network), from which isolation.Assess gives the verdict.
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
	// ExpiresAt, when not zero, is when the backend stops the sandbox
	// whatever runs in it (expiry.go).
	ExpiresAt time.Time
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
		out = append(out, Ulimit{Name: ulimitName(u.Name), Soft: u.Soft, Hard: u.Hard})
	}
	return out
}

// IsRunning reports whether the engine shows the container running and not
// paused.
func IsRunning(c Sandbox) bool {
	return c.State != nil && c.State.Running && !c.State.Paused && !Restarting(c)
}

// StatusAsleep is the status of a sandbox asleep where a sleep leaves no
// container (a cluster: no pod, engine.Sleeper): only its Network and, in
// Config, its labels are known.
const StatusAsleep = "asleep"

// IsAsleep reports whether the backend shows the sandbox asleep with no
// container.
func IsAsleep(c Sandbox) bool {
	return c.State != nil && c.State.Status == StatusAsleep
}

// The states a sandbox is in, in sandbox_container.state's words: running;
// stopped (asleep: no process, exited, made and not started, restarting
// in a loop, or with no container at all, StatusAsleep); paused (frozen).
const (
	StateRunning = "running"
	StateStopped = "stopped"
	StatePaused  = "paused"
)

// StateOf is the state the backend shows c in.
func StateOf(c Sandbox) string {
	switch {
	case c.State != nil && c.State.Paused:
		return StatePaused
	case IsRunning(c):
		return StateRunning
	}
	return StateStopped
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
	if h.RestartPolicy == "" {
		return "no"
	}
	return h.RestartPolicy
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
	return slices.Clone(h.PortBindings)
}

// Restarting reports whether the engine shows a container's main process
// between two restarts by its restart policy (Docker then still calls the
// container running).
func Restarting(c Sandbox) bool {
	return c.State != nil && (c.State.Restarting || c.State.Status == "restarting")
}

// Restarts is how many times the engine has restarted a container's main
// process by its restart policy.
func Restarts(c Sandbox) int {
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
