package engine

import "slices"

// Defaults are what an engine adds to a container on its own where the
// provider asked for nothing. Docker adds little (a 64 MiB /dev/shm);
// Podman also applies a pids limit, its own /dev/shm size and the ulimits
// of its containers.conf. The provider records them when it creates a
// sandbox, so that they are not taken for the user's settings and a change
// away from them is still drift.
type Defaults struct {
	PidsLimit int64    `json:"pids_limit,omitempty"`
	ShmSize   int64    `json:"shm_size,omitempty"`
	Ulimits   []Ulimit `json:"ulimits,omitempty"`
}

// AddedDefaults returns what the engine shows in h that spec, the request
// that created the container, did not ask for.
func AddedDefaults(spec ContainerSpec, h *HostConfig) Defaults {
	var d Defaults
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
	return d
}

// IsDefaultUlimit reports whether u is one the engine added by default.
func (d Defaults) IsDefaultUlimit(u Ulimit) bool {
	return slices.Contains(d.Ulimits, u)
}
