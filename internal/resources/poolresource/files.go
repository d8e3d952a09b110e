package poolresource

import (
	"context"
	"encoding/base64"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-validators/mapvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/mapplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/framework/validators"
)

// A pool's files: written into every sandbox of the pool from the
// template's Secret, read-only, owned by root. The same shape as
// sandbox_container's files, without `source`.

// defaultFileMode is a file's mode when it gives none, as sandbox_container's.
const defaultFileMode = "0644"

var fileMode = regexp.MustCompile(`^0?[0-7]{3}$`)

// hiddenPaths are where the node mounts its own: a file there would be
// hidden when the sandbox starts.
var hiddenPaths = []string{"/proc", "/sys", "/dev", "/etc/hosts", "/etc/hostname", "/etc/resolv.conf"}

// fileModel is one file.
type fileModel struct {
	Content       types.String `tfsdk:"content"`
	ContentBase64 types.String `tfsdk:"content_base64"`
	Mode          types.String `tfsdk:"mode"`
}

func fileAttribute() schema.Attribute {
	return schema.MapNestedAttribute{
		MarkdownDescription: "Files every sandbox of the pool gets, read-only and owned by root, from a Secret the " +
			"pool's template owns: a map from absolute path to an object with exactly one of `content` (text) or " +
			"`content_base64` (binary content as standard base64), and optionally `mode`, the permission bits in " +
			"octal (default `\"" + defaultFileMode + "\"`). The same shape as `sandbox_container`'s `files`, " +
			"without `source`. At most 1,000,000 bytes in all (a Secret's bound). Changing them forces replacement.",
		Optional: true,
		NestedObject: schema.NestedAttributeObject{
			Attributes: map[string]schema.Attribute{
				"content": schema.StringAttribute{
					MarkdownDescription: "The file's text.",
					Optional:            true,
					Validators: []validator.String{stringvalidator.ExactlyOneOf(
						path.MatchRelative().AtParent().AtName("content_base64"))},
				},
				"content_base64": schema.StringAttribute{
					MarkdownDescription: "The file's bytes, as standard base64.",
					Optional:            true,
					Validators:          []validator.String{validators.Base64()},
				},
				"mode": schema.StringAttribute{
					MarkdownDescription: "Permission bits in octal, such as `\"0755\"`.",
					Optional:            true,
					Validators:          []validator.String{stringvalidator.RegexMatches(fileMode, "must be permission bits in octal, such as \"0755\"")},
				},
			},
		},
		PlanModifiers: []planmodifier.Map{mapplanmodifier.RequiresReplace()},
		Validators:    []validator.Map{mapvalidator.KeysAre(validators.AbsolutePath(), notHidden())},
	}
}

// notHidden refuses a path under what the node mounts itself.
func notHidden() validator.String {
	desc := "must not be under " + strings.Join(hiddenPaths, ", ") + ", where the node mounts its own when the " +
		"sandbox starts and would hide the file; put it elsewhere"
	return validators.String(desc, func(s string) string {
		if slices.ContainsFunc(hiddenPaths, func(h string) bool { return s == h || strings.HasPrefix(s, h+"/") }) {
			return desc
		}
		return ""
	})
}

// engineFiles are the files as the backend takes them, by path.
func engineFiles(ctx context.Context, m types.Map) ([]engine.File, diag.Diagnostics) {
	if m.IsNull() || m.IsUnknown() {
		return nil, nil
	}
	var files map[string]fileModel
	diags := m.ElementsAs(ctx, &files, false)
	paths := make([]string, 0, len(files))
	for p := range files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	var out []engine.File
	for _, p := range paths {
		f := files[p]
		content := []byte(f.Content.ValueString())
		if !f.ContentBase64.IsNull() {
			var err error
			if content, err = base64.StdEncoding.DecodeString(f.ContentBase64.ValueString()); err != nil {
				diags.AddAttributeError(path.Root("files").AtMapKey(p).AtName("content_base64"), "Not base64",
					fmt.Sprintf("The file %s: %v. Give standard base64.", p, err))
				continue
			}
		}
		mode := defaultFileMode
		if !f.Mode.IsNull() {
			mode = f.Mode.ValueString()
		}
		bits, _ := strconv.ParseInt(mode, 8, 32) // the validator checked it
		out = append(out, engine.File{Path: p, Content: content, Mode: bits})
	}
	return out, diags
}
