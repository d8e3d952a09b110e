package resources

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"os"
	"strconv"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
)

type fileModel struct {
	Content       types.String `tfsdk:"content"`
	ContentBase64 types.String `tfsdk:"content_base64"`
	Source        types.String `tfsdk:"source"`
	Mode          types.String `tfsdk:"mode"`
	SHA256        types.String `tfsdk:"sha256"`
}

// known reports whether the file's content can be read now.
func (f fileModel) known() bool {
	return !f.Content.IsUnknown() && !f.ContentBase64.IsUnknown() && !f.Source.IsUnknown()
}

// read returns the file's content from whichever source it has.
func (f fileModel) read() ([]byte, error) {
	switch {
	case !f.Content.IsNull():
		return []byte(f.Content.ValueString()), nil
	case !f.ContentBase64.IsNull():
		return base64.StdEncoding.DecodeString(f.ContentBase64.ValueString())
	case !f.Source.IsNull():
		return os.ReadFile(f.Source.ValueString())
	}
	return nil, fmt.Errorf("no content, content_base64 or source")
}

func digest(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// planFiles fills in each file's digest, so that a plan shows a changed
// source file. Files whose content is not known yet get an unknown digest.
func planFiles(ctx context.Context, files types.Map) (types.Map, diag.Diagnostics) {
	var diags diag.Diagnostics
	if files.IsNull() || files.IsUnknown() {
		return files, diags
	}
	var entries map[string]fileModel
	diags.Append(files.ElementsAs(ctx, &entries, false)...)
	if diags.HasError() {
		return files, diags
	}
	vals := make(map[string]attr.Value, len(entries))
	for p, f := range entries {
		f.SHA256 = types.StringUnknown()
		if f.known() {
			content, err := f.read()
			if err != nil {
				diags.AddAttributeError(path.Root("files").AtMapKey(p), "Cannot read file", err.Error())
				continue
			}
			f.SHA256 = types.StringValue(digest(content))
		}
		obj, d := types.ObjectValueFrom(ctx, fileAttrTypes, f)
		diags.Append(d...)
		vals[p] = obj
	}
	if diags.HasError() {
		return files, diags
	}
	planned, d := types.MapValue(types.ObjectType{AttrTypes: fileAttrTypes}, vals)
	diags.Append(d...)
	return planned, diags
}

// engineFiles reads the planned files for the engine. A source file whose
// content changed since the plan is an error: apply writes what was planned
// or nothing.
func engineFiles(ctx context.Context, files types.Map) ([]engine.File, diag.Diagnostics) {
	var diags diag.Diagnostics
	var entries map[string]fileModel
	diags.Append(files.ElementsAs(ctx, &entries, false)...)
	out := make([]engine.File, 0, len(entries))
	for p, f := range entries {
		at := path.Root("files").AtMapKey(p)
		content, err := f.read()
		if err != nil {
			diags.AddAttributeError(at, "Cannot read file", err.Error())
			continue
		}
		if want := f.SHA256.ValueString(); want != "" && digest(content) != want {
			diags.AddAttributeError(at, "File changed since the plan", fmt.Sprintf(
				"The content of %s no longer has the digest the plan recorded (%s). Plan and apply again.",
				f.Source.ValueString(), want))
			continue
		}
		mode, err := strconv.ParseInt(f.Mode.ValueString(), 8, 64)
		if err != nil {
			diags.AddAttributeError(at.AtName("mode"), "Invalid file mode", err.Error())
			continue
		}
		out = append(out, engine.File{Path: p, Content: content, Mode: mode})
	}
	return out, diags
}
