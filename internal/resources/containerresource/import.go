package containerresource

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/framework/values"
)

// importSandbox reads the container with ID or name idOrName, and its
// image, into a model with every attribute set as a configuration that
// made it would have set it, and the engine's defaults for the private
// state.
func (r *Resource) importSandbox(ctx context.Context, idOrName string) (resourceModel, engine.Defaults, diag.Diagnostics) {
	var m resourceModel
	c, err := r.Client.InspectContainer(ctx, idOrName)
	if err != nil {
		if engine.IsNotFound(err) {
			return m, engine.Defaults{}, diag.Diagnostics{diag.NewErrorDiagnostic("Cannot import sandbox", fmt.Sprintf(
				"No container with ID or name %q exists on %s. Check the ID or name against the engine's own "+
					"list (docker ps -a, or kubectl get pods on a cluster), or find the provider's sandboxes with "+
					"terraform query (list \"sandbox_container\").", idOrName, r.Client.Where()))}
		}
		return m, engine.Defaults{}, diag.Diagnostics{diag.NewErrorDiagnostic("Cannot import sandbox", fmt.Sprintf(
			"Inspecting %q on %s failed: %v. %s", idOrName, r.Client.Where(), err, engine.NextStep(err, r.Client.Where())))}
	}
	switch made, err := r.Client.ProvenanceOf(ctx, c); {
	case err != nil:
		return m, engine.Defaults{}, diag.Diagnostics{diag.NewErrorDiagnostic("Cannot import sandbox", fmt.Sprintf(
			"Asking %s who made %q failed: %s. Try the import again once the engine answers.",
			r.Client.Where(), idOrName, engine.Brief(err)))}
	case made == engine.LabelsNotItsOwn:
		return m, engine.Defaults{}, diag.Diagnostics{diag.NewErrorDiagnostic("Sandbox not made by this provider",
			fmt.Sprintf("%q on %s carries this provider's ownership labels (tfsandbox.managed-by, tfsandbox.create-token), but it is not the sandbox the provider "+
				"created with them: their create token belongs to another sandbox, made before it, or it inherited them "+
				"from its image, or it was made after the create that token records. The provider never takes such a "+
				"copy for its own. To manage this container with Terraform, make it again without those labels "+
				"and import that; to manage the sandbox they were copied from, import it instead.",
				idOrName, r.Client.Where()))}
	}
	if kind := labelOf(c, engine.LabelResourceType); kind != "" && kind != resourceType {
		return m, engine.Defaults{}, diag.Diagnostics{diag.NewErrorDiagnostic("Not a sandbox", fmt.Sprintf(
			"%q on %s is a container the provider made for itself (%s=%s: a volume's helper, or the expiry "+
				"warden that stops sandboxes at their expiry), not a sandbox, and manages it itself. Import one "+
				"of its sandboxes instead.", idOrName, r.Client.Where(),
			engine.LabelResourceType, kind))}
	}
	if engine.IsAsleep(c) {
		return m, engine.Defaults{}, diag.Diagnostics{diag.NewErrorDiagnostic("Cannot import a sandbox asleep", fmt.Sprintf(
			"%q on %s is asleep: it has no pod, so its configuration cannot be read back; only the state that put "+
				"it to sleep holds it. Import it from that configuration's state instead, or remove it (kubectl "+
				"delete networkpolicy -l %sasleep=%s, which removes its Secrets with it) and create it anew.",
			idOrName, r.Client.Where(), engine.LabelPrefix, c.Name))}
	}
	return r.modelOf(ctx, c)
}

// modelOf is the model an import of c gives, and the engine's defaults
// for the private state.
func (r *Resource) modelOf(ctx context.Context, c engine.Sandbox) (resourceModel, engine.Defaults, diag.Diagnostics) {
	var m resourceModel
	var err error
	// A cluster's images are the nodes' (no engine.Images): what the image
	// sets, the sandbox's configuration record says.
	var img engine.Image
	if r.images != nil {
		img, err = r.images.InspectImage(ctx, c.Image)
	}
	if err != nil && !engine.IsNotFound(err) {
		return m, engine.Defaults{}, diag.Diagnostics{diag.NewErrorDiagnostic("Cannot import sandbox", fmt.Sprintf(
			"Inspecting the image of container %s on %s failed: %v. %s",
			engine.ShortID(c.ID), r.Client.Where(), err, engine.NextStep(err, r.Client.Where())))}
	}
	defaults := m.setFromEngine(ctx, c, img)
	m.ExpiresAfter, m.ExpiresAt = types.StringNull(), types.StringNull()
	if !c.ExpiresAt.IsZero() {
		m.ExpiresAt = types.StringValue(stamp(c.ExpiresAt))
	}
	m.observeExpiry(c, "", time.Now())
	return m, defaults, nil
}

// setFromEngine fills every configurable attribute from the engine's data,
// as an import does: values that only repeat the image's defaults, the
// provider's own labels and the keep-alive are left null, as they would be in
// a configuration that produced this container; so are the values the
// engine filled in where labelConfigured says the configuration set none.
// It returns those engine defaults, for the private state.
func (m *resourceModel) setFromEngine(ctx context.Context, c engine.Sandbox, img engine.Image) engine.Defaults {
	cfg := c.Config
	if cfg == nil {
		cfg = &engine.ContainerConfig{}
	}

	rec, recorded := configured(cfg.Labels)
	m.Image = types.StringValue(cfg.Image)
	env := withoutSecrets(envMap(without(cfg.Env, img.Env)), cfg.Labels)
	m.WorkingDir = stringOrNull(cfg.WorkingDir, img.WorkingDir)
	var defaults engine.Defaults
	if recorded {
		m.Image = types.StringValue(rec.Image)
		maps.DeleteFunc(env, func(k, _ string) bool { return !slices.Contains(rec.Env, k) })
		if !rec.WorkingDir {
			m.WorkingDir = types.StringNull()
		}
		if c.HostConfig != nil {
			defaults = rec.importDefaults(c.HostConfig)
		}
	}
	m.Entrypoint, m.Command = importProcess(cfg.Entrypoint, cfg.Cmd, img)
	m.Env = values.StringMap(env)
	m.Labels = values.StringMap(userLabels(cfg.Labels, img.Labels))
	m.User = stringOrNull(cfg.User, img.User)

	withInit := false
	if c.HostConfig != nil && c.HostConfig.Init != nil {
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
	if c.HostConfig != nil {
		m.importPrivileges(c.HostConfig)
		m.importCapabilities()
		if recorded && rec.Runtime != "" && rec.Runtime == c.HostConfig.Runtime {
			m.Runtime = types.StringValue(rec.Runtime)
		}
	}
	return defaults
}

// importProcess returns entrypoint and command as a configuration would
// have set them: null for the keep-alive and for what the image gives.
func importProcess(entrypoint, command []string, img engine.Image) (types.List, types.List) {
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

// labelOf is the value of the label key on c; "" for none.
func labelOf(c engine.Sandbox, key string) string {
	if c.Config == nil {
		return ""
	}
	return c.Config.Labels[key]
}
