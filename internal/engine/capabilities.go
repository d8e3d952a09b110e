package engine

import (
	"maps"
	"path/filepath"
	"slices"
	"strings"
)

// DefaultCapabilities are the capabilities a Docker container gets when it
// asks for none to be added or dropped. Docker reports a container's
// cap_add and cap_drop as the create asked; Podman reports them against
// this same list whatever its own default set is (a container that dropped
// ALL shows all fourteen dropped, and one that asked for nothing on a
// stock Podman, whose containers.conf leaves out AUDIT_WRITE, MKNOD and
// NET_RAW, shows those three dropped). So the effective set is always this
// list with cap_add added and cap_drop removed.
var DefaultCapabilities = []string{
	"AUDIT_WRITE", "CHOWN", "DAC_OVERRIDE", "FOWNER", "FSETID", "KILL", "MKNOD", "NET_BIND_SERVICE",
	"NET_RAW", "SETFCAP", "SETGID", "SETPCAP", "SETUID", "SYS_CHROOT",
}

// EffectiveCapabilities is the capability set that adding add to, and
// dropping drop from, the defaults gives ("ALL" as either means all), with
// names as Docker writes them (CAP_NET_RAW and net_raw are NET_RAW),
// sorted, for comparing two spellings of the same set.
func EffectiveCapabilities(add, drop []string) []string {
	add, drop = CapabilityNames(add), CapabilityNames(drop)
	set := map[string]bool{}
	if !slices.Contains(drop, "ALL") {
		for _, c := range DefaultCapabilities {
			set[c] = !slices.Contains(drop, c)
		}
	}
	for _, c := range add {
		set[c] = true
	}
	out := []string{}
	for c, on := range set {
		if on {
			out = append(out, c)
		}
	}
	slices.Sort(out)
	return out
}

// CapabilityNames are capabilities as Docker writes them: upper case,
// without the CAP_ prefix.
func CapabilityNames(caps []string) []string {
	out := make([]string, 0, len(caps))
	for _, c := range caps {
		out = append(out, strings.TrimPrefix(strings.ToUpper(c), "CAP_"))
	}
	return out
}

// UpdatesLimitsInPlace reports whether a container under the named runtime
// ("" for the engine's default) can have its limits changed while it runs:
// runc can; gVisor (runsc) cannot, its sandbox keeps the limits it started
// with.
func (f Facts) UpdatesLimitsInPlace(runtime string) bool { return !f.IsGVisor(runtime) }

// IsGVisor reports whether the named runtime ("" for the engine's
// default) is gVisor: its program is runsc.
func (f Facts) IsGVisor(runtime string) bool {
	if runtime == "" {
		runtime = f.DefaultRuntime
	}
	path := f.Runtimes[runtime]
	if path == "" {
		path = runtime
	}
	return filepath.Base(path) == "runsc"
}

// CapabilityEffect is what a capability lets root in a sandbox do, and
// whether that reaches past the sandbox.
type CapabilityEffect struct {
	// Unsafe: it acts on the host's kernel as a whole (its clock, its
	// logs, its modules, its scheduler, its power state), on the host's
	// files or devices around the sandbox's mounts, or on other processes.
	// Otherwise it acts on the sandbox's own files, processes, IPC or
	// network namespace only.
	Unsafe bool
	What   string
}

// CapabilityEffects covers every Linux capability the engines accept,
// without the CAP_ prefix (capabilities(7); the hardening guide's table is
// this one, and a test keeps the two the same). sandbox_container grants
// an unsafe one only with allow_unsafe_capabilities; sandbox_pool never.
var CapabilityEffects = map[string]CapabilityEffect{
	"AUDIT_CONTROL":      {true, "change the host kernel's audit rules and switch auditing off"},
	"AUDIT_READ":         {true, "read the host kernel's audit log"},
	"AUDIT_WRITE":        {true, "write records into the host kernel's audit log"},
	"BLOCK_SUSPEND":      {true, "keep the host from suspending"},
	"BPF":                {true, "load programs into the host's kernel"},
	"CHECKPOINT_RESTORE": {false, "choose process IDs in the sandbox when restoring a checkpoint"},
	"CHOWN":              {false, "change the owner of the sandbox's files"},
	"DAC_OVERRIDE":       {false, "bypass permission checks on the sandbox's files"},
	"DAC_READ_SEARCH":    {true, "open host files by handle, around the sandbox's mounts"},
	"FOWNER":             {false, "act as the owner of any of the sandbox's files"},
	"FSETID":             {false, "keep setuid and setgid bits on the sandbox's files it changes"},
	"IPC_LOCK":           {true, "lock memory so that the host cannot swap it out"},
	"IPC_OWNER":          {false, "bypass permission checks on the sandbox's own IPC objects"},
	"KILL":               {false, "signal any process in the sandbox"},
	"LEASE":              {false, "take leases on the sandbox's files"},
	"LINUX_IMMUTABLE":    {false, "make the sandbox's files immutable or append-only"},
	"MAC_ADMIN":          {true, "change the host's mandatory access control policy"},
	"MAC_OVERRIDE":       {true, "bypass the host's mandatory access control"},
	"MKNOD":              {false, "create device files, which the engine's device rules still guard"},
	"NET_ADMIN":          {true, "reconfigure interfaces, routes and firewalls"},
	"NET_BIND_SERVICE":   {false, "listen on ports below 1024 in the sandbox"},
	"NET_BROADCAST":      {false, "send broadcasts from the sandbox's network namespace"},
	"NET_RAW":            {false, "open raw sockets in the sandbox's network namespace"},
	"PERFMON":            {true, "watch the kernel and other processes through perf"},
	"SETFCAP":            {false, "set file capabilities on the sandbox's files"},
	"SETGID":             {false, "change its group ID in the sandbox"},
	"SETPCAP":            {false, "pass its own capabilities on in the sandbox"},
	"SETUID":             {false, "change its user ID in the sandbox"},
	"SYSLOG":             {true, "read the kernel log and kernel addresses"},
	"SYS_ADMIN":          {true, "mount filesystems and reach the host through cgroup release agents"},
	"SYS_BOOT":           {true, "reboot the kernel"},
	"SYS_CHROOT":         {false, "change its root directory within the sandbox's files"},
	"SYS_MODULE":         {true, "load kernel modules"},
	"SYS_NICE":           {true, "take the host's CPUs and disks with real-time scheduling and I/O priorities"},
	"SYS_PACCT":          {true, "switch the host kernel's process accounting on or off"},
	"SYS_PTRACE":         {true, "trace and inject code into other processes"},
	"SYS_RAWIO":          {true, "do raw I/O on devices and kernel memory"},
	"SYS_RESOURCE":       {true, "exceed resource limits and use the host filesystem's reserved space"},
	"SYS_TIME":           {true, "set the host's clock"},
	"SYS_TTY_CONFIG":     {true, "reconfigure and hang up the host's terminals"},
	"WAKE_ALARM":         {true, "set alarms that wake the host"},
}

// Capabilities are the Linux capability names the engines accept, without
// the CAP_ prefix, sorted.
var Capabilities = slices.Sorted(maps.Keys(CapabilityEffects))

// UnsafeCapabilities are the capabilities whose effect reaches past the
// sandbox, sorted.
var UnsafeCapabilities = slices.DeleteFunc(slices.Clone(Capabilities), func(c string) bool {
	return !CapabilityEffects[c].Unsafe
})
