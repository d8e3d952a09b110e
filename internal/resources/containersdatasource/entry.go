package containersdatasource

import (
	"maps"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/framework/values"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/isolation"
)

// entry is one container as the data source lists it, with the verdict of
// internal/isolation.
func entry(c engine.Container) types.Object {
	v := isolation.Assess(c)
	name, image, imageID, resourceType := "", "", "", ""
	labels := map[string]string{}
	if c.ContainerJSONBase != nil {
		name, imageID = strings.TrimPrefix(c.Name, "/"), c.Image
	}
	if c.Config != nil {
		image, resourceType = c.Config.Image, c.Config.Labels[engine.LabelResourceType]
		maps.Copy(labels, c.Config.Labels)
		maps.DeleteFunc(labels, func(k, _ string) bool { return engine.IsProviderLabel(k) })
	}
	reason := types.StringNull()
	if !v.Isolated {
		reason = types.StringValue(v.Reason)
	}
	return types.ObjectValueMust(entryAttrTypes, map[string]attr.Value{
		"id":            types.StringValue(c.ID),
		"name":          types.StringValue(name),
		"image":         types.StringValue(image),
		"image_id":      types.StringValue(imageID),
		"running":       types.BoolValue(engine.IsRunning(c)),
		"network_mode":  types.StringValue(v.Mode),
		"networks":      values.StringList(v.Networks),
		"isolated":      types.BoolValue(v.Isolated),
		"reason":        reason,
		"resource_type": types.StringValue(resourceType),
		"labels":        values.StringMap(labels),
	})
}
