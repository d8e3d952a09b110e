package containersdatasource

import (
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// dataModel is the data source's filters (filters.go) and what it found
// (entry.go).
type dataModel struct {
	NamePrefix types.String `tfsdk:"name_prefix"`
	Labels     types.Map    `tfsdk:"labels"`
	Expired    types.Bool   `tfsdk:"expired"`
	Containers types.List   `tfsdk:"containers"`
}

// entryAttrTypes are the types of one listed container's attributes.
var entryAttrTypes = map[string]attr.Type{
	"id":             types.StringType,
	"name":           types.StringType,
	"image":          types.StringType,
	"image_id":       types.StringType,
	"running":        types.BoolType,
	"state":          types.StringType,
	"expires_at":     types.StringType,
	"expired":        types.BoolType,
	"network_mode":   types.StringType,
	"networks":       types.ListType{ElemType: types.StringType},
	"isolated":       types.BoolType,
	"reason":         types.StringType,
	"resource_type":  types.StringType,
	"labels":         types.MapType{ElemType: types.StringType},
	"mounts":         types.ListType{ElemType: types.ObjectType{AttrTypes: mountAttrTypes}},
	"shared_volumes": types.ListType{ElemType: types.StringType},
	"host_paths":     types.ListType{ElemType: types.StringType},
}

// mountAttrTypes are the types of one mount's attributes.
var mountAttrTypes = map[string]attr.Type{
	"target":    types.StringType,
	"volume":    types.StringType,
	"host_path": types.StringType,
	"read_only": types.BoolType,
}
