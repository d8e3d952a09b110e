package containersdatasource

import (
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/framework/values"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/isolation"
)

// entry is one container as the data source lists it, with the verdict of
// internal/isolation; users are the containers that mount each volume it
// mounts.
func entry(c engine.Sandbox, users map[string][]engine.VolumeUser, now time.Time) types.Object {
	v := isolation.Assess(c.Network)
	name, imageID := strings.TrimPrefix(c.Name, "/"), c.Image
	image, resourceType := "", ""
	labels := map[string]string{}
	if c.Config != nil {
		image, resourceType = c.Config.Image, c.Config.Labels[engine.LabelResourceType]
		maps.Copy(labels, c.Config.Labels)
		maps.DeleteFunc(labels, func(k, _ string) bool { return engine.IsProviderLabel(k) })
	}
	reason := types.StringNull()
	if !v.Isolated {
		reason = types.StringValue(v.Reason)
	}
	mounts, hostPaths := mountList(c)
	expiresAt := types.StringNull()
	if !c.ExpiresAt.IsZero() {
		expiresAt = types.StringValue(c.ExpiresAt.UTC().Format(time.RFC3339))
	}
	return types.ObjectValueMust(entryAttrTypes, map[string]attr.Value{
		"id":             types.StringValue(c.ID),
		"name":           types.StringValue(name),
		"image":          types.StringValue(image),
		"image_id":       types.StringValue(imageID),
		"running":        types.BoolValue(engine.IsRunning(c)),
		"state":          types.StringValue(engine.StateOf(c)),
		"expires_at":     expiresAt,
		"expired":        types.BoolValue(engine.Expired(c, now)),
		"network_mode":   types.StringValue(v.Mode),
		"networks":       values.StringList(v.Networks),
		"isolated":       types.BoolValue(v.Isolated),
		"reason":         reason,
		"resource_type":  types.StringValue(resourceType),
		"labels":         values.StringMap(labels),
		"mounts":         mounts,
		"shared_volumes": stringList(sharedVolumes(c, users)),
		"host_paths":     stringList(hostPaths),
	})
}

// mountList is the container's mounts, sorted by target, and the host
// paths among them.
func mountList(c engine.Sandbox) (types.List, []string) {
	observed := engine.ObservedMounts(c)
	var list []attr.Value
	var hostPaths []string
	for _, target := range slices.Sorted(maps.Keys(observed)) {
		m := observed[target]
		volume, hostPath := types.StringNull(), types.StringNull()
		if m.HostPath != "" {
			hostPath = types.StringValue(m.HostPath)
			hostPaths = append(hostPaths, m.HostPath)
		} else {
			volume = types.StringValue(m.Volume)
		}
		list = append(list, types.ObjectValueMust(mountAttrTypes, map[string]attr.Value{
			"target": types.StringValue(target), "volume": volume, "host_path": hostPath,
			"read_only": types.BoolValue(m.ReadOnly),
		}))
	}
	slices.Sort(hostPaths)
	return types.ListValueMust(types.ObjectType{AttrTypes: mountAttrTypes}, list), hostPaths
}

// volumesOf are the named volumes c mounts, and whether it can write to
// each.
func volumesOf(c engine.Sandbox) map[string]bool {
	out := map[string]bool{}
	for _, m := range engine.ObservedMounts(c) {
		if m.Volume != "" {
			out[m.Volume] = out[m.Volume] || !m.ReadOnly
		}
	}
	return out
}

// sharedVolumes are the volumes c mounts that another container mounts
// too, where one of the two can write, sorted.
func sharedVolumes(c engine.Sandbox, users map[string][]engine.VolumeUser) []string {
	var shared []string
	for volume, writable := range volumesOf(c) {
		for _, u := range users[volume] {
			if u.ID != c.ID && (writable || u.Writable) {
				shared = append(shared, volume)
				break
			}
		}
	}
	slices.Sort(shared)
	return shared
}

// stringList is a list of strings, empty (not null) when there are none.
func stringList(list []string) types.List {
	vals := make([]attr.Value, len(list))
	for i, s := range list {
		vals[i] = types.StringValue(s)
	}
	return types.ListValueMust(types.StringType, vals)
}
