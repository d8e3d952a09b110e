package containerresource

import (
	"encoding/json"
	"maps"
	"slices"

	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
)

// What a container's configuration set, recorded on the container at
// create, so that import can tell it from what the engine filled in.

// labelConfigured records on the container what its configuration set
// where an engine fills in values of its own (Podman adds environment
// variables, prefixes image names with localhost/, and sets a working
// directory, a pids limit, a /dev/shm size and ulimits), so that import
// can tell the two apart. It holds names and the image reference, never a
// value of env.
const labelConfigured = "tfsandbox.configured"

// configuredRecord is labelConfigured's content.
type configuredRecord struct {
	Image      string            `json:"image"`
	Env        []string          `json:"env,omitempty"`
	WorkingDir bool              `json:"working_dir,omitempty"`
	PidsLimit  bool              `json:"pids_limit,omitempty"`
	ShmSize    bool              `json:"shm_size,omitempty"`
	Ulimits    []string          `json:"ulimits,omitempty"`
	Tmpfs      map[string]string `json:"tmpfs,omitempty"`
	CapAdd     []string          `json:"cap_add,omitempty"`
	CapDrop    []string          `json:"cap_drop,omitempty"`
	// Runtime is the runtime as configured, even the engine's default.
	Runtime string `json:"runtime,omitempty"`
	// EnvWOVersion is env_wo_version, so that an imported sandbox keeps it.
	EnvWOVersion *int64 `json:"env_wo_version,omitempty"`
	// EnginePorts are the bindings whose host port the engine picks.
	EnginePorts []engine.PortBinding `json:"engine_ports,omitempty"`
}

// recordConfigured adds labelConfigured to spec, whose env holds the
// configured variables (the write-only ones are labelled apart), with the
// version of the write-only ones.
func recordConfigured(spec *engine.ContainerSpec, env map[string]string, secretsVersion types.Int64) {
	rec := configuredRecord{
		Image:      spec.Image,
		Env:        slices.Sorted(maps.Keys(env)),
		WorkingDir: spec.WorkingDir != "",
		PidsLimit:  spec.Limits.PidsLimit != 0,
		ShmSize:    spec.ShmSize != 0,
	}
	for _, u := range spec.Ulimits {
		rec.Ulimits = append(rec.Ulimits, u.Name)
	}
	rec.Tmpfs, rec.CapAdd, rec.CapDrop, rec.Runtime = spec.Tmpfs, spec.CapAdd, spec.CapDrop, spec.Runtime
	if !secretsVersion.IsNull() && !secretsVersion.IsUnknown() {
		v := secretsVersion.ValueInt64()
		rec.EnvWOVersion = &v
	}
	for _, b := range spec.Ports {
		if b.HostPort == 0 {
			rec.EnginePorts = append(rec.EnginePorts, b)
		}
	}
	raw, _ := json.Marshal(rec)
	spec.Labels[labelConfigured] = string(raw)
}

// configured reads labelConfigured; containers made before it existed, or
// not by this provider, have none.
func configured(labels map[string]string) (configuredRecord, bool) {
	var rec configuredRecord
	raw, ok := labels[labelConfigured]
	if !ok || json.Unmarshal([]byte(raw), &rec) != nil {
		return rec, false
	}
	return rec, true
}

// importDefaults are, for a container with a record, the values the engine
// gave it where its configuration set nothing: import takes them for the
// engine's defaults, so they stay unset, and a later change from them is
// drift.
func (rec configuredRecord) importDefaults(h *engine.HostConfig) engine.Defaults {
	var d engine.Defaults
	if h == nil {
		return d
	}
	d.Capabilities, d.HasCapabilities = engine.EffectiveCapabilities(h.CapAdd, h.CapDrop), true
	if !rec.PidsLimit {
		d.PidsLimit = engine.ObservedLimits(h).PidsLimit
	}
	if !rec.ShmSize {
		d.ShmSize = h.ShmSize
	}
	for _, u := range engine.ObservedUlimits(h) {
		if !slices.Contains(rec.Ulimits, u.Name) {
			d.Ulimits = append(d.Ulimits, u)
		}
	}
	d.Tmpfs, d.TmpfsOptions = engine.AddedTmpfs(rec.Tmpfs, h.Tmpfs)
	return d
}
