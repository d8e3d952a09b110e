package containerresource

import (
	"context"
	"encoding/json"
	"maps"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/types"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/framework/values"
)

// setFromEngine fills every configurable attribute from the engine's data,
// as an import does: values that only repeat the image's defaults, the
// provider's own labels and the keep-alive are left null, as they would be in
// a configuration that produced this container; so are the values the
// engine filled in where labelConfigured says the configuration set none.
// It returns those engine defaults, for the private state.
func (m *resourceModel) setFromEngine(ctx context.Context, c engine.Container, img engine.Image) engine.Defaults {
	cfg := c.Config
	if cfg == nil {
		cfg = &engine.ContainerConfig{}
	}
	var imgCfg ocispec.ImageConfig
	if img.Config != nil {
		imgCfg = img.Config.ImageConfig
	}

	rec, recorded := configured(cfg.Labels)
	m.Image = types.StringValue(cfg.Image)
	env := withoutSecrets(envMap(without(cfg.Env, imgCfg.Env)), cfg.Labels)
	m.WorkingDir = stringOrNull(cfg.WorkingDir, imgCfg.WorkingDir)
	var defaults engine.Defaults
	if recorded {
		m.Image = types.StringValue(rec.Image)
		maps.DeleteFunc(env, func(k, _ string) bool { return !slices.Contains(rec.Env, k) })
		if !rec.WorkingDir {
			m.WorkingDir = types.StringNull()
		}
		if c.ContainerJSONBase != nil {
			defaults = rec.importDefaults(c.HostConfig)
		}
	}
	m.Entrypoint, m.Command = importProcess(cfg.Entrypoint, cfg.Cmd, imgCfg)
	m.Env = values.StringMap(env)
	m.Labels = values.StringMap(userLabels(cfg.Labels, imgCfg.Labels))
	m.User = stringOrNull(cfg.User, imgCfg.User)

	withInit := false
	if c.ContainerJSONBase != nil && c.HostConfig != nil && c.HostConfig.Init != nil {
		withInit = *c.HostConfig.Init
	}
	m.Init = types.BoolValue(withInit)
	m.StopTimeout = types.Int64Value(defaultStopTimeout)

	m.importNetwork(c)
	// Start from nothing, so that observing takes every value from the
	// engine, but for the host ports the engine picked.
	m.setGroupsNull()
	if recorded {
		// Observing keeps these where the engine shows the same.
		if rec.EnvWOVersion != nil {
			m.EnvWOVersion = types.Int64Value(*rec.EnvWOVersion)
		}
		m.Ports = portsValue(rec.EnginePorts)
		m.CapAdd = values.StringSetOrNull(rec.CapAdd)
		m.CapDrop = values.StringSetOrNull(rec.CapDrop)
	}
	// Without a record, an imported container's engine defaults are
	// unknown: its limits show as the engine reports them.
	m.setObserved(ctx, c, defaults)
	if c.ContainerJSONBase != nil && c.HostConfig != nil {
		m.importPrivileges(c.HostConfig)
		if recorded && rec.Runtime != "" && rec.Runtime == c.HostConfig.Runtime {
			m.Runtime = types.StringValue(rec.Runtime)
		}
	}
	return defaults
}

// importProcess returns entrypoint and command as a configuration would
// have set them: null for the keep-alive and for what the image gives.
func importProcess(entrypoint, command []string, img ocispec.ImageConfig) (types.List, types.List) {
	switch {
	case slices.Equal(entrypoint, keepAlive) && len(command) == 0:
		entrypoint, command = nil, nil
	case slices.Equal(entrypoint, img.Entrypoint):
		entrypoint = nil
		if slices.Equal(command, img.Cmd) {
			command = nil
		}
	}
	return values.StringList(entrypoint), values.StringList(command)
}

// without returns the entries of list that are not in base.
func without(list, base []string) []string {
	var out []string
	for _, e := range list {
		if !slices.Contains(base, e) {
			out = append(out, e)
		}
	}
	return out
}

func envMap(list []string) map[string]string {
	env := make(map[string]string, len(list))
	for _, e := range list {
		k, v, _ := strings.Cut(e, "=")
		env[k] = v
	}
	return env
}

// userLabels returns the labels a configuration would have set: all but the
// provider's own and those inherited unchanged from the image.
func userLabels(labels, imageLabels map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range labels {
		if engine.IsProviderLabel(k) {
			continue
		}
		if iv, ok := imageLabels[k]; ok && iv == v {
			continue
		}
		out[k] = v
	}
	return out
}

func stringOrNull(v, imageDefault string) types.String {
	if v == "" || v == imageDefault {
		return types.StringNull()
	}
	return types.StringValue(v)
}

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
