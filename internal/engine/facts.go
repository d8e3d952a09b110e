package engine

import "time"

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
	// OwnersBelow, when not 0, is where the IDs a container's files can
	// be owned by end: rootless Podman's user namespace maps only so many.
	OwnersBelow int64
	// ClockOffset is how far the engine's clock is ahead of the
	// provider's, as read when the Facts were asked (Docker-API engines).
	ClockOffset time.Duration
	// ReadsOnlyRunning says the engine copies a file out of a running
	// container only (Podman), so a volume is read through a running one.
	ReadsOnlyRunning bool
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

// Unenforced names the limits of spec that e cannot apply, for a backend's
// create to refuse whatever reached it past the plan (which refuses them on
// their attributes first): swap beyond the memory limit, a process limit,
// ulimits, and memory or CPU where e applies none.
func (e Enforcement) Unenforced(spec ContainerSpec) []string {
	l := spec.Limits
	var out []string
	for _, c := range []struct {
		attr      string
		set, have bool
	}{
		{"memory", l.Memory != 0, e.Memory}, {"memory_swap", l.MemorySwap != 0 && l.MemorySwap != l.Memory, e.Swap},
		{"cpus", l.NanoCPUs != 0, e.CPU}, {"pids_limit", l.PidsLimit != 0, e.Pids},
		{"ulimits", len(spec.Ulimits) > 0, e.Ulimits},
	} {
		if c.set && !c.have {
			out = append(out, c.attr)
		}
	}
	return out
}
