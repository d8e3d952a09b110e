package filedatasource

import (
	"fmt"
	"path"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/framework/validators"
)

// Size bounds of a read.
const (
	defaultMaxSize = 1 << 20
	maxMaxSize     = 10 << 20
)

// dataModel is the data source's arguments and what it read.
type dataModel struct {
	Container              types.String `tfsdk:"container"`
	Volume                 types.String `tfsdk:"volume"`
	Path                   types.String `tfsdk:"path"`
	MaxSize                types.Int64  `tfsdk:"max_size"`
	Sensitive              types.Bool   `tfsdk:"sensitive"`
	Size                   types.Int64  `tfsdk:"size"`
	ReadThrough            types.String `tfsdk:"read_through"`
	Content                types.String `tfsdk:"content"`
	ContentBase64          types.String `tfsdk:"content_base64"`
	SensitiveContent       types.String `tfsdk:"sensitive_content"`
	SensitiveContentBase64 types.String `tfsdk:"sensitive_content_base64"`
}

//nolint:funlen // a schema literal
func dataSchema() schema.Schema {
	return schema.Schema{
		MarkdownDescription: "One file read from a sandbox, or from a volume, so that a workflow can take an " +
			"agent's result out without an exec: bounded in size, sensitive when asked, and an error that says " +
			"why when the file is missing. It only reads: a volume is read through a container that mounts it " +
			"(the provider starts nothing during a plan).",
		Attributes: map[string]schema.Attribute{
			"container": schema.StringAttribute{
				MarkdownDescription: "The sandbox to read from, by ID or name, such as `sandbox_container.agent.id`, " +
					"running or stopped. Exactly one of `container` and `volume`.",
				Optional:   true,
				Validators: []validator.String{stringvalidator.LengthAtLeast(1)},
			},
			"volume": schema.StringAttribute{
				MarkdownDescription: "The volume to read from, by name, such as `sandbox_volume.work.name`: read " +
					"through a container that mounts it (a running one first; on Podman, only a running one). " +
					"Exactly one of `container` and `volume`.",
				Optional:   true,
				Validators: []validator.String{stringvalidator.LengthAtLeast(1)},
			},
			"path": schema.StringAttribute{
				MarkdownDescription: "The file's path: absolute inside the sandbox (`\"/workspace/result.json\"`), " +
					"or, with `volume`, relative to the volume's root (`\"result.json\"`). A directory or a " +
					"symbolic link is an error that says so.",
				Required:   true,
				Validators: []validator.String{validators.String("must be a clean path, without ..", cleanPath)},
			},
			"max_size": schema.Int64Attribute{
				MarkdownDescription: fmt.Sprintf("The largest file to read, in bytes: a larger one is an error. "+
					"Defaults to %d (1 MiB), at most %d (10 MiB): the content is held in the state.",
					defaultMaxSize, maxMaxSize),
				Optional:   true,
				Validators: []validator.Int64{int64validator.Between(1, maxMaxSize)},
			},
			"sensitive": schema.BoolAttribute{
				MarkdownDescription: "Put the content in `sensitive_content` and `sensitive_content_base64`, which " +
					"Terraform does not show, and leave `content` and `content_base64` null. Defaults to `false`.",
				Optional: true,
			},
			"size": schema.Int64Attribute{MarkdownDescription: "The file's size in bytes.", Computed: true},
			"read_through": schema.StringAttribute{
				MarkdownDescription: "The name of the container the file was read through.",
				Computed:            true,
			},
			"content": schema.StringAttribute{
				MarkdownDescription: "The content as text; null when it is not valid UTF-8 (use `content_base64`) " +
					"or `sensitive` is true.",
				Computed: true,
			},
			"content_base64": schema.StringAttribute{
				MarkdownDescription: "The content as standard base64; null when `sensitive` is true.",
				Computed:            true,
			},
			"sensitive_content": schema.StringAttribute{
				MarkdownDescription: "With `sensitive`, the content as text (null when not valid UTF-8).",
				Computed:            true,
				Sensitive:           true,
			},
			"sensitive_content_base64": schema.StringAttribute{
				MarkdownDescription: "With `sensitive`, the content as standard base64.",
				Computed:            true,
				Sensitive:           true,
			},
		},
	}
}

func cleanPath(s string) string {
	if s == "" || s == "/" || s == ".." || path.Clean(s) != s || strings.HasPrefix(s, "../") {
		return "must be a clean path, without .."
	}
	return ""
}
