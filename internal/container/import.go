package container

import (
	"context"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/types"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/values"
)

// setFromEngine fills every configurable attribute from the engine's data,
// as an import does: values that only repeat the image's defaults, the
// provider's own labels and the keep-alive are left null, as they would be in
// a configuration that produced this container.
func (m *resourceModel) setFromEngine(ctx context.Context, c engine.Container, img engine.Image) {
	cfg := c.Config
	if cfg == nil {
		cfg = &engine.ContainerConfig{}
	}
	var imgCfg ocispec.ImageConfig
	if img.Config != nil {
		imgCfg = img.Config.ImageConfig
	}

	m.Image = types.StringValue(cfg.Image)
	m.Entrypoint, m.Command = importProcess(cfg.Entrypoint, cfg.Cmd, imgCfg)
	m.Env = values.StringMap(withoutSecrets(envMap(without(cfg.Env, imgCfg.Env)), cfg.Labels))
	m.Labels = values.StringMap(userLabels(cfg.Labels, imgCfg.Labels))
	m.WorkingDir = stringOrNull(cfg.WorkingDir, imgCfg.WorkingDir)
	m.User = stringOrNull(cfg.User, imgCfg.User)

	withInit := false
	if c.ContainerJSONBase != nil && c.HostConfig != nil && c.HostConfig.Init != nil {
		withInit = *c.HostConfig.Init
	}
	m.Init = types.BoolValue(withInit)
	m.StopTimeout = types.Int64Value(defaultStopTimeout)

	m.importNetwork(c)
	// Start from nothing, so that observing takes every value from the
	// engine.
	m.setGroupsNull()
	// An imported container's engine defaults are unknown: its limits show
	// as the engine reports them (the docs say so for Podman).
	m.setObserved(ctx, c, engine.Defaults{})
	if c.ContainerJSONBase != nil && c.HostConfig != nil {
		m.importPrivileges(c.HostConfig)
	}
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
		if k == engine.LabelManagedBy || k == engine.LabelResourceType || k == engine.LabelCreateToken || k == labelSecretEnv {
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
