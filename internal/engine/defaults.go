package engine

import (
	"slices"
	"strings"
)

// Defaults are what an engine adds to a container on its own where the
// provider asked for nothing. Docker adds little (a 64 MiB /dev/shm);
// Podman also applies a pids limit, its own /dev/shm size, the ulimits and
// the default capability set of its containers.conf. The provider records
// them when it creates a sandbox, so that they are not taken for the
// user's settings and a change away from them is still drift.
type Defaults struct {
	// Capabilities is the effective capability set the container was
	// created with (EffectiveCapabilities), whatever the engine's default
	// set: a container's capabilities never change, so the configuration's
	// spelling stands while the engine shows this set. HasCapabilities
	// says it was recorded (sandboxes created before it was have none).
	Capabilities    []string `json:"capabilities,omitempty"`
	HasCapabilities bool     `json:"has_capabilities,omitempty"`

	PidsLimit int64    `json:"pids_limit,omitempty"`
	ShmSize   int64    `json:"shm_size,omitempty"`
	Ulimits   []Ulimit `json:"ulimits,omitempty"`
	// Tmpfs are the tmpfs mounts the engine added (Podman mounts /run,
	// /tmp and /var/tmp in a read-only container), by path, with their
	// options.
	Tmpfs map[string]string `json:"tmpfs,omitempty"`
	// TmpfsOptions are the options the engine added to the tmpfs mounts
	// that were asked for (Podman adds nosuid, nodev and others), by path.
	TmpfsOptions map[string][]string `json:"tmpfs_options,omitempty"`
}

// AddedDefaults returns what the engine shows in h that spec, the request
// that created the container, did not ask for.
func AddedDefaults(spec ContainerSpec, h *HostConfig) Defaults {
	d := Defaults{Capabilities: EffectiveCapabilities(h.CapAdd, h.CapDrop), HasCapabilities: true}
	if spec.Limits.PidsLimit == 0 {
		d.PidsLimit = ObservedLimits(h).PidsLimit
	}
	if spec.ShmSize == 0 {
		d.ShmSize = h.ShmSize
	}
	for _, u := range ObservedUlimits(h) {
		if !slices.ContainsFunc(spec.Ulimits, func(asked Ulimit) bool { return asked.Name == u.Name }) {
			d.Ulimits = append(d.Ulimits, u)
		}
	}
	d.Tmpfs, d.TmpfsOptions = AddedTmpfs(spec.Tmpfs, h.Tmpfs)
	return d
}

// AddedTmpfs splits what the engine shows of tmpfs mounts (observed) from
// what was asked: the mounts it added, and the options it added to those
// asked for.
func AddedTmpfs(asked, observed map[string]string) (mounts map[string]string, options map[string][]string) {
	for target, opts := range observed {
		want, ok := asked[target]
		if !ok {
			if mounts == nil {
				mounts = map[string]string{}
			}
			mounts[target] = opts
			continue
		}
		var extra []string
		for _, o := range strings.Split(opts, ",") {
			if !slices.Contains(strings.Split(want, ","), o) {
				extra = append(extra, o)
			}
		}
		if len(extra) > 0 {
			if options == nil {
				options = map[string][]string{}
			}
			options[target] = extra
		}
	}
	return mounts, options
}

// AskedTmpfs is what observed tmpfs mounts were asked for, given what the
// engine added (d): the mounts it added and the options it added are left
// out.
func (d Defaults) AskedTmpfs(observed map[string]string) map[string]string {
	var out map[string]string
	for target, opts := range observed {
		if added, ok := d.Tmpfs[target]; ok && added == opts {
			continue
		}
		if out == nil {
			out = map[string]string{}
		}
		var kept []string
		for _, o := range strings.Split(opts, ",") {
			if !slices.Contains(d.TmpfsOptions[target], o) {
				kept = append(kept, o)
			}
		}
		out[target] = strings.Join(kept, ",")
	}
	return out
}

// CreatedWith reports whether effective (EffectiveCapabilities of what
// the engine shows) is the capability set the container was created with,
// when that was recorded.
func (d Defaults) CreatedWith(effective []string) bool {
	return d.HasCapabilities && slices.Equal(effective, d.Capabilities)
}

// IsDefaultUlimit reports whether u is one the engine added by default.
func (d Defaults) IsDefaultUlimit(u Ulimit) bool {
	return slices.Contains(d.Ulimits, u)
}
