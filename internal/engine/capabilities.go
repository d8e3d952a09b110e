package engine

import (
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
