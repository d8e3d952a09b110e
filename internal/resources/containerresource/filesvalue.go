package containerresource

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/framework/validators"
	"github.com/tfsandbox/terraform-provider-sandbox/internal/framework/values"
)

// files is a dynamic attribute whose type the provider checks itself. As a
// map of nested objects, the plugin framework walked each file's attributes
// several times over at every plan, apply and refresh, and a sandbox with
// 2,000 files took seconds longer than one with 20 in each
// (bench/HISTORY.md); a dynamic value it passes through whole. So what the
// framework checked from the schema is checked here, with each error at
// the file's own path, and a value is compared by what it holds, not by
// its type: a literal and a typed variable with the same files are the
// same files, and so are the same bytes given as content or in base64.

// fileFields are the attributes a file takes.
var fileFields = []string{"content", "content_base64", "source", "mode"}

// filesKnown reports whether v holds files, all known or not: it is
// neither null nor unknown as a whole.
func filesKnown(v types.Dynamic) bool {
	return values.Known(v) && !v.IsUnderlyingValueNull() && !v.IsUnderlyingValueUnknown()
}

// concrete is what a dynamic value holds, and any other value as it is: a
// file, or one of its attributes, comes as a dynamic value when the object
// around it has an attribute of no fixed type (a null, or an expression
// known only at apply).
func concrete(v attr.Value) attr.Value {
	if d, ok := v.(basetypes.DynamicValue); ok && !d.IsNull() && !d.IsUnknown() {
		return d.UnderlyingValue()
	}
	return v
}

// entriesOf returns the elements of a map or the attributes of an object,
// which is how a file, and the files, come: an object from a literal or a
// for expression, a map from a typed variable.
func entriesOf(v attr.Value) (map[string]attr.Value, bool) {
	switch v := concrete(v).(type) {
	case basetypes.ObjectValue:
		return v.Attributes(), true
	case basetypes.MapValue:
		return v.Elements(), true
	}
	return nil, false
}

// stringOf converts an attribute of a file to a string as Terraform does
// for a string attribute: numbers and booleans become their text.
func stringOf(v attr.Value) (types.String, bool) {
	v = concrete(v)
	if v == nil || v.IsNull() {
		return types.StringNull(), true
	}
	if v.IsUnknown() {
		return types.StringUnknown(), true
	}
	switch v := v.(type) {
	case basetypes.StringValue:
		return v, true
	case basetypes.NumberValue:
		return types.StringValue(v.ValueBigFloat().Text('f', -1)), true
	case basetypes.BoolValue:
		return types.StringValue(strconv.FormatBool(v.ValueBool())), true
	}
	return types.StringNull(), false
}

// kindOf names what v is, as a configuration writes it.
func kindOf(v attr.Value) string {
	switch v.(type) {
	case basetypes.StringValue:
		return "a string"
	case basetypes.NumberValue:
		return "a number"
	case basetypes.BoolValue:
		return "a bool"
	case basetypes.ListValue, basetypes.TupleValue, basetypes.SetValue:
		return "a list"
	}
	return "another kind of value"
}

// unknownFile is a file whose whole object is known only at apply.
func unknownFile() fileModel {
	u := types.StringUnknown()
	return fileModel{Content: u, ContentBase64: u, Source: u, Mode: u}
}

// decodeFiles reads the files of v by path; a file whose object is known
// only at apply has every attribute unknown. Null or unknown files read as
// none: callers that need to tell check filesKnown first.
func decodeFiles(v types.Dynamic) (map[string]fileModel, diag.Diagnostics) {
	var diags diag.Diagnostics
	if !filesKnown(v) {
		return nil, diags
	}
	elements, ok := entriesOf(v.UnderlyingValue())
	if !ok {
		diags.AddAttributeError(path.Root("files"), "Invalid files", fmt.Sprintf(
			"Attribute files must be a map of files by absolute path, such as "+
				"{ \"/work/run.sh\" = { content = \"...\", mode = \"0755\" } }; got %s. Write it in that shape.",
			kindOf(v.UnderlyingValue())))
		return nil, diags
	}
	out := make(map[string]fileModel, len(elements))
	for p, element := range elements {
		at := path.Root("files").AtMapKey(p)
		if element = concrete(element); element.IsUnknown() {
			out[p] = unknownFile()
			continue
		}
		fields, ok := entriesOf(element)
		if !ok || element.IsNull() {
			diags.AddAttributeError(at, "Invalid file", fmt.Sprintf(
				"Attribute files[%q] must be an object with one of content, content_base64 or source, and "+
					"optionally mode, such as { content = \"...\" }. Write it in that shape.", p))
			continue
		}
		f := fileModel{Content: types.StringNull(), ContentBase64: types.StringNull(), Source: types.StringNull(),
			Mode: types.StringNull()}
		for _, name := range slices.Sorted(maps.Keys(fields)) {
			s, ok := stringOf(fields[name])
			if !ok {
				diags.AddAttributeError(at.AtName(name), "Invalid file attribute", fmt.Sprintf(
					"Attribute files[%q].%s must be a string. Quote it, or convert it with tostring().", p, name))
				continue
			}
			switch name {
			case "content":
				f.Content = s
			case "content_base64":
				f.ContentBase64 = s
			case "source":
				f.Source = s
			case "mode":
				f.Mode = s
			default:
				diags.AddAttributeError(at.AtName(name), "Unsupported file attribute", fmt.Sprintf(
					"Attribute files[%q] has %q, which a file does not take: a file takes `%s`. Remove it.",
					p, name, joinCode(fileFields)))
			}
		}
		out[p] = f
	}
	return out, diags
}

// fileValidators check a file's attributes as the schema of a nested
// object would.
var fileValidators = struct {
	path, covered, base64, source, mode validator.String
}{
	path:    validators.AbsolutePath(),
	covered: outsideKernelFilesystems(),
	base64:  validators.Base64(),
	source:  validators.LocalFile(),
	mode:    stringvalidator.RegexMatches(fileModePattern, "must be octal permission bits such as \"0644\""),
}

// checkFiles refuses files the schema would have refused: no files, a
// path that is not a clean absolute path or that the engine covers, a file
// with not exactly one content, content that is not base64, a source that
// is not a readable file, and a mode that is not octal.
func checkFiles(ctx context.Context, entries map[string]fileModel) diag.Diagnostics {
	var diags diag.Diagnostics
	if len(entries) == 0 {
		diags.AddAttributeError(path.Root("files"), "No files",
			"Attribute files has no file. Leave files out for a sandbox without files.")
		return diags
	}
	check := func(v validator.String, at path.Path, s types.String) {
		resp := &validator.StringResponse{}
		v.ValidateString(ctx, validator.StringRequest{Path: at, PathExpression: at.Expression(), ConfigValue: s}, resp)
		diags.Append(resp.Diagnostics...)
	}
	oneOf := validators.ExactlyOneOf("content", "content_base64", "source")
	for _, p := range slices.Sorted(maps.Keys(entries)) {
		f, at := entries[p], path.Root("files").AtMapKey(p)
		check(fileValidators.path, at, types.StringValue(p))
		check(fileValidators.covered, at, types.StringValue(p))
		resp := &validator.ObjectResponse{}
		oneOf.ValidateObject(ctx, validator.ObjectRequest{Path: at, PathExpression: at.Expression(), ConfigValue: f.contents()}, resp)
		diags.Append(resp.Diagnostics...)
		check(fileValidators.base64, at.AtName("content_base64"), f.ContentBase64)
		check(fileValidators.source, at.AtName("source"), f.Source)
		check(fileValidators.mode, at.AtName("mode"), f.Mode)
	}
	return diags
}

// contents is the file's three kinds of content, as an object.
func (f fileModel) contents() types.Object {
	return types.ObjectValueMust(
		map[string]attr.Type{"content": types.StringType, "content_base64": types.StringType, "source": types.StringType},
		map[string]attr.Value{"content": f.Content, "content_base64": f.ContentBase64, "source": f.Source})
}

// mode is the file's mode, the default when it has none.
func (f fileModel) mode() types.String {
	if f.Mode.IsNull() {
		return types.StringValue(defaultFileMode)
	}
	return f.Mode
}

// sameFiles reports whether two files values hold the same files: the
// same paths, each with the same content (sameContent) and the same mode,
// whatever their types. Anything unknown differs.
func sameFiles(a, b types.Dynamic) bool {
	if filesKnown(a) != filesKnown(b) || a.IsUnknown() || b.IsUnknown() {
		return false
	}
	x, xDiags := decodeFiles(a)
	y, yDiags := decodeFiles(b)
	if xDiags.HasError() || yDiags.HasError() || len(x) != len(y) {
		return false
	}
	for p, f := range x {
		g, ok := y[p]
		if !ok || !f.contentKnown() || !g.contentKnown() || f.mode().IsUnknown() ||
			!sameContent(f, g) || !f.mode().Equal(g.mode()) {
			return false
		}
	}
	return true
}

// sameContent reports whether two known files hold the same content: the
// same bytes when both are inline (content or content_base64, either
// way), the same source file otherwise (files_sha256 tells when a
// source's bytes changed).
func sameContent(f, g fileModel) bool {
	if f.Source.IsNull() && g.Source.IsNull() {
		x, xErr := f.read()
		y, yErr := g.read()
		return xErr == nil && yErr == nil && bytes.Equal(x, y)
	}
	return f.Content.Equal(g.Content) && f.ContentBase64.Equal(g.ContentBase64) && f.Source.Equal(g.Source)
}
